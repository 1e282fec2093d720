"""One settings object: every ``REMNANT_*`` switch is declared in ``remnant.core.settings`` (typed,
with a default and a meaning), documented in the one table of docs/configuration.md, read nowhere
else, and shown by ``remnant config`` with its source (secrets only as set / unset)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from remnant.core.errors import ValidationError
from remnant.core.settings import SWITCHES, Settings, docs_table, read

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "remnant"
SETTINGS_MODULE = SRC / "core" / "settings.py"
NOT_SWITCHES = {"REMNANT_DATA"}  # the LLM prompt's data-block marker, not a variable


def test_the_docs_table_lists_exactly_the_switches() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `(REMNANT_[A-Z0-9_]+)` \|", text, re.M)
    assert documented == [s.name for s in SWITCHES]
    assert docs_table() in text, (
        "regenerate the table: python -c 'from remnant.core.settings import docs_table; print(docs_table())'"
    )
    assert "configuration.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "configuration.md" in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def test_every_remnant_variable_named_in_the_code_is_a_declared_switch() -> None:
    declared = {s.name for s in SWITCHES}
    named: dict[str, str] = {}
    for path in SRC.rglob("*.py"):
        for name in re.findall(r"(?<![A-Z_])REMNANT_[A-Z][A-Z0-9_]*", path.read_text(encoding="utf-8")):
            named.setdefault(name, str(path.relative_to(ROOT)))
    unknown = {n: where for n, where in named.items() if n not in declared | NOT_SWITCHES}
    assert not unknown, f"undeclared switches (add them to remnant.core.settings.SWITCHES): {unknown}"


# a read of the environment by a REMNANT_ name, or by a constant holding one (KEY_ENV, …)
READS = re.compile(r"""(?:os\.getenv\(|environ\.get\(|environ\[)\s*(?:["']REMNANT_|[A-Z_]*_ENV\b)""")


def test_no_module_but_the_settings_reads_the_environment_for_a_switch() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if path == SETTINGS_MODULE:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in READS.finditer(line):
                rest = line[m.end() :]
                if re.match(r"""[A-Z0-9_]*["']?\]\s*=[^=]""", rest):
                    continue  # setting a variable (the benchmark picks the embedder) is not reading one
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "read it through remnant.core.settings.read():\n" + "\n".join(offenders)


def test_settings_are_typed_with_their_source() -> None:
    env = {"REMNANT_EMBED_THREADS": "4", "REMNANT_RECALL_THRESHOLD": "0.6", "REMNANT_PRIVACY": " off "}
    s = Settings.load(env, db="x.db")
    assert s.embed_threads == 4 and s.recall_threshold == 0.6 and s.privacy == "off"
    assert s.db == "x.db" and s.source("db") == "explicit"
    assert s.source("embed_threads") == "environment" and s.source("dedup") == "default"
    assert s.dedup == "on" and s.llm_threads == 1 and s.tenant == "default"
    assert (
        read("REMNANT_EMBED_THREADS", {}) == 2
        and read("REMNANT_EMBED_THREADS", {"REMNANT_EMBED_THREADS": ""}) == 2
    )
    with pytest.raises(ValidationError, match="REMNANT_EMBED_THREADS must be a whole number"):
        read("REMNANT_EMBED_THREADS", {"REMNANT_EMBED_THREADS": "many"})
    bad = Settings.load({"REMNANT_EMBED_THREADS": "many"})
    assert bad.embed_threads == 2 and "embed_threads" in bad.problems  # one bad switch, the rest still shown
    with pytest.raises(KeyError):
        read("REMNANT_NOPE")


def test_remnant_config_shows_values_and_sources_and_never_a_secret(tmp_path: Path) -> None:
    from remnant.cli import cli

    env = {
        "REMNANT_VAULT_KEY": "s3cret-vault",
        "REMNANT_AUDIT_KEY": "s3cret-audit",
        "REMNANT_API_KEY": "s3cret-api",
        "REMNANT_EMBEDDER": "static",
        "REMNANT_DB": None,
        "REMNANT_DB_URL": None,
        "REMNANT_URL": None,
    }
    db = str(tmp_path / "x.db")
    res = CliRunner().invoke(cli, ["--db", db, "config", "--json"], env=env)
    assert res.exit_code == 0, res.output
    assert "s3cret" not in res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    assert list(rows) == [s.name for s in SWITCHES]
    assert (
        rows["REMNANT_VAULT_KEY"]["value"] == "set" and rows["REMNANT_AUDIT_KEY"]["source"] == "environment"
    )
    assert rows["REMNANT_API_KEY"]["value"] == "set"
    assert rows["REMNANT_EMBEDDER"] == {
        **rows["REMNANT_EMBEDDER"],
        "value": "static",
        "source": "environment",
    }
    assert rows["REMNANT_DB"]["value"] == db and rows["REMNANT_DB"]["source"] == "explicit"
    assert rows["REMNANT_URL"]["source"] == "default" and rows["REMNANT_URL"]["value"] is None
    text = CliRunner().invoke(cli, ["config"], env=env)
    assert text.exit_code == 0 and "s3cret" not in text.output
    line = next(ln for ln in text.output.splitlines() if ln.startswith("REMNANT_VAULT_KEY "))
    assert line.split() == ["REMNANT_VAULT_KEY", "set", "environment"]
    assert not (tmp_path / "x.db").exists()  # showing the settings opens nothing
    bad = CliRunner().invoke(cli, ["config"], env={**env, "REMNANT_LLM_THREADS": "lots"})
    assert bad.exit_code == 2 and "invalid" in bad.output
