"""The CLI commands, run through the real click objects on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.cli import cli
from remnant.training.synthetic import ManualDataset


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("REMNANT_POOL", raising=False)
    monkeypatch.delenv("REMNANT_PARTITIONS", raising=False)
    return CliRunner()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_pool_add_sample_export_stats(runner: CliRunner, tmp_path: Path) -> None:
    data = write(
        tmp_path / "ex.jsonl",
        [
            json.dumps(
                {"text": "The max concurrency of Orion is 15.", "time": "2024-03-01", "source": "manual-2024"}
            ),
            json.dumps(
                {"text": "The max concurrency of Orion is 10.", "time": "2023-03-01", "source": "manual-2023"}
            ),
            "{broken",
            json.dumps({"text": "undated", "source": "x"}),
        ],
    )
    db = str(tmp_path / "pool.db")
    r = runner.invoke(cli, ["pool", "--pool", db, "add", str(data), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["added"] == 2
    assert "line 3: error: malformed JSON" in r.stderr and "line 4: error" in r.stderr
    r = runner.invoke(
        cli, ["pool", "--pool", db, "add", str(data), "--default-time", "2020-01-01", "--strict"]
    )
    assert r.exit_code == 2 and "line 4: note: no 'time' given, used default" in r.stderr
    r = runner.invoke(cli, ["pool", "--pool", db, "config", "--half-life", "365", "--json"])
    assert json.loads(r.stdout)["half_life_days"] == 365
    r = runner.invoke(cli, ["pool", "--pool", db, "sample", "4", "--now", "2025-01-01", "--json"])
    assert r.exit_code == 0 and len(json.loads(r.stdout)) == 4
    r2 = runner.invoke(cli, ["pool", "--pool", db, "sample", "4", "--now", "2025-01-01", "--json"])
    assert r.stdout == r2.stdout
    r = runner.invoke(cli, ["pool", "--pool", db, "sample", "6", "--batch-size", "3", "--json"])
    assert len(json.loads(r.stdout)["batches"]) == 2
    out = tmp_path / "train.jsonl"
    r = runner.invoke(
        cli, ["pool", "--pool", db, "export", str(out), "--now", "2025-01-01", "--half-life", "182.625"]
    )
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3 and all(set(row) == {"messages", "weight"} for row in rows)
    r = runner.invoke(cli, ["pool", "--pool", db, "stats", "--json", "--now", "2025-01-01"])
    assert json.loads(r.stdout)["count"] == 3
    r = runner.invoke(cli, ["pool", "--pool", db, "sample", "1", "--now", "not a date"])
    assert r.exit_code == 2


def test_conflicts_scan_resolve_export(
    runner: CliRunner, tmp_path: Path, manuals: ManualDataset, manuals_file: Path
) -> None:
    r = runner.invoke(cli, ["conflicts", "scan", str(manuals_file), "--json"])
    assert r.exit_code == 0, r.output
    found = {(c["entity"], c["attribute"]) for c in json.loads(r.stdout)["conflicts"]}
    assert found == manuals.conflicts
    marked = tmp_path / "marked.jsonl"
    r = runner.invoke(cli, ["conflicts", "resolve", str(manuals_file), "-o", str(marked)])
    assert r.exit_code == 0 and f"{len(manuals.conflicts)} resolved, 0 unresolved" in r.stdout
    statuses = {json.loads(line)["status"] for line in marked.read_text(encoding="utf-8").splitlines()}
    assert "superseded" in statuses and "current" in statuses
    labels = write(
        tmp_path / "labels.json", [json.dumps({"attributes": {"max concurrency": {"zh": "最大并发数"}}})]
    )
    out = tmp_path / "updates.jsonl"
    r = runner.invoke(
        cli,
        ["conflicts", "export", str(manuals_file), "-o", str(out), "--lang", "zh", "--labels", str(labels)],
    )
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert "根据2024年最新更新" in text and "最大并发数" in text


def test_resolved_claims_into_the_pool(runner: CliRunner, tmp_path: Path, manuals_file: Path) -> None:
    marked = tmp_path / "marked.jsonl"
    assert runner.invoke(cli, ["conflicts", "resolve", str(manuals_file), "-o", str(marked)]).exit_code == 0
    db = str(tmp_path / "pool.db")
    r = runner.invoke(cli, ["pool", "--pool", db, "add", "--claims", str(marked), "--json"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["pool", "--pool", db, "stats", "--json"])
    stats = json.loads(r.stdout)
    assert stats["superseded"] > 0 and stats["policy"]["superseded_factor"] == 0.0
    r = runner.invoke(
        cli,
        ["pool", "--pool", db, "export", str(tmp_path / "t.jsonl"), "--superseded-factor", "0.1", "--json"],
    )
    assert json.loads(r.stdout)["written"] == stats["count"]
    r = runner.invoke(cli, ["pool", "--pool", db, "export", str(tmp_path / "t.jsonl"), "--json"])
    assert json.loads(r.stdout)["written"] == stats["count"] - stats["superseded"]


def test_conflicts_bad_rules_and_bad_lines(runner: CliRunner, tmp_path: Path, manuals_file: Path) -> None:
    cyc = write(tmp_path / "cyc.json", [json.dumps({"beats": [["a", "b"], ["b", "a"]]})])
    r = runner.invoke(cli, ["conflicts", "resolve", str(manuals_file), "--rules", str(cyc)])
    assert r.exit_code == 2 and "a beats b beats a" in r.stderr
    bad = write(tmp_path / "bad.jsonl", ['{"entity": "X", "attribute": "a", "value": 1}', "{oops"])
    r = runner.invoke(cli, ["conflicts", "scan", str(bad)])
    assert r.exit_code == 0 and "line 1: error: no 'date' given" in r.stderr and "line 2: error" in r.stderr
    r = runner.invoke(cli, ["conflicts", "scan", str(bad), "--strict"])
    assert r.exit_code == 2


def test_conflicts_extract(runner: CliRunner, tmp_path: Path) -> None:
    doc = tmp_path / "manual.txt"
    doc.write_text("The max concurrency of X is 15. X 的超时时间为 30 秒。", encoding="utf-8")
    out = tmp_path / "claims.jsonl"
    r = runner.invoke(
        cli,
        ["conflicts", "extract", str(doc), "--date", "2024-03-01", "--source", "manual-2024", "-o", str(out)],
    )
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(c["attribute"], c["value"]) for c in rows] == [("max concurrency", "15"), ("超时时间", "30 秒")]


def test_unlearn_generate(runner: CliRunner, tmp_path: Path) -> None:
    facts = write(
        tmp_path / "facts.jsonl",
        [json.dumps({"subject": "apple", "attribute": "colour", "wrong": "blue", "correct": "red"})],
    )
    out, ev = tmp_path / "cf.jsonl", tmp_path / "eval.jsonl"
    r = runner.invoke(
        cli, ["unlearn", "generate", str(facts), "-o", str(out), "--eval-out", str(ev), "--per-fact", "5"]
    )
    assert r.exit_code == 0, r.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5
    assert any(json.loads(line)["kind"] == "forget" for line in ev.read_text(encoding="utf-8").splitlines())


def test_partitions_commands(runner: CliRunner, tmp_path: Path) -> None:
    reg = str(tmp_path / "parts.db")
    base = ["--registry", reg]
    assert runner.invoke(cli, ["partitions", *base, "create", "--defaults"]).exit_code == 0
    items = write(
        tmp_path / "basic.jsonl",
        [
            json.dumps({"text": "Paris is the capital of France."}),
            "{bad",
            json.dumps({"text": "A week has seven days."}),
        ],
    )
    r = runner.invoke(cli, ["partitions", *base, "add", "basic", "--items", str(items)])
    assert r.exit_code == 0 and "added 2 items" in r.stdout and "line 2: error" in r.stderr
    prefs = write(
        tmp_path / "prefs.jsonl", [json.dumps({"text": "User A prefers a minimalist design style."})]
    )
    runner.invoke(cli, ["partitions", *base, "add", "user-a-preferences", "--items", str(prefs)])
    r = runner.invoke(
        cli, ["partitions", *base, "route", "Which design style do I prefer?", "--recall", "2", "--json"]
    )
    data = json.loads(r.stdout)
    assert data["partitions"][0] == "user-a-preferences" and data["hits"][0]["text"].startswith(
        "User A prefers"
    )
    before = runner.invoke(
        cli, ["partitions", *base, "route", "capital of France", "--recall", "3", "--json"]
    ).stdout
    new = write(tmp_path / "dyn.jsonl", [json.dumps({"text": "In 2025 the max concurrency of Orion is 20."})])
    r = runner.invoke(cli, ["partitions", *base, "replace", "dynamic-2024", "--items", str(new)])
    assert r.exit_code == 0 and "version 2, 1 items" in r.stdout
    assert (
        runner.invoke(
            cli, ["partitions", *base, "route", "capital of France", "--recall", "3", "--json"]
        ).stdout
        == before
    )
    assert "version 2" in runner.invoke(cli, ["partitions", *base, "rebuild", "basic"]).stdout
    assert runner.invoke(cli, ["partitions", *base, "drop", "dynamic-2024", "--yes"]).exit_code == 0
    r = runner.invoke(cli, ["partitions", *base, "list", "--json"])
    assert [p["name"] for p in json.loads(r.stdout)] == ["basic", "user-a-preferences"]
    r = runner.invoke(cli, ["partitions", *base, "audit", "--json"])
    audit = json.loads(r.stdout)
    assert audit["verified"] and [x["action"] for x in audit["records"]][-3:] == [
        "replace",
        "rebuild",
        "drop",
    ]
    r = runner.invoke(cli, ["partitions", *base, "drop", "nope", "--yes"])
    assert r.exit_code == 1 and "no partition named 'nope'" in r.stderr
    r = runner.invoke(cli, ["partitions", *base, "create", "x"])
    assert r.exit_code == 2


def test_partitions_on_the_engine(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMNANT_DB", str(tmp_path / "remnant.db"))
    base = ["--registry", str(tmp_path / "parts.db"), "--engine"]
    items = write(tmp_path / "basic.jsonl", [json.dumps({"text": "Paris is the capital of France."})])
    r = runner.invoke(
        cli, ["partitions", *base, "create", "basic", "-d", "basic knowledge", "--items", str(items)]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["partitions", *base, "route", "capital of France", "--recall", "1", "--json"])
    assert json.loads(r.stdout)["hits"][0]["text"] == "Paris is the capital of France."


def test_bench_pool_writes_plot_and_figures(runner: CliRunner, tmp_path: Path) -> None:
    png = tmp_path / "plot.png"
    r = runner.invoke(
        cli, ["bench", "pool", "--pool-size", "1000", "--draws", "5000", "--plot", str(png), "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["relative_error"] < 0.1 and data["ks"] < 0.05
    assert png.stat().st_size > 1000


def test_bench_partitions_hashing(runner: CliRunner) -> None:
    r = runner.invoke(cli, ["bench", "partitions", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    content = data["rules+description+content"]
    assert (
        content["isolation_after_replace"].split("/")[0]
        == content["isolation_after_replace"].split("/")[1].split()[0]
    )
    assert content["audit_chain_ok"] is True
    assert content["top1_accuracy"] >= data["rules+description"]["top1_accuracy"]


def test_unlearn_eval_scores_an_importable_callable(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "stub_models.py").write_text(
        "def before(prompt):\n    return 'It is blue.' if 'apple' in prompt else 'Paris 12 blue 7 cold Earth honey ice'\n"
        "def after(prompt):\n    return 'It is red.' if 'apple' in prompt else 'no idea'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    facts = write(
        tmp_path / "f.jsonl",
        [json.dumps({"subject": "apple", "attribute": "colour", "wrong": "blue", "correct": "red"})],
    )
    ev = tmp_path / "eval.jsonl"
    runner.invoke(
        cli, ["unlearn", "generate", str(facts), "-o", str(tmp_path / "cf.jsonl"), "--eval-out", str(ev)]
    )
    r = runner.invoke(cli, ["unlearn", "eval", str(ev), "--generate", "stub_models:before", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["forget_rate"] == 0.0 and json.loads(r.stdout)["retention_rate"] == 1.0
    r = runner.invoke(
        cli,
        [
            "unlearn",
            "eval",
            str(ev),
            "--generate",
            "stub_models:before",
            "--after",
            "stub_models:after",
            "--json",
        ],
    )
    data = json.loads(r.stdout)
    assert data["forget_rate_after"] == 1.0 and data["collateral_damage"] == 1.0
    r = runner.invoke(cli, ["unlearn", "eval", str(ev), "--generate", "stub_models:missing"])
    assert r.exit_code == 2 and "cannot load" in r.stderr
