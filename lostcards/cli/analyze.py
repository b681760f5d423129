"""`lostcards analyze`: expected points lost by each move of one seat in a round record (lostcards.analysis.analyze)."""
from __future__ import annotations

import json

import click

from lostcards.cli.common import SEED, SEED_HELP, Count


@click.command("analyze")
@click.argument("record", type=click.Path(allow_dash=True))
@click.option("--seat", type=int, default=0, show_default=True, help="The seat whose moves are analysed.")
@click.option("--round", "index", type=Count(1), default=1, show_default=True,
              help="Which record of a JSON Lines file of many records (1 = the first).")
@click.option("--samples", type=Count(2, 20_000, "determinizations a turn"), default=64, show_default=True,
              help="Determinizations of the hidden cards a turn (each move is played out on every one).")
@click.option("--evaluator", default="expert", show_default=True,
              help="The policy that plays every seat in the play-outs (a numba policy spec).")
@click.option("--search", "search", default=None, metavar="SPEC",
              help="Also show this policy's own choice each turn, e.g. 'search' or 'search:iterations=1000'.")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as one JSON object instead of a table.")
@click.option("--figure", "figure_path", type=click.Path(dir_okay=False), default=None,
              help="Write a figure of the expected margin turn by turn to this file (.png, .pdf, .svg, ...; "
                   "checked before the analysis).")
def analyze(record, seat, index, samples, evaluator, search, seed, as_json, figure_path):
    """Expected points lost by each move of one seat in a round record, against the best move from its information set.

    RECORD: one SPEC §5 JSON record, or JSON Lines ('-' reads stdin).  Each
    legal move is played out by the evaluator on the same determinizations of
    the hidden cards; docs/analyze.md has the method.
    """
    from lostcards.analysis.analyze import FIGURE_FORMATS, analyze_round, figure, pick_record, table
    from lostcards.run.outfile import check_file, write_file
    for option, value in (("--figure", figure_path), ("--search", search)):
        if value is not None and not value.strip():
            raise click.ClickException(f"{option} '' is not allowed: "
                                       + ("a file name" if option == "--figure" else "a policy spec, e.g. search"))
    if figure_path:                                   # refused before the analysis, not after
        check_file(figure_path, "--figure", FIGURE_FORMATS, ours=ours)
    try:
        with click.open_file(record, "rb") as f:      # "-" is stdin
            data = f.read()
    except OSError as e:
        raise click.ClickException(f"cannot read {record}: {e.strerror or e}") from None
    rec = pick_record(data, index)
    res = analyze_round(rec, seat=seat, samples=samples, seed=seed, evaluator=evaluator, search=search)
    click.echo(json.dumps(res.as_dict()) if as_json else table(res))    # shown even if the figure then fails
    if figure_path:
        write_file(figure_path, "--figure", lambda tmp: figure(res, tmp, **mark(tmp)))


MARK = "lostcards analyze"      # written into every figure's metadata: a file that holds it is one of ours


def mark(path) -> dict:
    """savefig's options that write MARK into a figure of `path`'s format."""
    from pathlib import Path
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt == "png":
        return {"metadata": {"Software": MARK}}
    if fmt in ("pdf", "svg", "svgz", "eps", "ps"):
        return {"metadata": {"Creator": MARK}}
    if fmt in ("jpg", "jpeg"):
        return {"pil_kwargs": {"comment": MARK.encode()}}
    if fmt in ("tif", "tiff"):
        return {"pil_kwargs": {"description": MARK}}
    if fmt == "webp":
        return {"pil_kwargs": {"xmp": f"<x:xmpmeta xmlns:x='adobe:ns:meta/'>{MARK}</x:xmpmeta>".encode()}}
    return {}


def ours(path) -> bool:
    """Whether the file at `path` is a figure `lostcards analyze` wrote (it carries MARK)."""
    import gzip
    try:
        data = path.read_bytes()
        if path.suffix.lower() == ".svgz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return False
    return MARK.encode() in data
