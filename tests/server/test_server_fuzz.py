"""Fuzz the live server from its own OpenAPI document (schemathesis): no input gives a 500.

Bounded so it runs in well under a minute; ``remnant bench serve`` is the load test, and a longer
fuzz run is ``REMNANT_FUZZ_EXAMPLES=500 pytest tests/server/test_server_fuzz.py``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

if TYPE_CHECKING:
    from tests.server.conftest import LiveServer

EXAMPLES = int(os.environ.get("REMNANT_FUZZ_EXAMPLES", "6"))


def _operations() -> list[Any]:
    from remnant.server.app import ServerConfig, create_app

    spec = create_app(ServerConfig(db=":memory:", auth=False, mcp=False)).openapi()
    return [r.ok() for r in schemathesis.openapi.from_dict(spec).get_all_operations()]


OPERATIONS = {op.label: op for op in _operations()}


@pytest.mark.parametrize("mode", ["positive", "negative"])
@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_api_never_500(live: LiveServer, label: str, mode: str) -> None:
    """Valid inputs (positive) and inputs that break the schema on purpose (negative)."""
    headers = {"Authorization": f"Bearer {live.keys['a_all']}"}
    with live.client() as c:  # a real memory, so id-taking routes sometimes find one
        real_id = c.post("/v1/memories", json={"content": "fuzz seed", "user_id": "fuzz"}).json()["id"]

    generation = (
        schemathesis.GenerationMode.POSITIVE if mode == "positive" else schemathesis.GenerationMode.NEGATIVE
    )
    try:
        strategy = OPERATIONS[label].as_strategy(generation)
    except Exception as exc:  # an operation with nothing to break (no parameters, no body)
        pytest.skip(f"no {mode} cases for {label}: {type(exc).__name__}")

    @settings(
        max_examples=EXAMPLES if mode == "positive" else max(3, EXAMPLES // 2),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(case=strategy, use_real=st.booleans())
    def run(case: Any, use_real: bool) -> None:
        if use_real and isinstance(case.path_parameters, dict) and "memory_id" in case.path_parameters:
            case.path_parameters["memory_id"] = real_id
        response = case.call(base_url=live.base, headers=headers)
        assert response.status_code < 500 or response.status_code == 501, (
            label,
            mode,
            response.status_code,
            response.text[:500],
        )
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                # the HTTP server itself rejected a request line the fuzzer broke (before the app ran)
                assert response.status_code == 400 and "Invalid HTTP request" in response.text, (
                    label,
                    mode,
                    response.status_code,
                    response.headers.get("content-type"),
                    response.text[:300],
                )
                return
            assert set(body) == {"error"} and body["error"]["code"], body

    from hypothesis.errors import Unsatisfiable

    try:
        run()
    except Unsatisfiable:  # a public route without parameters (/healthz) has nothing to break
        pytest.skip(f"no {mode} cases for {label}")


def test_garbage_bodies_never_500(live: LiveServer) -> None:
    """Raw bytes, wrong content types and odd encodings at every body-taking route."""
    bodies = [
        b"",
        b"null",
        b"[]",
        b'"x"',
        b"\xff\xfe\x00",
        b'{"content": "\\ud800", "user_id": "u"}',
        b"{" * 3000,
    ]
    paths = [
        "/v1/memories",
        "/v1/recall",
        "/v1/forget",
        "/v1/erasure",
        "/v1/sweep",
        "/v1/memories/mem_x/hide",
    ]
    with live.client() as c:
        for path in paths:
            for body in bodies:
                for ctype in ("application/json", "text/plain", "application/x-www-form-urlencoded"):
                    r = c.post(path, content=body, headers={"Content-Type": ctype})
                    assert 400 <= r.status_code < 500 or r.status_code == 200, (
                        path,
                        body[:20],
                        ctype,
                        r.text,
                    )
                    assert r.status_code < 500
