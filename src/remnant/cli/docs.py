"""Generate ``docs/cli.md`` from the commands' own ``--help`` and ``docs/api.md`` from the public
API's docstrings and signatures (so neither can drift from the code)."""

from __future__ import annotations

import inspect
import sys
from typing import Any

import click


def _walk(command: click.Command, path: list[str]) -> list[tuple[list[str], click.Command]]:
    out = [(path, command)]
    if isinstance(command, click.Group):
        for name in sorted(command.list_commands(click.Context(command))):
            sub = command.get_command(click.Context(command), name)
            if sub is not None and not sub.hidden:
                out.extend(_walk(sub, [*path, name]))
    return out


def render() -> str:
    """The whole CLI reference as Markdown."""
    from remnant.cli import cli

    parts = [
        "# CLI reference",
        "",
        "Generated from `--help` by `scripts/gen-cli-docs`; do not edit by hand.",
        "",
        "The environment variables every command reads (`REMNANT_DB`, `REMNANT_URL`, the keys …) are "
        "in one table in [configuration.md](configuration.md); `remnant config` shows what is in force.",
        "",
    ]
    root = cli.make_context("remnant", [], resilient_parsing=True)
    for path, command in _walk(cli, ["remnant"]):
        # real contexts, so each command gets the group's context settings (-h, --help, width)
        ctx = root
        node: click.Command = cli
        for piece in path[1:]:
            assert isinstance(node, click.Group)
            node = node.get_command(ctx, piece)  # type: ignore[assignment]
            ctx = node.make_context(piece, [], parent=ctx, resilient_parsing=True)
        parts += [f"## {' '.join(path)}", "", "```", command.get_help(ctx).rstrip(), "```", ""]
    return "\n".join(parts)


# The modules whose public names the API reference documents, in reading order.
API_MODULES = (
    ("remnant", "The package: what ``from remnant import …`` gives"),
    ("remnant.engine", "The engine: the facade, its write seam and the policies' types"),
    ("remnant.engine.forgetting", "The forgetting policies"),
    ("remnant.config", "Configuration: opening the product as the CLI and the server do"),
    ("remnant.retrieval", "Retrieval"),
    ("remnant.store", "Stores"),
)


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__ or "").strip()


def _signature(obj: Any) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return ""


def _members(cls: type) -> list[tuple[str, Any]]:
    out = []
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if isinstance(member, property) or inspect.isfunction(member):
            out.append((name, member))
    return out


def render_api() -> str:
    """The Python API reference as Markdown."""
    import importlib

    parts = [
        "# Python API reference",
        "",
        "Generated from the docstrings and signatures by `scripts/gen-cli-docs`; do not edit by hand.",
        "Every name here is importable from the module it is listed under; anything else is internal.",
        "",
    ]
    seen: set[int] = set()
    for module_name, title in API_MODULES:
        module = importlib.import_module(module_name)
        parts += [f"## `{module_name}` — {title}", ""]
        doc = _doc(module)
        if doc:
            parts += [doc, ""]
        for name in sorted(getattr(module, "__all__", [])):
            obj = getattr(module, name)
            if id(obj) in seen and module_name != "remnant":
                parts += [f"- `{name}`: see above", ""]
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                seen.add(id(obj))
            kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "value"
            if kind == "value":
                parts += [f"### `{name}`", "", f"`{obj!r}`", ""]
                continue
            sig = _signature(obj) if kind == "function" else ""
            parts += [f"### {kind} `{name}{sig}`", ""]
            if _doc(obj):
                parts += [_doc(obj), ""]
            if kind == "class":
                for member_name, member in _members(obj):
                    text = _doc(member).replace("\n", "\n  ")  # continuation lines stay in the item
                    if isinstance(member, property):
                        parts += [f"- **`{member_name}`** (property) {text}".rstrip()]
                    else:
                        head = f"- **`{member_name}{_signature(member)}`**"
                        parts += [f"{head} — {text}" if text else head]
                parts.append("")
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(render_api() if sys.argv[1:] == ["api"] else render())
