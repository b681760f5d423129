"""Expert iteration for the `student` policy: the teacher's data, the fit, the loop (docs/learned.md).

``teacher``: the policy-improvement step around a base plays both seats on
fresh deals and writes, per decision, the seat's features, every candidate's
features, its paired gain over the base's move and that gain's standard
error, and the move played (Parquet shards, reproducible from a seed).
``fit``: the student's weights from those shards (numpy).  ``loop``:
generation after generation, each gated against the previous one on
duplicate deals (``lostcards iterate``).
"""
