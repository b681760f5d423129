"""Round records (SPEC §5): reading, validating and writing them, and replaying them on the reference engine."""
