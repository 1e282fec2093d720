from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from remnant.training.synthetic import ManualDataset, manual_dataset

NOW = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def now() -> datetime:
    return NOW


@pytest.fixture(scope="session")
def manuals() -> ManualDataset:
    return manual_dataset(10, seed=11)


@pytest.fixture
def manuals_file(tmp_path, manuals: ManualDataset):  # type: ignore[no-untyped-def]
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in manuals.claims) + "\n", encoding="utf-8")
    return path
