"""The classic family in the environments: the observation encoding (:mod:`.encoding`), the batched engine's
bridge for the vector environment (:mod:`.batched_bridge`), the OpenSpiel game (:mod:`.openspiel`) and the
terminal's narrator (:mod:`.narrator`)."""
