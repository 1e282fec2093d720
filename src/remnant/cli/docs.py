"""Generate ``docs/cli.md`` from the commands' own ``--help`` (so the docs cannot drift from the code)."""

from __future__ import annotations

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
    ]
    for path, command in _walk(cli, ["remnant"]):
        name = " ".join(path)
        parent = click.Context(cli, info_name="remnant")
        ctx = parent
        for piece in path[1:]:
            ctx = click.Context(command, info_name=piece, parent=ctx)
        ctx.info_name = path[-1]
        help_text = command.get_help(ctx) if len(path) > 1 else cli.get_help(parent)
        parts += [f"## {name}", "", "```", help_text.rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":  # pragma: no cover
    print(render())
