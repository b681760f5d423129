"""``tips.md``: the rule sheet's strategy tips rewritten with what was measured, a sentence at a time.

Each experiment's ``tips(result)`` gives its sentences, in the tips' own short
style: the corrected tip first (prose its deciding row's verdict chose,
``words.by_verdict``), then the evidence, numbers written by ``claims.words``
from its rows; every sentence holds words written from a row and links to its
evidence in ``claims.md``.
"""
from __future__ import annotations


def tips_markdown(run) -> str:
    L = ["# Strategy tips, as measured\n",
         "The strategy tips of the Expeditions rule sheet, rewritten with what `lostcards claims` measured "
         f"(`{run.command}`). Each tip comes corrected first, in words its deciding rows' verdicts chose, then "
         "the evidence; every sentence links to its evidence in `claims.md`, and every number is a row of "
         "`claims.csv`. \"Not worth a point of win rate\": smaller than the points a round worth one "
         "percentage point of win rate in that table (`claims.md`, How to read the verdicts). \"A strong "
         "bot\" is `expert` in a paired comparison (only it has the switches), "
         "`expert` or `improve` (stronger than expert) elsewhere, never `search` (weaker); ranges are the "
         "middle 80% (10th to 90th percentile).\n"]
    for res in run.results.values():
        link = f"[→](claims.md#{res.claim.id})"
        sentences = [s.strip() for s in res.tips if s.strip()]
        if not sentences:
            continue
        L.append(f"- **{res.claim.title}.** " + " ".join(f"{s} {link}" for s in sentences))
    L.append("")
    return "\n".join(L)
