"""What the OpenSpiel states of every game family share: the game holder, a player's perfect recall, the
chance distributions and the checked ``apply_action``."""

from __future__ import annotations

import hashlib
import pickle

import numpy as np

from cya_sim.game.jsontext import show


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


def chance_distribution(first_pending: bool, n_players: int, left) -> list[tuple[int, float]]:
    """OpenSpiel's ``chance_outcomes()`` of both games: while the first seat is drawn, every seat uniformly; then
    each card type with copies ``left`` ((T,) ints), with probability copies left / cards left."""
    if first_pending:
        return [(s, 1.0 / n_players) for s in range(n_players)]
    n = int(left.sum())
    return [(int(t), float(c) / n) for t, c in enumerate(left) if c > 0]


class CheckedApply:
    """A mixin for a ``pyspiel.State``: ``apply_action`` refuses a non-integer or out-of-range action in one line
    before OpenSpiel sees it (OpenSpiel's -1 is its invalid action)."""

    def apply_action(self, action: int) -> None:
        """Apply a player's action or a chance outcome, checked first.

        Raises:
            ValueError: ``action`` is not an integer (a Python or NumPy integer, not a bool), is negative or
                beyond int64; at a chance node, an outcome not in ``chance_outcomes()``; at a player node, an
                action not legal (the game's IllegalActionError). The state does not change.
        """
        if (isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer)
                or not 0 <= action < 2**63):
            raise ValueError(f"action {show(action, python_str=True)} ({type(action).__name__}); allowed: "
                             + ("a chance outcome of chance_outcomes()" if self.is_chance_node()
                                else "an id of legal_actions()"))
        super().apply_action(int(action))
