"""`lostcards replay`: check round records turn by turn (``lostcards.records.replay``)."""
from __future__ import annotations

import json

import click

from lostcards.errors import MalformedRecord
from lostcards.records.format import split_records
from lostcards.records.replay import EXIT_MALFORMED, EXIT_OK, check_record, describe, exit_status


@click.command("replay")
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON verdict per record, one a line.")
def replay(files, as_json):
    """Check round records turn by turn (FILE: one JSON record, or JSON Lines; '-' reads stdin).

    Exit status: 0 all legal, 1 an illegal turn, 2 a malformed record or unreadable file.
    """
    status = EXIT_OK
    for path in files:
        try:
            with click.open_file(path, "rb") as f:      # "-" is stdin
                data = f.read()
        except OSError as e:                      # missing, a directory, no permission, ...
            reason = e.strerror or str(e)
            msg = f"cannot read {path}: {reason}"
            if as_json:
                click.echo(json.dumps({"ok": False, "turn": None, "error": msg}))
            else:
                click.echo(f"{path}: {msg}")
            status = max(status, EXIT_MALFORMED)
            continue
        items = split_records(data)
        many = len(items) > 1
        for i, item in enumerate(items, start=1):
            if isinstance(item, MalformedRecord):
                verdict, rnd = {"ok": False, "turn": None, "error": str(item)}, None
            else:
                verdict, rnd, _ = check_record(item)
            status = max(status, exit_status(verdict))
            if as_json:
                click.echo(json.dumps(verdict))
            else:
                click.echo(describe(verdict, rnd, f"{path} record {i}" if many else path))
    click.get_current_context().exit(status)
