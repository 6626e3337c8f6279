"""The theft game in the environments (RULES.md §9): the observation encoding (:mod:`.encoding`), the compiled
theft engine's bridge for the vector environment (:mod:`.batched_bridge`), the OpenSpiel game
(:mod:`.openspiel`) and the terminal's narrator (:mod:`.narrator`)."""
