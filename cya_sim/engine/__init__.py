"""Game engines: the readable reference engine and the batched engine."""
