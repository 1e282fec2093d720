from __future__ import annotations

from pathlib import Path

import pytest

from remnant.cli.docs import render

ROOT = Path(__file__).resolve().parents[2]


def test_cli_reference_is_up_to_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert (ROOT / "docs" / "cli.md").read_text() == render() + "\n", "run scripts/gen-cli-docs"


def test_api_reference_is_up_to_date() -> None:
    from remnant.cli.docs import render_api

    assert (ROOT / "docs" / "api.md").read_text() == render_api() + "\n", "run scripts/gen-cli-docs"
