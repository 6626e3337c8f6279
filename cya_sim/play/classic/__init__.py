"""The classic family's play: batches with agents on the reference engine (:mod:`.reference`) and on the batched
engine (:mod:`.batched`, with the compiled play loop :mod:`.loop`)."""
