"""The built wheel, installed as a user installs it: into a fresh virtual environment, with its
dependencies from the package index. ``pip install <wheel>`` must run the README's Python example
as the README says; ``pip install '<wheel>[server]'`` must give a ``remnant serve`` that answers
``/healthz``. One environment for both (base first, then the extra), to spend the install once.

Slow (minutes: the dependencies are downloaded or taken from pip's cache); skipped with the reason
when the package index cannot be reached.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("readme_runner.py")

pytestmark = pytest.mark.slow


def _clean_env(**extra: str) -> dict[str, str]:
    """The user's environment without this checkout on the path and without Remnant's switches."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMNANT_") and k != "PYTHONPATH"}
    env.pop("VIRTUAL_ENV", None)
    env.update({"HF_HUB_OFFLINE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, **extra)
    return env


def _run(cmd: list[str], timeout: float, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)  # type: ignore[call-overload,no-any-return]


def _index_reachable() -> str | None:
    """None when pip can ask its index about a package; else why not."""
    try:
        got = _run([sys.executable, "-m", "pip", "index", "versions", "click"], 90, env=_clean_env())
    except subprocess.TimeoutExpired:
        return "the package index did not answer within 90 s"
    if got.returncode != 0 or "click" not in got.stdout:
        return f"the package index is unreachable: {(got.stderr or got.stdout).strip()[-300:]}"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthz(base: str, proc: subprocess.Popen[str], deadline: float) -> dict[str, object]:
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"remnant serve exited {proc.returncode}: {proc.stderr.read()[-3000:]}")  # type: ignore[union-attr]
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=5) as r:
                return json.loads(r.read().decode())  # type: ignore[no-any-return]
        except OSError as exc:
            last = exc
            time.sleep(0.1)  # a refused connection is answered at once: polling often costs nothing
    raise AssertionError(f"/healthz did not answer: {last}")


@pytest.mark.timeout(1800)
def test_the_wheel_installs_the_product_and_the_server_extra(tmp_path: Path) -> None:
    why = _index_reachable()
    if why:
        pytest.skip(why)
    started = time.monotonic()
    # built from a copy, so the checkout gets no build/ or egg-info (and no stale build/ is packed)
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", str(source), "-w", str(dist), "-q"]
    try:
        import setuptools  # noqa: F401  (build here, offline, when the tests' environment has it)

        build.append("--no-build-isolation")
    except ImportError:
        pass
    got = _run(build, 600, env=_clean_env(), cwd=tmp_path)
    assert got.returncode == 0, got.stderr[-3000:]
    (wheel,) = dist.glob("remnant-*.whl")

    venv = tmp_path / "venv"
    got = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], 300)
    assert got.returncode == 0, got.stderr
    py, remnant = venv / "bin" / "python", venv / "bin" / "remnant"
    # pip of the tests' environment installs into the new one (--python: no second pip to set up,
    # 5 s), and without byte-compiling every dependency (10 s and more): what runs is compiled as
    # it is imported, like any module without a cache. What is installed is the same.
    pip = [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-compile"]
    got = _run([*pip, str(wheel)], 1200, env=_clean_env())
    assert got.returncode == 0, got.stderr[-3000:]
    base_done = time.monotonic()

    # the README's example, in an empty folder, with the base install only
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    shutil.copy(ROOT / "README.md", scratch / "README.md")
    got = _run([str(py), str(RUNNER), "README.md"], 600, env=_clean_env(), cwd=scratch)
    assert got.returncode == 0, f"{got.stdout}\n{got.stderr[-3000:]}"
    printed = got.stdout.splitlines()
    for line in (
        "I live in Berlin now strength=0.85",
        "I live in Paris superseded",
        "I live in Berlin now active",
        "'mail me at [EMAIL_1]'",
    ):
        assert line in printed, printed
    assert (scratch / "memories.db.vault-key").exists()  # redaction and the vault, from the base install
    assert "no embedder available" not in got.stderr, got.stderr  # the bundled e5-small loaded

    # without the server extra, `remnant serve` names it, in one line, and writes nothing
    served = tmp_path / "served"
    served.mkdir()
    got = _run([str(remnant), "--db", "s.db", "serve", "--no-auth"], 120, env=_clean_env(), cwd=served)
    assert got.returncode == 1 and "pip install 'remnant[server]'" in got.stderr, got.stderr
    assert "Traceback" not in got.stderr and list(served.iterdir()) == []

    got = _run([*pip, f"{wheel}[server]"], 1200, env=_clean_env())
    assert got.returncode == 0, got.stderr[-3000:]
    port = _free_port()
    proc = subprocess.Popen(
        [str(remnant), "--db", "s.db", "serve", "--no-auth", "--port", str(port), "--sweep-interval", "0"],
        cwd=served,
        env=_clean_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        health = _healthz(f"http://127.0.0.1:{port}", proc, time.monotonic() + 120)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert health.get("status") == "ok", health
    print(
        f"wheel test: build + base install {base_done - started:.0f} s, "
        f"everything {time.monotonic() - started:.0f} s"
    )
