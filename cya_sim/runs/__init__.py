"""The runs floor: experiments (TOML), designs, the chunked resumable runner, the compile warm-up. It plays and stores (:mod:`cya_sim.results.folder`); it never reads reports."""
