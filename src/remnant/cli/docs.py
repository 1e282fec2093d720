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


if __name__ == "__main__":  # pragma: no cover
    print(render())
