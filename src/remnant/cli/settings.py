"""``remnant config``: every ``REMNANT_*`` switch, its effective value and where it came from."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from click.core import ParameterSource

from remnant.cli.core import Ctx

# the group's own options that are also switches: given on the command line, they are explicit
_GROUP_OPTIONS = {"db": "db", "tenant": "tenant", "url": "url"}


@click.command(name="config")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def config_cmd(ctx: click.Context, as_json: bool) -> None:
    """Show every REMNANT_* setting: its value in force, and whether it came from the environment,
    the command line (explicit) or the default. Secrets (the vault, audit and API keys) show as
    set / unset, never their value. Every switch is described in docs/configuration.md."""
    from remnant.core.settings import Settings

    obj: Ctx = ctx.obj
    parent = ctx.parent
    explicit: dict[str, Any] = {}
    for param, field_name in _GROUP_OPTIONS.items():
        if parent is not None and parent.get_parameter_source(param) == ParameterSource.COMMANDLINE:
            explicit[field_name] = {"db": obj.db, "tenant": obj.tenant, "url": obj.url}[param]
    rows = Settings.load(**explicit).rows()
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2, default=str))
    else:
        width = max(len(r["name"]) for r in rows)
        vwidth = min(40, max(len(r["shown"]) for r in rows))
        for r in rows:
            value = r["shown"]
            line = f"{r['name']:<{width}}  {value:<{vwidth}}  {r['source']}"
            if "problem" in r:
                line += f"  (invalid: {r['problem']})"
            click.echo(line)
    if any("problem" in r for r in rows):
        sys.exit(2)
