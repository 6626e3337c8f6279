"""The rewards of the Gymnasium environments (single game and vector), in one place.

Every reward ends with the learner's win share when the game ends (1/k for each of k winners, R-TIE, R-T-END);
the dense ones add, at each of the learner's steps, the change of a standing since its previous step:

- ``"margin_change"`` (the default): the learner's **margin**, its score as it stands minus the mean of the other
  seats', where a seat's score as it stands is its total plus what R-SCORE would add for its stack if the round
  ended now (:meth:`~cya_sim.env.games.GameInterface.running_scores`; the theft game's points, R-T-END). So
  laying a set, winning one in a challenge or losing one count at once, not at the round's end. Over a game the
  changes add up to the final margin.
- ``"total_change"``: the learner's total (R-SCORE), which changes when a round is scored; over a game the
  changes add up to its final total.
- ``"win_share"``: nothing before the end (sparse).

For the classic family the margin's changes are in units of $100,000 and the total's in $M (:data:`UNITS`); for
the theft game both are in points. With sb3-contrib's standard recipe (docs/rl.md, ``experiments/rl_recipe*.md``)
the margin reward learned to beat ``greedy`` within 20,000 steps, where the sparse win share learned nothing.
"""

from __future__ import annotations

import numpy as np

from cya_sim.game.jsontext import show

#: The rewards, the default first.
REWARDS = ("margin_change", "total_change", "win_share")
DEFAULT_REWARD = REWARDS[0]
#: Divisor of a change of a standing into the reward, by the game's score unit and the reward: the margin in units of
#: $100,000 (the view features' dollar unit, :data:`agents.classic.learned.DOLLAR_SCALE`: a set laid is a reward of about
#: 0.1 to 1), the total in $M (as it always was); points as they are.
UNITS = {"dollars": {"margin_change": 1e5, "total_change": 1e6, "win_share": 1.0},
         "points": {"margin_change": 1.0, "total_change": 1.0, "win_share": 1.0}}


def check_reward(reward: object, allowed: tuple[str, ...] = REWARDS) -> str:
    """``reward`` when it is one of ``allowed``.

    Raises:
        ValueError: anything else; the message names the field and the allowed values.
    """
    if not isinstance(reward, str) or reward not in allowed:
        raise ValueError(f"reward: {show(reward, python_str=True)}; allowed: {', '.join(allowed)}")
    return reward


def uses_running_scores(reward: str) -> bool:
    """Whether ``reward``'s standing is read from the running scores (margin) rather than the totals."""
    return reward == "margin_change"


def standing(reward: str, scores: np.ndarray, seat: int) -> np.ndarray:
    """(...,) float64: the learner's standing whose changes ``reward`` pays, from (..., P) int64 scores.

    ``scores`` are the running scores for ``margin_change`` (:func:`uses_running_scores`) and the totals for
    ``total_change``, in the game's unit (dollars or points). ``margin_change``: the seat's score minus the mean of
    the other seats' (integer sums, one division, so a single game and a row of the vector environment give the
    same float); ``total_change``: the seat's score. Zero for ``win_share``.
    """
    s = np.asarray(scores, np.int64)
    own = s[..., seat]
    if reward == "win_share":
        return np.zeros(own.shape, np.float64)
    if reward == "total_change":
        return own.astype(np.float64)
    p = s.shape[-1]
    return own - (s.sum(-1) - own) / (p - 1)


def reward_unit(kind, reward: str) -> float:
    """Divisor of a change of ``reward``'s standing into the reward, for the game ``kind``
    (a :class:`~cya_sim.env.games.GameInterface`): :data:`UNITS` by the game's ``score_unit``.

    Raises:
        KeyError: a score unit of no game here.
    """
    return UNITS[kind.score_unit][reward]
