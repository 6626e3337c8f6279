"""The theft game's play (RULES.md §9): one game or a batch on the reference engine (:mod:`.reference`) and batches
on the compiled theft engine (:mod:`.batched`, with the compiled play loop :mod:`.loop`)."""
