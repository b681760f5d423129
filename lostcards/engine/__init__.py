"""The numba engine: the twin of the reference engine, fast (random streams, state, moves, the batch loops)."""
