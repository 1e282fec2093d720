"""Issue 29 finding 3: personal data in any field of any write route never reaches a file in
plaintext. The red team found four paths: numbers in ``metadata`` (LangGraph values too), metadata
object keys, ``derived_from`` / ``from_episode`` sent by a caller, and tags changed by PATCH.

A property test generates phone, card and e-mail values and puts them into every field of every
REST write (create, batch, ingest, PATCH, the mem0 add and update routes) and of a LangGraph store
value, as strings, as JSON numbers and as object keys; then the database files (the SQLite file,
its WAL, the vector file) and the server's log lines must hold none of them. A value-level forget
("forget my phone number") reaches a metadata number too."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.leaks import assert_no_leak

pytest.importorskip("cryptography")
pytest.importorskip("fastapi")


def _luhn(digits: str) -> str:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (1 if i % 2 else 2)
        total += n - 9 if n > 9 else n
    return digits + str((10 - total % 10) % 10)


phones = st.integers(min_value=0, max_value=9999).map(lambda n: f"+1 415 555 {n:04d}")
cards = st.text("0123456789", min_size=11, max_size=11).map(lambda d: _luhn("4111" + d))
locals_ = st.tuples(
    st.text("abcdefghijklmnopqrstuvwxyz", min_size=5, max_size=9),
    st.text("abcdefghijklmnopqrstuvwxyz", min_size=5, max_size=9),
).map(lambda t: f"{t[0]}.{t[1]}")


@pytest.fixture(scope="module")
def env() -> Iterator[None]:
    from remnant.privacy.keys import generate_key

    mp = pytest.MonkeyPatch()
    mp.setenv("REMNANT_VAULT_KEY", generate_key())
    mp.setenv("REMNANT_REDACT_PRESIDIO", "off")
    mp.setenv("REMNANT_EMBEDDER", "static")
    yield
    mp.undo()


@pytest.fixture(scope="module")
def live(env: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.server.conftest import start_live

    yield from start_live(tmp_path_factory.mktemp("fields"))


_users = itertools.count()


def _needles(phone: str, card: str, local: str) -> list[str]:
    digits = "".join(c for c in phone if c.isdigit())
    return [phone, digits, digits[1:], card, local]


def _fields(phone: str, card: str, email: str) -> dict[str, Any]:
    """A metadata object with the values in every shape: strings, numbers, keys, engine keys."""
    digits = int("".join(c for c in phone if c.isdigit()))
    return {
        "phone": phone,
        "num": digits,
        "card": int(card),
        "float": float(digits),
        email: "owner",
        "nested": {phone: [int(card)], "deep": {"v": digits}},
        "derived_from": email,
        "from_episode": [phone],
    }


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(phone=phones, card=cards, local=locals_)
def test_every_field_of_every_route_is_redacted(live: Any, phone: str, card: str, local: str) -> None:
    email = f"{local}@example.org"
    user = f"u{next(_users)}"
    meta = _fields(phone, card, email)
    with live.client("a_all") as c:
        item = {
            "content": f"Write to {email}",
            "user_id": user,
            "key": f"phone {phone}",
            "source": email,
            "metadata": meta,
            "tags": [email, phone],
        }
        r = c.post("/v1/memories", json=item)
        assert r.status_code == 201, r.text
        mid = r.json()["id"]
        assert c.post("/v1/memories/batch", json={"items": [{**item, "key": None}]}).status_code == 201
        r = c.post(
            "/v1/ingest",
            json={
                "messages": [{"role": "user", "content": f"call {phone}"}],
                "user_id": user,
                "metadata": meta,
            },
        )
        assert r.status_code == 201, r.text
        r = c.patch(
            f"/v1/memories/{mid}",
            json={"tags": [card, email], "metadata": {f"card {card}": int(card), "n": int(card)}},
        )
        assert r.status_code == 200, r.text
        r = c.post(
            "/v1/memories/",
            json={
                "messages": [{"role": "user", "content": f"my card {card}"}],
                "user_id": user,
                "metadata": meta,
            },
        )
        assert r.status_code == 200, r.text
        assert_no_leak(r.text, [local, card], "a mem0 answer")
        r = c.put(f"/v1/memories/{mid}/", json={"text": f"new card {card}", "metadata": meta})
        assert r.status_code == 200, r.text
        assert_no_leak(r.text, [local, card], "a mem0 answer")
    files = [p for p in live.db.parent.iterdir() if p.is_file() and not p.name.endswith(("-key", "keys.db"))]
    raw = b"".join(p.read_bytes() for p in files)
    assert raw
    needles = _needles(phone, card, local)
    assert_no_leak(raw, needles, f"the database files ({', '.join(p.name for p in files)})")
    assert_no_leak("\n".join(live.logs.lines), needles, "the server logs")


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(phone=phones, card=cards, local=locals_)
def test_langgraph_values_are_redacted(env: None, tmp_path: Path, phone: str, card: str, local: str) -> None:
    from remnant.config import build_memory
    from remnant.integrations.langgraph import RemnantStore

    db = tmp_path / f"lg-{next(_users)}.db"
    email = f"{local}@example.org"
    with build_memory(str(db)) as mem:
        store = RemnantStore(mem)
        store.put(("memories", "ana"), "contact", {"note": "hi", "phone": int(phone[1:].replace(" ", ""))})
        store.put(("memories", "ana"), "card", {"n": int(card), email: True, "nested": {phone: 1}})
    raw = b"".join(
        p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(db.name) and "key" not in p.name
    )
    assert_no_leak(raw, _needles(phone, card, local), "the LangGraph store's database")


def test_forgetting_a_phone_number_reaches_a_metadata_number(env: None, tmp_path: Path) -> None:
    from remnant.config import build_memory

    db = tmp_path / "f.db"
    with build_memory(str(db)) as mem:
        rec = mem.remember("my contact card", user_id="ana", metadata={"phone": 14155550134})
        assert "14155550134" not in str(rec.metadata)
        assert mem.rehydrate(rec.id)  # the privileged view still works before the forget
        mem.forget("forget my phone number", user_id="ana", confirm=True)
        vault = mem.redactor.vault  # type: ignore[union-attr]
        assert not [e for e in vault.entries("default", "ana") if e.entity_type.value == "PHONE"]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if "key" not in p.name)
    assert b"14155550134" not in raw and b"4155550134" not in raw
