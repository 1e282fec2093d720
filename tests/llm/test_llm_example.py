"""The customer-service example runs offline end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_customer_service_example_runs_offline(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples/customer_service/app.py"), "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    assert "On file: User lives in Berlin." in out
    assert "12 hours per charge with firmware 2.0" in out  # the spec version valid after 2025-03-15
    assert "not sure any more about your preferred courier" in out  # faded after ten months
    assert "superseded User lives in Munich" in out
