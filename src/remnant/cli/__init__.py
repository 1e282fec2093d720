"""The ``remnant`` command line. It mirrors the Python API: one command per :class:`~remnant.Memory` method."""

from __future__ import annotations

import importlib

import click

from remnant.cli.core import cli

# Commands of the other layers live in their own modules; each registers itself when present.
_PLUGINS = (
    ("remnant.cli.bench_engine", ("bench_engine", "bench")),
    ("remnant.cli.privacy", ("privacy", "cli"), ("bench_privacy", "bench")),
    ("remnant.cli.bench_locomo", ("bench_locomo", "bench")),
    ("remnant.cli.forgetting", ("bench_forgetting", "bench")),
    ("remnant.cli.assistant", ("chat", "cli"), ("kb", "cli"), ("bench_assistant", "bench")),
    (
        "remnant.cli.training",
        ("pool", "cli"),
        ("conflicts", "cli"),
        ("partitions", "cli"),
        ("unlearn", "cli"),
        ("bench_pool", "bench"),
        ("bench_partitions", "bench"),
    ),
    ("remnant.cli.serve", ("serve", "cli"), ("keys", "cli"), ("bench_serve", "bench")),
    ("remnant.cli.eval", ("eval_cmd", "cli")),
    ("remnant.cli.transfer", ("export_cmd", "cli"), ("import_cmd", "cli"), ("migrate", "cli")),
)


def _register() -> None:
    from remnant.cli.core import bench

    groups: dict[str, click.Group] = {"cli": cli, "bench": bench}
    for module_name, *entries in _PLUGINS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("remnant.cli"):
                continue  # that layer is not part of this build
            raise
        for attr, group in entries:
            command = getattr(module, attr, None)
            if isinstance(command, click.Command):
                groups[group].add_command(command)


_register()


def main() -> None:
    """Entry point of the ``remnant`` script."""
    cli(prog_name="remnant")


if __name__ == "__main__":  # pragma: no cover
    main()
