"""The ``remnant`` command line. It mirrors the Python API: one command per :class:`~remnant.Memory` method."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint

import click

from remnant.cli.core import LazyGroup, cli

# Commands of the other product layers live in their own modules, imported only when one of their
# commands runs (or the help lists them): command name -> "module:attribute".
_LAYERS = {
    "privacy": "remnant.cli.privacy:privacy",
    "chat": "remnant.cli.assistant:chat",
    "kb": "remnant.cli.assistant:kb",
    "pool": "remnant.cli.training:pool",
    "conflicts": "remnant.cli.training:conflicts",
    "partitions": "remnant.cli.training:partitions",
    "unlearn": "remnant.cli.training:unlearn",
    "serve": "remnant.cli.serve:serve",
    "keys": "remnant.cli.serve:keys",
    "openapi": "remnant.cli.serve:openapi",
    "export": "remnant.cli.transfer:export_cmd",
    "import": "remnant.cli.transfer:import_cmd",
    "migrate": "remnant.cli.transfer:migrate",
    "config": "remnant.cli.settings:config_cmd",
}

# Plug-ins (the ``bench`` and ``eval`` commands, third-party commands) are found through this
# entry-point group: each entry point names a ``register(cli)`` function.
PLUGIN_GROUP = "remnant.plugins"

# Fallback for an install whose entry-point metadata predates the group (an editable install made
# before pyproject.toml declared it): these ``module:function`` names, written as strings so the
# product CLI has no import of them, are loaded when no entry point already did. The one place.
_BUILTIN_PLUGINS = ("remnant.bench.cli:register",)


def _register() -> None:
    assert isinstance(cli, LazyGroup)
    for name, target in _LAYERS.items():
        cli.add_lazy(name, target)

    def plugins() -> None:
        load_plugins(cli)

    # plug-ins load on the first command the group does not know (bench, eval) or for the help
    cli.plugin_loader = plugins


def _load(value: str) -> Callable[[click.Group], None] | None:
    """``module:function`` → the function; ``None`` when the module is not part of this build."""
    module_name, _, attr = value.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            return None  # metadata newer than the code (or a plug-in uninstalled without its metadata)
        raise
    register: Callable[[click.Group], None] = getattr(module, attr or "register")
    return register


def load_plugins(group: click.Group, plugins: Iterable[EntryPoint] | None = None) -> list[str]:
    """Call every plug-in's ``register(group)``, each once; returns the ``module:function`` names loaded.

    ``plugins`` defaults to the installed ``remnant.plugins`` entry points; the built-in ones are
    then loaded by name if the metadata did not list them.
    """
    if plugins is None:
        from importlib.metadata import entry_points  # scanning the installed metadata costs ~50 ms

        plugins = entry_points(group=PLUGIN_GROUP)
    loaded: list[str] = []
    values = [ep.value.replace(" ", "") for ep in plugins]
    for value in [*values, *_BUILTIN_PLUGINS]:
        if value in loaded:
            continue  # the same plug-in listed twice (two dist-infos on the path, or the fallback)
        try:
            register = _load(value)
            if register is None:
                continue
            register(group)
        except Exception as exc:  # a broken third-party plug-in must not take the whole CLI down
            if value in _BUILTIN_PLUGINS:
                raise
            click.echo(f"remnant: plug-in {value} failed to load: {type(exc).__name__}: {exc}", err=True)
            continue
        loaded.append(value)
    return loaded


_register()


def main() -> None:
    """Entry point of the ``remnant`` script."""
    cli(prog_name="remnant")


if __name__ == "__main__":  # pragma: no cover
    main()
