"""The benchmarks reach the CLI as a plug-in: through the ``remnant.plugins`` entry points, or by
name when the installed metadata predates them; the product CLI never imports them."""

from __future__ import annotations

import ast
import tomllib
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import click
import pytest

from remnant.cli import PLUGIN_GROUP, cli, load_plugins

ROOT = Path(__file__).resolve().parents[2]
BENCH = "remnant.bench.cli:register"
BENCH_COMMANDS = {
    "assistant",
    "engine",
    "extraction",
    "forgetting",
    "ingest",
    "locomo",
    "partitions",
    "peers",
    "round-trips",
    "pool",
    "privacy",
    "serve",
}


def _group() -> click.Group:
    return click.Group("remnant")


def _entry(value: str, name: str = "x") -> EntryPoint:
    return EntryPoint(name=name, value=value, group=PLUGIN_GROUP)


def test_pyproject_declares_the_bench_plugin() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"][PLUGIN_GROUP] == {"bench": BENCH}


def test_installed_metadata_finds_the_bench_plugin() -> None:
    """True after ``pip install -e .`` (scripts/bootstrap); an older install falls back by name."""
    values = {ep.value for ep in entry_points(group=PLUGIN_GROUP)}
    if not values:
        pytest.skip("the installed metadata predates the remnant.plugins entry points")
    assert BENCH in values


def test_the_cli_has_every_bench_command_and_eval() -> None:
    ctx = click.Context(cli)
    bench = cli.get_command(ctx, "bench")  # plug-ins load on the first command the CLI does not know
    assert isinstance(bench, click.Group)
    assert set(bench.commands) == BENCH_COMMANDS
    assert "eval" in cli.list_commands(ctx)


def test_stale_metadata_still_gets_the_commands_by_name() -> None:
    group = _group()
    assert load_plugins(group, plugins=[]) == [BENCH]
    assert {"bench", "eval"} <= set(group.commands)


def test_an_entry_point_is_loaded_once_even_if_listed_twice() -> None:
    calls: list[click.Group] = []
    group = _group()
    import remnant.bench.cli as bench_cli

    original = bench_cli.register
    try:
        bench_cli.register = lambda g: calls.append(g)  # type: ignore[assignment]
        loaded = load_plugins(group, plugins=[_entry(BENCH, "bench"), _entry(BENCH, "bench")])
    finally:
        bench_cli.register = original  # type: ignore[assignment]
    assert loaded == [BENCH] and calls == [group]


def test_a_third_party_plugin_adds_its_command_and_a_broken_one_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "remnant_hello.py").write_text(
        "import click\n\n"
        "@click.command()\n"
        "def hello():\n"
        "    click.echo('hi')\n\n"
        "def register(cli):\n"
        "    cli.add_command(hello)\n\n"
        "def broken(cli):\n"
        "    raise RuntimeError('boom')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    group = _group()
    loaded = load_plugins(
        group,
        plugins=[
            _entry("remnant_hello:register"),
            _entry("remnant_hello:broken"),
            _entry("remnant_gone.cli:register"),  # uninstalled: its metadata outlived it
        ],
    )
    assert loaded == ["remnant_hello:register", BENCH]
    assert {"hello", "bench", "eval"} <= set(group.commands)
    assert "remnant_hello:broken failed to load: RuntimeError: boom" in capsys.readouterr().err


@pytest.mark.slow
def test_no_product_module_imports_the_benchmarks() -> None:
    """The layering: only remnant/bench/ imports remnant.bench (the fallback is a name string)."""
    src = ROOT / "src" / "remnant"
    offenders = []
    for path in src.rglob("*.py"):
        if path.is_relative_to(src / "bench"):
            continue
        text = path.read_text(encoding="utf-8")
        if "bench" not in text:
            continue  # an import of remnant.bench names it: a file that never says "bench" has none
        for node in ast.walk(ast.parse(text)):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(src)}: {n}"
                for n in names
                if n == "remnant.bench" or n.startswith("remnant.bench.")
            ]
    assert offenders == []
