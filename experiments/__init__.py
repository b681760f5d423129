"""The strategy tips of the rule sheet, one experiment each: a ``Claim`` and its ``measure(ctx)``.

``lostcards claims`` runs them; installed as ``lostcards.experiments``.
"""
