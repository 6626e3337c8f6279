"""Training a learned agent on the batched engine: view-feature observations, a dense reward, a Stable-Baselines3 VecEnv.

:class:`ViewFeatureVectorEnv` is the batched vector environment of :mod:`cya_sim.env.vector` (B games of one
learning seat against compiled opponents, the opponents played inside the compiled loop) with two changes:

* **observations** are :func:`agents.classic.learned.features` of the learner's agent view (:func:`batch_features`:
  the view fields it reads, built from the batch observation as :func:`agents.classic.view.build_view` builds them) —
  the very function the exported policy runs inside the compiled loop, so a network trained here plays the
  same inputs as a plug-in (:func:`agents.classic.learned.write_plugin`);
* **reward** ``"dense"``: at every learner step, the change in the learner's running total (R-SCORE) since its
  previous step, in millions of dollars times ``dense_weight``, plus the final win share (R-TIE) when the
  game ends; ``"win_share"``: the final win share only (as the vector environment).

:func:`make_sb3_vec_env` wraps it as a ``stable_baselines3`` ``VecEnv`` (``reset() -> obs``, ``step_async`` /
``step_wait -> obs, rewards, dones, infos``) with ``env_method("action_masks")`` for sb3-contrib's
``MaskablePPO``. Stable-Baselines3 is imported only there (the ``train`` extra).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    from gymnasium import spaces
    from gymnasium.error import ResetNeeded
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None
from numba import njit

from agents.classic.learned import features, n_features
from agents.classic.view import (
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_LEN,
    H_CH_POT_VALUE,
    H_DRAW,
    H_NA,
    H_NW,
    H_P,
    H_ROUND,
    H_SEAT,
    H_TOP_DISCARD,
    N_HDR,
    N_SEATCOL,
    S_HAND_SIZE,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
)
from cya_sim.env.classic import batched_bridge as bridge
from cya_sim.env.classic.interface import ClassicGame
from cya_sim.env.game import keyword_checked, resolve_rules
from cya_sim.env.games import game_interface
from cya_sim.env.vector import CoverYourAssetsVectorEnv
from cya_sim.game.jsontext import show

REWARDS = ("dense", "win_share")


@njit(cache=True)
def _batch_features(seat, phase, hand, unseen, hand_sizes, stack_len, set_asset, set_size, set_n_hidden,
                    top_value_seen, discard_pile, discard_len, draw_size, rnd, ch_challenger, ch_defender, ch_asset,
                    ch_cards, ch_len, gave_up, values, na, nw, nf):
    b_rows, p = hand_sizes.shape
    out = np.zeros((b_rows, nf), np.float32)
    for b in range(b_rows):
        if seat[b] < 0:
            continue
        hdr = np.zeros(N_HDR, np.int64)
        hdr[H_SEAT], hdr[H_P], hdr[H_NA], hdr[H_NW] = seat[b], p, na, nw
        hdr[H_DRAW], hdr[H_ROUND] = draw_size[b], rnd[b]
        hdr[H_TOP_DISCARD] = discard_pile[b, discard_len[b] - 1] if discard_len[b] > 0 else -1
        hdr[H_CH_CHALLENGER] = hdr[H_CH_DEFENDER] = hdr[H_CH_ASSET] = -1
        if phase[b] == 1:
            hdr[H_CH_ACTIVE], hdr[H_CH_ASSET] = 1, ch_asset[b]
            hdr[H_CH_CHALLENGER], hdr[H_CH_DEFENDER] = ch_challenger[b], ch_defender[b]
            pot = 0
            for j in range(ch_len[b]):
                pot += values[ch_cards[b, j]]
            hdr[H_CH_POT_VALUE], hdr[H_CH_LEN] = pot, ch_len[b]
        seats = np.zeros((p, N_SEATCOL), np.int64)
        for s in range(p):
            seats[s, S_HAND_SIZE] = hand_sizes[b, s]
            n = stack_len[b, s]
            seats[s, S_STACK_LEN] = n
            seats[s, S_TOP_ASSET] = -1
            if n > 0:
                seats[s, S_TOP_ASSET] = set_asset[b, s, n - 1]
                seats[s, S_TOP_VALUE_SEEN] = top_value_seen[b, s]
                seats[s, S_TOP_HIDDEN] = set_n_hidden[b, s, n - 1]
                seats[s, S_TOP_SIZE] = set_size[b, s, n - 1]
        h = hand[b].astype(np.int64)
        u = unseen[b].astype(np.int64)
        f = features(hdr, h, values, u, seats, gave_up[b])
        for i in range(nf):
            out[b, i] = f[i]
    return out


def batch_features(ob) -> np.ndarray:
    """(B, F) float32 :func:`agents.classic.learned.features` of every row's seat to act, from an
    :class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` (classic rules; the view fields the features read are
    built from the batch's arrays as :func:`agents.classic.view.build_view` builds them; tests check equality)."""
    d = ob.rules.deck
    nf = n_features(ob.n_players, d.n_types, d.n_assets)
    return _batch_features(ob.seat, ob.phase, ob.hand, ob.unseen, ob.hand_sizes, ob.stack_len, ob.set_asset,
                           ob.set_size, ob.set_n_hidden, ob.top_value_seen, ob.discard_pile, ob.discard_len,
                           ob.draw_size, ob.round, ob.ch_challenger, ob.ch_defender, ob.ch_asset, ob.ch_cards,
                           ob.ch_len, ob.gave_up, np.asarray(ob.values, np.int64), d.n_assets, d.n_wilds, nf)


@keyword_checked
class ViewFeatureVectorEnv(CoverYourAssetsVectorEnv):
    """The batched vector environment with view-feature observations and an optional dense reward (module docstring).

    Args:
        num_envs, rules, n_players, seat, opponents: as :class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv`.
        reward: ``"dense"`` or ``"win_share"``. dense_weight: factor of the change in total ($M).

    Spaces: ``single_observation_space`` ``Box(-inf, inf, (F,), float32)``, F = :func:`agents.classic.learned.n_features`.

    Raises:
        ValueError: a reward not in :data:`REWARDS`, rules with the advanced cards or draft piles, or the theft
            game (the features encode the classic game only), and what the vector environment refuses.
    """

    def __init__(self, num_envs: int = 64, rules: Any = "classic", n_players: int = 2, seat: int = 0,
                 opponents: str = "card_counter", reward: str = "dense", dense_weight: float = 1.0) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward: {reward!r}; allowed: {', '.join(REWARDS)}")
        if game_interface(resolve_rules(rules)).family != ClassicGame.family:
            raise ValueError(f"rules: {getattr(rules, 'name', rules)!r}; the learned agent's features encode the "
                             "classic game's agent view; for the theft game use CoverYourAssetsVectorEnv(rules='theft')")
        super().__init__(num_envs, rules, n_players, seat, opponents, "win_share")
        from cya_sim.game.classic.actions import ActionSpace

        sp = ActionSpace.for_rules(self.rules)
        if sp.advanced_on or sp.draft:
            raise ValueError("rules: the learned agent's features encode the classic game; give rules without the "
                             "advanced cards and draft piles")
        w = dense_weight
        number = isinstance(w, int | float | np.integer | np.floating) and not isinstance(w, bool | np.bool_)
        if not number or not (abs(int(w)) < 2**1023 if isinstance(w, int | np.integer) else math.isfinite(w)):
            raise ValueError(f"dense_weight: {show(dense_weight, python_str=True)} ({type(dense_weight).__name__}); "
                             "allowed: a finite number (the weight of the dense reward)")
        self.reward_kind, self.dense_weight = reward, float(dense_weight)
        d = self.rules.deck
        self.n_features = n_features(n_players, d.n_types, d.n_assets)
        self.single_observation_space = spaces.Box(-np.inf, np.inf, (self.n_features,), np.float32)
        self.observation_space = spaces.Box(-np.inf, np.inf, (num_envs, self.n_features), np.float32)
        self._prev = np.zeros(num_envs, np.float64)

    def _observe(self) -> np.ndarray:
        ob = bridge.observe(self._batch)
        self._mask = ob.legal_action_mask.copy()
        return batch_features(ob)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """As the vector environment's ``reset``; the dense reward's running totals start at the first observation."""
        obs, info = super().reset(seed=seed, options=options)
        self._prev = bridge.totals(self._batch)[:, self.seat].astype(np.float64)
        return obs, info

    def step(self, actions):
        """Apply the learner's (B,) actions and play the opponents; reward as the module docstring says.

        ``info`` also holds, for rows whose game ended, ``final_total`` (dollars) and ``final_share`` of the
        learner (NaN in the other rows), and ``final_obs`` ((B,) object array: the (F,) float32 features of the
        learner's view of the finished game's last position, None in the other rows; SAME_STEP autoreset, as the
        vector environment). ``info["action_mask"]`` is (B, A) int8, :meth:`action_masks` (B, A) bool.
        """
        st = self._batch
        if st is None:
            raise ResetNeeded("call reset() before step()")
        g0 = bridge.game_index(st)
        done = bridge.step(st, self._actions(actions), self.seat, batch_features)  # finished games' last features
        ended = np.zeros(self.num_envs, bool)
        ended[done.rows] = True
        now = bridge.totals(st)[:, self.seat].astype(np.float64)  # restarted rows: the new game's totals
        reward = np.zeros(self.num_envs, np.float64)
        if self.reward_kind == "dense":
            reward = self.dense_weight * (now - self._prev) / 1e6
        final_total = np.full(self.num_envs, np.nan)
        final_share = np.full(self.num_envs, np.nan)
        if ended.any():
            final_total[done.rows], final_share[done.rows] = done.totals[:, self.seat], done.share[:, self.seat]
            reward[done.rows] = done.share[:, self.seat]
            if self.reward_kind == "dense":
                reward[done.rows] += self.dense_weight * (done.totals[:, self.seat] - self._prev[done.rows]) / 1e6
        self._prev = now
        obs = self._observe()
        info = {"action_mask": self._mask.astype(np.int8), "game": bridge.game_index(st)}
        if ended.any():
            info["final_game"] = np.where(ended, g0, -1)
            info["_final_game"] = ended
            info["final_obs"] = np.full(self.num_envs, None, object)  # as the vector environment's
            for i, row in enumerate(done.rows.tolist()):
                info["final_obs"][row] = done.final[i]
            info["_final_obs"] = ended.copy()
            info["final_total"], info["final_share"] = final_total, final_share
        capped = np.zeros(self.num_envs, bool)
        capped[done.rows] = done.capped  # the max_rounds safeguard: a truncation
        return obs, reward, ended & ~capped, capped, info


def sb3_infos(terminated: np.ndarray, truncated: np.ndarray, info: dict) -> list[dict]:
    """SB3's per-row infos of one vector step: for each finished row ``terminal_observation`` and ``TimeLimit.truncated``.

    Args:
        terminated, truncated: (B,) bool of the vector environment's step. info: its info dict (its
            ``final_obs`` holds each finished row's last observation, SAME_STEP autoreset).

    Returns:
        B dicts; a row whose game ended has ``terminal_observation`` (the finished game's last observation, not the
        next game's first) and ``TimeLimit.truncated`` (True when the ``max_rounds`` safeguard stopped it, so SB3
        bootstraps it; False when the game ended by its rules); the other rows' dicts are empty.
    """
    infos: list[dict] = [{} for _ in range(len(terminated))]
    for i in np.flatnonzero(terminated | truncated).tolist():
        infos[i]["terminal_observation"] = info["final_obs"][i]
        infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
    return infos


def make_sb3_vec_env(venv: CoverYourAssetsVectorEnv, seed: int | None = None):
    """A ``stable_baselines3.common.vec_env.VecEnv`` over a cya-sim vector environment (module docstring).

    ``reset()`` starts games 0.. of ``seed`` the first time and fresh random seeds after; every done row has
    already started its next game (its returned observation is the new game's first, SB3's convention), and its
    info holds ``terminal_observation``: the finished game's last observation (the vector environment's
    ``info["final_obs"]``), and ``TimeLimit.truncated``: True when the rules' ``max_rounds`` safeguard stopped
    the game (a truncation: SB3 bootstraps the value of ``terminal_observation``), False when it ended by its
    rules. Rewards are float32, dones ``terminated | truncated``.

    Raises:
        ImportError: stable-baselines3 is not installed (one line naming ``pip install -e '.[train]'``).
    """
    try:
        from stable_baselines3.common.vec_env import VecEnv
    except ModuleNotFoundError as e:  # torch, stable-baselines3 and sb3-contrib: the train extra
        raise missing_extra(e, "train", "make_sb3_vec_env") from None

    class CyaSB3VecEnv(VecEnv):
        """SB3 view of a cya-sim vector environment; ``action_masks()`` for MaskablePPO."""

        def __init__(self) -> None:
            self.venv, self._seed, self._actions = venv, seed, None  # first: VecEnv.__init__ reads render_mode
            super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

        def reset(self):
            """Start the games (of ``seed`` the first time); return the (B, F) observations."""
            obs, _ = self.venv.reset(seed=self._seed)
            self._seed = None
            return obs

        def step_async(self, actions) -> None:
            """Keep the (B,) actions for :meth:`step_wait`."""
            self._actions = np.asarray(actions)

        def step_wait(self):
            """Step every row: (obs (B, F), rewards (B,) float32, dones (B,) bool, infos)."""
            obs, r, term, trunc, info = self.venv.step(self._actions)
            return obs, r.astype(np.float32), np.asarray(term | trunc), sb3_infos(term, trunc, info)

        def action_masks(self) -> np.ndarray:
            """(B, A) bool legal actions of the learner in each row."""
            return self.venv.action_masks()

        def close(self) -> None:
            """Close the vector environment."""
            self.venv.close()

        def get_attr(self, attr_name: str, indices=None) -> list:
            """The vector environment's attribute, once per requested row."""
            return [getattr(self.venv, attr_name)] * len(self._get_indices(indices))

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            """Set an attribute of the vector environment (shared by every row)."""
            setattr(self.venv, attr_name, value)

        def has_attr(self, attr_name: str) -> bool:
            """Whether the attribute exists (``action_masks`` always, for MaskablePPO)."""
            return attr_name == "action_masks" or hasattr(self.venv, attr_name)

        def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
            """Call a method of the vector environment; ``action_masks`` gives each row's own (A,) mask."""
            idx = list(self._get_indices(indices))
            if method_name == "action_masks":
                m = self.venv.action_masks()
                return [m[i] for i in idx]
            out = getattr(self.venv, method_name)(*args, **kwargs)
            return [out] * len(idx)

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            """No row is wrapped."""
            return [False] * len(self._get_indices(indices))

        def seed(self, seed: int | None = None):
            """The seed of the next :meth:`reset`."""
            self._seed = seed
            return [seed] * self.num_envs

    return CyaSB3VecEnv()
