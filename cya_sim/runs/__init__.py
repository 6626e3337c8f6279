"""The runs floor: experiments (TOML), designs, the chunked resumable runner, tournaments, benchmarks."""
