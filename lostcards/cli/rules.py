"""`lostcards rules`: the presets and every rule parameter."""
from __future__ import annotations

import click

from lostcards.rules.ruleset import PARAMETERS, PRESETS


@click.command("rules")
def rules():
    """List the presets and every rule parameter."""
    names = list(PRESETS)
    click.echo(f"{'parameter':<14}" + "".join(f"{n:>14}" for n in names) + "  meaning")
    for p, param in PARAMETERS.items():
        vals = []
        for n in names:
            v = getattr(PRESETS[n], p)
            v = ",".join(map(str, v)) if isinstance(v, tuple) else (str(v).lower() if isinstance(v, bool) else v)
            if p == "numbers" and isinstance(v, str):
                v = "2..10" if v == "2,3,4,5,6,7,8,9,10" else v
            vals.append(f"{v:>14}")
        click.echo(f"{p:<14}" + "".join(vals) + f"  {param.meaning}")
    click.echo("\nOverride with --set PARAM=VALUE (lists as 2,3,4 or 2..8); e.g. --set hand_size=8.")
