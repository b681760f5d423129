"""The reference engine: the rules of one round in plain Python, read like the rule sheet (the oracle)."""
