"""Running batches: the runner, tidy tables, shards, backends, the batch directory, loading, summaries."""
