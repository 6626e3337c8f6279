"""What the OpenSpiel states of every game family share: the game holder and a player's perfect recall."""

from __future__ import annotations

import hashlib
import pickle


class Shared:
    """Holds what every state of one game shares (the game); copying a state does not copy it (game-independent)."""

    def __init__(self, game) -> None:
        self.game = game

    def __deepcopy__(self, memo):
        return self


class Recall:
    """What one player remembers for its information state: a digest of its observations at its decisions
    with the actions it took, and those actions (immutable; a deep copy shares it).

    Attributes:
        digest: 16 bytes, BLAKE2b of the chain ``d_k = H(d_{k-1} | observation at decision k | action k)``.
        actions: the player's own action ids, in order.
        note: ``""``, or ``"resampled"`` for a recall made by :meth:`resampled`.
    """

    __slots__ = ("actions", "digest", "note")
    EMPTY: Recall

    def __init__(self, digest: bytes, actions: tuple[int, ...], note: str = "") -> None:
        self.digest, self.actions, self.note = digest, actions, note

    def __deepcopy__(self, memo) -> Recall:
        return self

    def after(self, key: tuple, action: int) -> Recall:
        """The recall once the player, observing ``key`` (:func:`view_key`), took ``action``."""
        h = hashlib.blake2b(self.digest, digest_size=16)
        h.update(pickle.dumps(key, protocol=4))  # ints, bools, strs, None and tuples: the same bytes everywhere
        h.update(b"|%d" % action)
        return Recall(h.digest(), (*self.actions, action), self.note)

    def resampled(self, seat: int) -> Recall:
        """Seat ``seat``'s recall in a state resampled from this player's information state: a digest of
        this recall and ``seat`` only, no actions (the real ones may reveal hidden cards)."""
        h = hashlib.blake2b(self.digest, digest_size=16)
        h.update(b"resampled for seat %d" % seat)
        return Recall(h.digest(), (), "resampled")


Recall.EMPTY = Recall(bytes(16), ())
