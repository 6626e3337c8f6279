"""A learned policy as a compiled plug-in: view features, a small MLP in numba, and the module that carries its weights.

The network reads only the agent view (:mod:`agents.classic.view`), so the same function serves training (the view of
a reference observation, :func:`agents.classic.view.build_view`, in :mod:`cya_sim.env.sb3`) and play inside the
batched engine's compiled loop (the view the loop builds for the seat): no torch at play time, and the
features of training and play are the same by construction.

* :func:`features` — ``(F,) float64`` from the view; :func:`n_features` gives F for P seats, T card types and
  nA assets, under the advanced rules (RULES.md §6: their cards and one more block) or not; draft piles
  (RULES.md §7) are not encoded.
* :func:`network_action` — the greedy (arg-max over legal actions) action of an MLP ``F -> H -> H -> A`` with
  ``tanh`` or ``relu`` hidden layers, its work brought to the decision: nothing when one action is legal, the first
  layer over the nonzero features, the logits of the legal actions only, a vectorised ``tanh`` (:func:`tanh_into`),
  the weights as float32 when they are (:func:`network_arrays`); :func:`mlp_action`, the same on the last layer as
  trained.
* :func:`rows_features` — the features of one seat's view in each row of the batched engine, the view built by
  the play loop's own :func:`agents.classic.compiled_strategy.view_row` (training reads exactly what a plug-in reads).
* :func:`compatible` — whether a view is of the game a network was trained for (a last line of defence inside
  the compiled code: greedy's action in the classic game, the first legal action under the advanced rules).
* :func:`check_setting` — the refusal that matters: each model records the rules (preset and
  :func:`rules_digest`), the table size and the observation encoding (:data:`ENCODING`) it was trained for
  (:func:`trained_for`, from its ``.npz``); named at another table size, under other rules or with another
  encoding it is refused in one line (:class:`LearnedSettingError`) before any game is played — by the
  experiment check of the run layer, by every batch play (:meth:`cya_sim.play.family.GameFamily.play_games`)
  and by the environments' ``opponents=``.
* :func:`write_plugin` — a weights file ``NAME.npz`` (``W1, b1, W2, b2, W3, b3``, ``relu``, ``players``,
  ``trained_rules``, ``trained_rules_digest``, ``encoding``) next to a
  generated module ``NAME.py`` whose ``decide`` (the plug-in signature of :mod:`agents.plugin`) reads the
  weights as module-level constant arrays (:func:`network_arrays`; numba freezes them into the compiled code);
  :func:`rewrite_plugin` and :func:`rewrite_bundle` regenerate a module after a change of its template. The module's source
  carries the weights file's SHA-256, so a new weights file gives a new source and numba's cache compiles
  it once. Committed models live in :mod:`agents.learned_models` and are named like any plug-in, e.g.
  ``agents.learned_models.classic_2p:decide``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from agents.classic.compiled import act_once, new_scratch
from agents.classic.compiled_strategy import view_row
from agents.classic.heuristic import heuristic_decide
from agents.classic.view import (
    H_ADV,
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_LEN,
    H_CH_POT_VALUE,
    H_DRAFT,
    H_DRAW,
    H_LEFT,
    H_NA,
    H_NACT,
    H_NW,
    H_OWED,
    H_P,
    H_ROUND,
    H_SEAT,
    H_TOP_DISCARD,
    S_BOTTOM_VALUE_SEEN,
    S_HAND_SIZE,
    S_SECOND_ASSET,
    S_SECOND_VALUE_SEEN,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
)
from agents.spec import AgentSpecError, parse_agent_spec
from cya_sim.engine.classic.layout import C_A, C_ADV_ON, C_NA, C_P, C_T

#: Dollars are fed in units of $100,000 (a pair of the most valuable asset).
DOLLAR_SCALE = 100_000.0
#: The observation encoding of :func:`features`; a model records it, and a change of the features (a new
#: encoding) makes every older model refuse to play.
ENCODING = "agents.learned.features/1"
#: The weight arrays of one network, as :func:`write_plugin` names them.
WEIGHTS = ("W1", "b1", "W2", "b2", "W3", "b3")


class LearnedSettingError(AgentSpecError):
    """A learned model named for a setting it was not trained for; ``str(e)`` is the one line shown (exit 2)."""


#: Keys of :meth:`RuleSet.to_dict` that are not rules of the game: the name, and the safeguard caps (a game that
#: reaches one is stopped, it does not play differently).
NOT_RULES = ("name", "max_rounds", "max_turns")


def rules_digest(rules: Any) -> str:
    """16 hex digits of SHA-256 over a rule set's content (:meth:`RuleSet.to_dict` without :data:`NOT_RULES`), so
    two presets with the same rules have the same digest and any changed rule or option a different one."""
    d = {k: v for k, v in rules.to_dict().items() if k not in NOT_RULES}
    return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


def trained_for(npz: Any) -> dict[str, Any]:
    """What a model was trained for, from its weights file (an ``np.load`` result or a dict of arrays).

    Returns:
        dict ``rules`` (preset name), ``rules_digest`` (:func:`rules_digest`), ``players`` (int) and
        ``encoding``; a key the file does not record is None (a model written before the record existed).
    """
    files = set(getattr(npz, "files", None) or npz.keys())

    def text(key: str) -> str | None:
        return str(npz[key]) if key in files else None

    return {"rules": text("trained_rules"), "rules_digest": text("trained_rules_digest"),
            "players": int(npz["players"]) if "players" in files else None, "encoding": text("encoding")}


def _setting_text(rules: str | None, digest: str | None, players: int | None, encoding: str | None) -> str:
    parts = []
    if rules is not None or digest is not None:
        parts.append(f"rules {rules or '?'!s}" + (f" (digest {digest})" if digest else ""))
    if players is not None:
        parts.append(f"{players} players")
    if encoding is not None:
        parts.append(f"encoding {encoding}")
    return ", ".join(parts)


def check_setting(spec: str, rules: Any, players: int) -> None:
    """Refuse a learned model (a plug-in whose module has ``TRAINED_FOR``, :func:`write_plugin`) for a setting
    it was not trained for: other rules (by :func:`rules_digest`), another table size, another encoding.

    Any other spec passes (it is checked elsewhere); so does a model for its own setting. A search agent's
    ``rollout=`` spec is checked the same way (its rollouts play the same table).

    Raises:
        LearnedSettingError: one line naming the model, what it was trained for and what it was asked to play.
    """
    try:
        parsed = parse_agent_spec(spec)
    except AgentSpecError:
        return
    rollout = dict(parsed.params).get("rollout")
    if isinstance(rollout, str):  # a search agent whose rollouts a learned model plays: the same table
        try:
            check_setting(rollout, rules, players)
        except LearnedSettingError as e:
            raise LearnedSettingError(f"agent {spec!r}: its rollout policy: {e}") from None
    name = parsed.name
    if ":" not in name:
        return
    try:
        mod = importlib.import_module(name.split(":", 1)[0])
    except Exception:  # noqa: BLE001 -- not importable: the registry names the failure when it builds the agent
        return
    want = getattr(mod, "TRAINED_FOR", None)
    if isinstance(want, list | tuple):  # a bundle (write_bundle): one network per setting
        _check_bundle(spec, want, rules, players)
        return
    if not isinstance(want, dict):
        return
    digest = rules_digest(rules) if hasattr(rules, "to_dict") else None
    wrong = _differences(want, digest, players)
    if not wrong:
        return
    asked = _setting_text(getattr(rules, "name", None), digest, int(players),
                          ENCODING if "encoding" in wrong else None)
    raise LearnedSettingError(
        f"agent {spec!r}: a learned model trained for "
        f"{_setting_text(want.get('rules'), want.get('rules_digest'), want.get('players'), want.get('encoding'))}; "
        f"asked to play {asked} (other {' and '.join(wrong)}); it plays only the setting it was trained for: "
        f"train one for this setting with experiments/train_learned.py")


def _differences(want: dict[str, Any], digest: str | None, players: int) -> list[str]:
    """What differs between a model's recorded setting and the one asked: "rules", "table size", "encoding"."""
    wrong = []
    if want.get("rules_digest") is not None and digest != want["rules_digest"]:
        wrong.append("rules")
    if want.get("players") is not None and int(players) != int(want["players"]):
        wrong.append("table size")
    if want.get("encoding") is not None and want["encoding"] != ENCODING:
        wrong.append("encoding")
    return wrong


def _check_bundle(spec: str, settings: list | tuple, rules: Any, players: int) -> None:
    """A bundle plays a setting when one of its networks was trained for it (rules, table size, encoding).

    Raises:
        LearnedSettingError: one line naming the bundle's settings and the one asked.
    """
    digest = rules_digest(rules) if hasattr(rules, "to_dict") else None
    if any(not _differences(w, digest, players) for w in settings):
        return
    have = "; ".join(_setting_text(w.get("rules"), None, w.get("players"), None) for w in settings)
    raise LearnedSettingError(
        f"agent {spec!r}: a bundle of learned models for {have} (encoding {ENCODING}); asked to play "
        f"{_setting_text(getattr(rules, 'name', None), digest, int(players), None)}, which none of them was trained "
        "for: add a model of this setting (experiments/train_learned.py, then agents.classic.learned.write_bundle)")


@njit(cache=True)
def feature_count(p, t, na, adv):
    """F, the length of :func:`features` for P seats, T card types (action cards included), nA asset types, and
    ``adv`` true under the advanced rules (RULES.md §6: the block of :func:`features` that only they have)."""
    f = 3 + 2 * t + 2 + t + na + 2 + 2 * p + p * (6 + na) + p * t
    if adv:
        f += 2 + p * (3 + na)
    return f


def n_features(p: int, t: int, na: int, advanced: bool = False) -> int:
    """F, the length of :func:`features` for P seats, T card types (the deck's ``n_types``, action cards
    included), nA asset types, under the advanced rules (RULES.md §6) or not."""
    return int(feature_count(p, t, na, bool(advanced)))


@njit(cache=True)
def features(hdr, hand, values, unseen, seats, gave_up) -> np.ndarray:
    """(F,) float64 features of one seat's agent view; seats relative to the observer (0 = itself, r = r places on).

    Blocks, in order: phase (challenge active, the seat is challenger, is defender); hand and unseen cards per
    type (/4, /8); draw pile (/40) and round (/5); top discard one-hot (T); challenge asset one-hot (nA), pot
    value ($100k) and cards shown (/6); challenger and defender one-hot (relative seats, P each); per relative
    seat: hand size (/5), sets (/10), has a top set, its value seen ($100k), hidden cards, size (/4), its asset
    one-hot (nA); per relative seat and type, the public ``gave_up`` record. T counts every card type of the
    deck, the advanced rules' action cards too (RULES.md §6). Under the advanced rules (``hdr[H_ADV]``) one more
    block: cards owed in the challenge (/2, R-ADV-PENNY, R-ADV-DEEP) and actions left this turn (/2, R-ADV-TWO);
    per relative seat: has a second set, its value seen and that of the bottom set ($100k; R-ADV-DEEP,
    R-ADV-MOVE), the second set's asset one-hot (nA). Without the advanced cards the features are those of
    encoding 1 as first written (the committed classic models read exactly what they were trained on).
    Draft piles (RULES.md §7) are not encoded (:func:`compatible`). Length: :func:`n_features`.
    """
    p, na, nw = hdr[H_P], hdr[H_NA], hdr[H_NW]
    t = na + nw + hdr[H_NACT]
    adv = hdr[H_ADV] != 0
    me = hdr[H_SEAT]
    out = np.zeros(feature_count(p, t, na, adv))
    i = 0
    ch = hdr[H_CH_ACTIVE] != 0
    out[0] = 1.0 if ch else 0.0
    out[1] = 1.0 if ch and hdr[H_CH_CHALLENGER] == me else 0.0
    out[2] = 1.0 if ch and hdr[H_CH_DEFENDER] == me else 0.0
    i = 3
    for c in range(t):
        out[i + c] = hand[c] / 4.0
        out[i + t + c] = unseen[c] / 8.0
    i += 2 * t
    out[i] = hdr[H_DRAW] / 40.0
    out[i + 1] = hdr[H_ROUND] / 5.0
    i += 2
    if hdr[H_TOP_DISCARD] >= 0:
        out[i + hdr[H_TOP_DISCARD]] = 1.0
    i += t
    if ch and hdr[H_CH_ASSET] >= 0:
        out[i + hdr[H_CH_ASSET]] = 1.0
    i += na
    if ch:
        out[i] = hdr[H_CH_POT_VALUE] / DOLLAR_SCALE
        out[i + 1] = hdr[H_CH_LEN] / 6.0
    i += 2
    if ch:
        out[i + (hdr[H_CH_CHALLENGER] - me) % p] = 1.0
        out[i + p + (hdr[H_CH_DEFENDER] - me) % p] = 1.0
    i += 2 * p
    for r in range(p):
        s = (me + r) % p
        o = i + r * (6 + na)
        out[o] = seats[s, S_HAND_SIZE] / 5.0
        out[o + 1] = seats[s, S_STACK_LEN] / 10.0
        if seats[s, S_TOP_ASSET] >= 0:
            out[o + 2] = 1.0
            out[o + 3] = seats[s, S_TOP_VALUE_SEEN] / DOLLAR_SCALE
            out[o + 4] = seats[s, S_TOP_HIDDEN]
            out[o + 5] = seats[s, S_TOP_SIZE] / 4.0
            out[o + 6 + seats[s, S_TOP_ASSET]] = 1.0
    i += p * (6 + na)
    for r in range(p):
        s = (me + r) % p
        for c in range(t):
            out[i + r * t + c] = 1.0 if gave_up[s, c] else 0.0
    i += p * t
    if adv:  # RULES.md §6
        out[i] = (hdr[H_OWED] if ch else 0) / 2.0
        out[i + 1] = hdr[H_LEFT] / 2.0
        i += 2
        for r in range(p):
            s = (me + r) % p
            o = i + r * (3 + na)
            if seats[s, S_SECOND_ASSET] >= 0:
                out[o] = 1.0
                out[o + 1] = seats[s, S_SECOND_VALUE_SEEN] / DOLLAR_SCALE
                out[o + 3 + seats[s, S_SECOND_ASSET]] = 1.0
            if seats[s, S_STACK_LEN] > 0:
                out[o + 2] = seats[s, S_BOTTOM_VALUE_SEEN] / DOLLAR_SCALE
    return out


@njit(cache=True)
def _rows_features(K, R, seat, sc, out, masks):
    values = K.values[:K.cfg[C_T]]
    for b in range(R.shape[0]):
        view_row(K, R[b], seat, sc)
        f = features(sc.hdr, sc.hand, values, sc.unseen, sc.seats, sc.gave_up)
        for i in range(f.shape[0]):
            out[b, i] = f[i]
        for a in range(masks.shape[1]):
            masks[b, a] = sc.mask[a]


def rows_features(consts: Any, rows: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The :func:`features` of ``seat``'s agent view in each row of the batched engine, and the legal mask of each
    row's seat to act.

    The view is built by :func:`agents.classic.compiled_strategy.view_row`, the function the play loop builds a plug-in's
    view with, so a network trained on these features reads at play exactly what it read in training.

    Args:
        consts: the rows' :class:`~cya_sim.engine.classic.layout.Consts` (``BatchState.consts``).
        rows: (B, W) int64 game rows of that layout. seat: the observer, 0 <= seat < P.

    Returns:
        ((B, F) float32 features, F = :func:`n_features`; (B, A) bool legal masks).
    """
    cfg = consts.cfg
    p, t, na, a = int(cfg[C_P]), int(cfg[C_T]), int(cfg[C_NA]), int(cfg[C_A])
    out = np.zeros((rows.shape[0], n_features(p, t, na, bool(cfg[C_ADV_ON]))), np.float32)
    masks = np.zeros((rows.shape[0], a), np.bool_)
    _rows_features(consts, rows, int(seat), new_scratch(cfg), out, masks)
    return out, masks


@njit(cache=True)
def _rows_policy_actions(K, R, seat, code, addr, params, rng, sc, out):
    for b in range(R.shape[0]):
        out[b] = act_once(code, addr, K, R[b], seat, params, rng[b], sc)


def rows_policy_actions(consts: Any, rows: np.ndarray, seat: int, policy: tuple[int, int, np.ndarray],
                        rng: np.ndarray) -> np.ndarray:
    """What a compiled agent would play for ``seat`` (the seat to act) in each row of the batched engine: the
    labels of imitation learning (an expert's decision in the learner's own positions).

    Args:
        consts, rows, seat: as :func:`rows_features`. policy: ``(code, address, params)`` of the agent
            (:func:`agents.classic.registry.policy_of`). rng: (B, 4) uint64 a random stream per row (advanced by
            agents that draw; the rows' own streams are not touched).

    Returns:
        (B,) int64 action ids (-1: the agent has no compiled decision there).
    """
    out = np.zeros(rows.shape[0], np.int64)
    code, addr, params = policy
    _rows_policy_actions(consts, rows, int(seat), int(code), int(addr), np.asarray(params, np.float64), rng,
                         new_scratch(consts.cfg), out)
    return out


#: The compile options of the network's functions: a float division by zero gives inf or nan as NumPy does instead of
#: raising (there is none to guard here; the check would keep :func:`tanh_into`'s loop from being vectorised).
_NET_JIT = {"cache": True, "error_model": "numpy"}

# tanh(x) = -expm1(-2|x|) / (2 + expm1(-2|x|)) with the sign of x: expm1(y) = 2**n (1 + q) - 1, n = round(y / ln 2),
# r = y - n ln 2 (Cody and Waite's two-part ln 2, as fdlibm's), q = expm1(r) from its Taylor series to r**14/14!
# (|r| <= ln(2)/2: the first term left out is below 2**-60 of q).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e+00
_ROUND = 6755399441055744.0  # 1.5 * 2**52: (v + _ROUND) - _ROUND is v rounded to an integer, |v| < 2**51
_C1, _C2, _C3, _C4, _C5, _C6, _C7 = (1.0 / math.factorial(k) for k in range(1, 8))
_C8, _C9, _C10, _C11, _C12, _C13, _C14 = (1.0 / math.factorial(k) for k in range(8, 15))


@njit(**_NET_JIT)
def tanh_into(v) -> None:
    """``v[:] = tanh(v)`` for a (n,) float64 array, in a loop numba vectorises (no call to libm's ``tanh``).

    Within 3 units in the last place of ``np.tanh`` (``tests/test_learned.py`` checks 1.6 million values from 1e-8 to
    25); tanh(x) is 1 to the last bit from ``|x|`` = 19.1, and ``|x|`` is clamped at 20. Method: ``tanh(x) =
    -expm1(-2|x|) / (2 + expm1(-2|x|))`` with the sign of x; ``expm1`` by Cody and Waite's reduction by ln 2 (two
    parts, as fdlibm's ``expm1``) and the Taylor series of ``expm1`` on ``|r| <= ln(2)/2`` to ``r**14/14!``; the
    power of two is a product of exact powers chosen by the bits of n (0 <= -n <= 58), with no branch.
    """
    for j in range(v.shape[0]):
        x = v[j]
        y = -2.0 * min(abs(x), 20.0)  # in [-40, 0]
        n = (y * _INV_LN2 + _ROUND) - _ROUND  # y / ln 2 rounded, in [-58, 0]
        r = (y - n * _LN2_HI) - n * _LN2_LO
        q = _C11 + r * (_C12 + r * (_C13 + r * _C14))
        q = _C7 + r * (_C8 + r * (_C9 + r * (_C10 + r * q)))
        q = r * (_C1 + r * (_C2 + r * (_C3 + r * (_C4 + r * (_C5 + r * (_C6 + r * q))))))  # expm1(r)
        m = np.int64(-n)
        s = ((1.0 - 0.5 * (m & 1)) * (1.0 - 0.75 * ((m >> 1) & 1)) * (1.0 - 0.9375 * ((m >> 2) & 1))
             * (1.0 - 0.99609375 * ((m >> 3) & 1)) * (1.0 - (1.0 - 2.0 ** -16) * ((m >> 4) & 1))
             * (1.0 - (1.0 - 2.0 ** -32) * ((m >> 5) & 1)))  # 2**n, exactly
        e = s * q + (s - 1.0)  # expm1(y); exactly q when n = 0
        v[j] = math.copysign(-e / (2.0 + e), x)


@njit(**_NET_JIT)
def _layer(x, w, b, relu, out, idx) -> None:
    """``out = act(b + x @ w)``, the sum over the rows of ``w`` in their order, rows where ``x`` is exactly 0 skipped
    (they add nothing); four rows per pass over ``out``, each element still summed in row order. ``idx``: an int64
    scratch of at least ``x.shape[0]``."""
    n = w.shape[1]
    k = 0
    for i in range(x.shape[0]):  # the rows to add, without a branch
        idx[k] = i
        k += x[i] != 0.0
    for j in range(n):
        out[j] = 0.0
    q = 0
    while q + 4 <= k:
        i0, i1, i2, i3 = idx[q], idx[q + 1], idx[q + 2], idx[q + 3]
        x0, x1, x2, x3 = x[i0], x[i1], x[i2], x[i3]
        w0, w1, w2, w3 = w[i0], w[i1], w[i2], w[i3]
        for j in range(n):
            o = out[j]
            o += x0 * w0[j]
            o += x1 * w1[j]
            o += x2 * w2[j]
            o += x3 * w3[j]
            out[j] = o
        q += 4
    while q < k:
        xi, wi = x[idx[q]], w[idx[q]]
        for j in range(n):
            out[j] += xi * wi[j]
        q += 1
    for j in range(n):
        out[j] += b[j]
    if relu:
        for j in range(n):
            out[j] = max(out[j], 0.0)
    else:
        tanh_into(out)


@njit(**_NET_JIT)
def _four_dots(h, wa, wb, wc, wd):
    """The dot products of ``h`` with ``wa``, ``wb``, ``wc`` and ``wd``, each summed in order, in one pass."""
    sa = sb = sc = sd = 0.0
    for i in range(h.shape[0]):
        hi = h[i]
        sa += hi * wa[i]
        sb += hi * wb[i]
        sc += hi * wc[i]
        sd += hi * wd[i]
    return sa, sb, sc, sd


@njit(**_NET_JIT)
def network_action(x, w1, b1, w2, b2, w3t, b3, relu, mask) -> int:
    """The legal action of highest logit of the MLP ``logits = W3' h2 + b3``, ``h_k = act(W_k' h_{k-1} + b_k)``,
    with the work brought to what the decision needs: no network when one action is legal (it is the arg-max), the
    first layer over the nonzero features only, the logits of the legal actions only (``w3t``'s rows).

    Shapes: x (F,) float64; w1 (F, H1), w2 (H1, H2), w3t (A, H2) — the last layer transposed — float32 or float64
    (:func:`network_arrays`); b1, b2, b3 (H1,), (H2,), (A,) float64; relu: 1 for ReLU, 0 for tanh
    (:func:`tanh_into`); mask (A,) bool. Every sum is taken in the order of its terms in float64, so the result
    does not depend on a BLAS library. Returns -1 when no action is legal; ties go to the lowest action id.
    """
    n_legal, first = 0, -1
    for a in range(mask.shape[0]):
        if mask[a]:
            if n_legal == 0:
                first = a
            n_legal += 1
    if n_legal <= 1:
        return first
    h1n, h2n = w1.shape[1], w2.shape[1]
    buf = np.empty(h1n + h2n)
    idx = np.empty(max(w1.shape[0], h1n, mask.shape[0]), np.int64)
    h1, h2 = buf[:h1n], buf[h1n:]
    _layer(x, w1, b1, relu, h1, idx)
    _layer(h1, w2, b2, relu, h2, idx)
    legal = idx[:n_legal]
    k = 0
    for a in range(mask.shape[0]):
        legal[k] = a
        k += mask[a]
    logits = np.empty(n_legal)
    q = 0
    while q + 4 <= n_legal:  # four legal actions per pass over h2 (four independent sums)
        logits[q], logits[q + 1], logits[q + 2], logits[q + 3] = _four_dots(
            h2, w3t[legal[q]], w3t[legal[q + 1]], w3t[legal[q + 2]], w3t[legal[q + 3]])
        q += 4
    while q < n_legal:
        wa = w3t[legal[q]]
        s = 0.0
        for i in range(h2n):
            s += h2[i] * wa[i]
        logits[q] = s
        q += 1
    best, best_v = -1, -np.inf
    for q in range(n_legal):
        v = logits[q] + b3[legal[q]]
        if v > best_v:
            best, best_v = legal[q], v
    return best


@njit(cache=True)
def mlp_action(x, w1, b1, w2, b2, w3, b3, relu, mask) -> int:
    """:func:`network_action` with the last layer as trained, ``w3`` (H2, A) (transposed at each call: the generated
    plug-ins pass :func:`network_arrays`' ``W3T`` to :func:`network_action` instead).

    Shapes: x (F,), w1 (F, H1), w2 (H1, H2), w3 (H2, A), b_k their columns; relu: 1 for ReLU, 0 for tanh;
    mask (A,) bool. Returns -1 when no action is legal.
    """
    return network_action(x, w1, b1, w2, b2, np.ascontiguousarray(w3.T), b3, relu, mask)


def _compact(w: np.ndarray) -> np.ndarray:
    """A C-contiguous weight matrix as float32 when every value is one (no value changes: the network computes in
    float64 all the same, and reads half the bytes), else float64."""
    w = np.asarray(w, np.float64)
    w32 = w.astype(np.float32)
    return np.ascontiguousarray(w32 if np.array_equal(w32.astype(np.float64), w) else w)


def network_arrays(npz: Any, prefix: str = "") -> tuple[np.ndarray, ...]:
    """The arrays :func:`network_action` reads, from a weights file (``np.load`` result or dict; keys
    ``{prefix}W1`` ... ``{prefix}b3``, :data:`WEIGHTS`).

    Returns:
        ``(W1 (F, H1), B1 (H1,), W2 (H1, H2), B2 (H2,), W3T (A, H2), B3 (A,))``: the weight matrices C-contiguous,
        float32 when every weight is exactly a float32 (the committed models, trained in float32), else float64;
        ``W3T`` is ``W3`` transposed (a legal action's weights side by side); the biases float64.
    """
    w1, b1, w2, b2, w3, b3 = (np.asarray(npz[f"{prefix}{k}"], np.float64) for k in WEIGHTS)
    return (_compact(w1), np.ascontiguousarray(b1), _compact(w2), np.ascontiguousarray(b2), _compact(w3.T),
            np.ascontiguousarray(b3))


@njit(cache=True)
def compatible(hdr, mask, players, n_in, n_out) -> int:
    """1: the view is of the game a network was trained for (``players`` seats, its input and output sizes);
    otherwise 0 in the classic game, -1 under the advanced rules or with draft piles (which the features do not
    encode)."""
    if hdr[H_DRAFT] != 0:
        return -1
    p, na = hdr[H_P], hdr[H_NA]
    f = feature_count(p, na + hdr[H_NW] + hdr[H_NACT], na, hdr[H_ADV] != 0)
    if p == players and f == n_in and mask.shape[0] == n_out:
        return 1
    return -1 if hdr[H_ADV] != 0 else 0


_MODULE = '''"""A learned policy (generated by agents.classic.learned.write_plugin from {npz}; weights sha256 {digest}).

Spec: {module}:decide. Trained for {players} players under the rules {rules_name!r} (digest {rules_digest}), encoding
{encoding}; any other setting is refused before play (agents.classic.learned.check_setting). See {npz_name}'s metadata
and experiments/train_learned.py.
"""
from pathlib import Path

import numpy as np
from numba import njit

from agents.classic.heuristic import heuristic_decide
from agents.classic.learned import compatible, features, network_action, network_arrays, trained_for

_W = np.load(Path(__file__).with_name("{npz_name}"))
#: What it was trained for (rules, table size, encoding): agents.classic.learned.check_setting refuses any other setting.
TRAINED_FOR = trained_for(_W)
#: The network as agents.classic.learned.network_action reads it (W3T: the last layer transposed).
W1, B1, W2, B2, W3T, B3 = network_arrays(_W)
RELU = int(_W["relu"])
PLAYERS = int(_W["players"])
GREEDY = np.array([1, 30000, 0, 40000, 1, 0, 0, 0, 0, 0, 20000, 1, 1, 1], np.float64)  # heuristic's defaults


@njit(cache=True)
def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    """The network's legal action of highest logit. Another setting is refused before play (TRAINED_FOR); should
    one reach the compiled code anyway (agents.classic.learned.compatible): greedy's action in the classic game, else the
    first legal action."""
    c = compatible(hdr, mask, PLAYERS, W1.shape[0], W3T.shape[0])
    if c == 1:
        return network_action(features(hdr, hand, values, unseen, seats, gave_up), W1, B1, W2, B2, W3T, B3, RELU, mask)
    if c == 0:
        return heuristic_decide(GREEDY, hdr, hand, values, unseen, seats, mask)
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return 0
'''


def write_plugin(path: str | Path, weights: dict[str, np.ndarray], players: int, relu: bool,
                 meta: dict[str, str] | None = None, rules: Any = None) -> Path:
    """Write ``NAME.npz`` (the weights, ``relu``, ``players``, what it was trained for and ``meta`` strings) and the
    plug-in ``NAME.py``.

    Args:
        path: ``.../NAME`` (any suffix is dropped); the folder must be importable (a package) for the spec
            ``package.NAME:decide``. weights: ``W1 (F, H1), b1, W2 (H1, H2), b2, W3 (H2, A), b3`` float arrays.
        players: the table size it was trained for. relu: hidden activation (else tanh). meta: strings kept
            in the npz (``meta_<key>``: command, seed...). rules: the rule set it was trained under (default the
            ``classic`` preset), recorded as ``trained_rules`` and ``trained_rules_digest`` with ``encoding``
            (:data:`ENCODING`).

    Returns:
        the path of the generated module.

    Raises:
        ValueError: a missing weight or shapes that do not chain.
    """
    path = Path(path).with_suffix("")
    need = ("W1", "b1", "W2", "b2", "W3", "b3")
    missing = [k for k in need if k not in weights]
    if missing:
        raise ValueError(f"weights: missing {', '.join(missing)}")
    w = {k: np.asarray(weights[k], np.float64) for k in need}
    if not (w["W1"].shape[1] == w["b1"].shape[0] == w["W2"].shape[0] and w["W2"].shape[1] == w["b2"].shape[0]
            == w["W3"].shape[0] and w["W3"].shape[1] == w["b3"].shape[0]):
        raise ValueError("weights: shapes do not chain (W1 (F,H1), b1 (H1,), W2 (H1,H2), b2 (H2,), W3 (H2,A), b3 (A,))")
    if rules is None:
        from cya_sim.game.rules import get_rules

        rules = get_rules("classic")
    npz = path.with_suffix(".npz")
    extra = {f"meta_{k}": np.array(str(v)) for k, v in (meta or {}).items()}
    record = {"trained_rules": np.array(str(rules.name)), "trained_rules_digest": np.array(rules_digest(rules)),
              "encoding": np.array(ENCODING)}
    np.savez(npz, **w, relu=np.array(int(relu)), players=np.array(int(players)), **record, **extra)
    return _write_module(path, npz, int(players), str(rules.name), rules_digest(rules))


def _write_module(path: Path, npz: Path, players: int, rules_name: str, digest_of_rules: str) -> Path:
    """The generated plug-in module ``NAME.py`` of ``npz`` (its source carries the weights file's SHA-256)."""
    digest = hashlib.sha256(npz.read_bytes()).hexdigest()
    module = ".".join([*_package_of(path.parent), path.name]) if _package_of(path.parent) else path.name
    src = _MODULE.format(npz=_shown_path(npz), digest=digest, module=module, players=players, npz_name=npz.name,
                         rules_name=rules_name, rules_digest=digest_of_rules, encoding=ENCODING)
    py = path.with_suffix(".py")
    py.write_text(src)
    return py


def _shown_path(npz: Path) -> str:
    """The weights file as the module's docstring names it: relative to the working folder when inside it."""
    try:
        return str(npz.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(npz)


def rewrite_plugin(npz: str | Path, rules: Any = None) -> Path:
    """Regenerate the plug-in module of an existing weights file (after a change of the module template), and
    record what it was trained for when the file does not yet say or ``rules`` is given (default the ``classic``
    preset; the table size is the file's ``players``). The weight arrays are kept exactly (the same bytes).

    Returns:
        the path of the generated module.
    """
    npz = Path(npz)
    with np.load(npz) as f:
        arrays = {k: f[k] for k in f.files}
    if rules is not None or "trained_rules_digest" not in arrays or "encoding" not in arrays:
        if rules is None:
            from cya_sim.game.rules import get_rules

            rules = get_rules("classic")
        arrays.update(trained_rules=np.array(str(rules.name)), trained_rules_digest=np.array(rules_digest(rules)),
                      encoding=np.array(ENCODING))
        np.savez(npz, **arrays)
    return _write_module(npz.with_suffix(""), npz, int(arrays["players"]), str(arrays["trained_rules"]),
                         str(arrays["trained_rules_digest"]))


def _package_of(folder: Path) -> list[str]:
    """Dotted package parts of ``folder`` (walking up while ``__init__.py`` exists)."""
    parts: list[str] = []
    f = folder.resolve()
    while (f / "__init__.py").exists():
        parts.insert(0, f.name)
        f = f.parent
    return parts


@njit(cache=True)
def play_network(hdr, hand, values, unseen, seats, gave_up, mask, players, w1, b1, w2, b2, w3t, b3, relu) -> int:
    """The legal action of highest logit of one network (:func:`network_action` on :func:`features`; the arrays of
    :func:`network_arrays`, ``w3t`` (A, H2) the last layer transposed), or, should a view of another setting reach it
    (:func:`compatible`; refused before play by :func:`check_setting`), greedy's action in the classic game and the
    first legal action elsewhere."""
    c = compatible(hdr, mask, players, w1.shape[0], w3t.shape[0])
    if c == 1:
        return network_action(features(hdr, hand, values, unseen, seats, gave_up), w1, b1, w2, b2, w3t, b3, relu,
                              mask)
    if c == 0:
        return heuristic_decide(GREEDY_PARAMS, hdr, hand, values, unseen, seats, mask)
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return 0


#: ``heuristic``'s default parameters (greedy's rules), the fallback of :func:`play_network`.
GREEDY_PARAMS = np.array([1, 30000, 0, 40000, 1, 0, 0, 0, 0, 0, 20000, 1, 1, 1], np.float64)

_BUNDLE = '''"""{doc}
"""
from pathlib import Path

import numpy as np
from numba import njit

from agents.classic.learned import bundle_trained_for, network_arrays, play_network
from agents.classic.view import H_ADV, H_P

_W = np.load(Path(__file__).with_name("{npz_name}"))
#: The settings (rules, table size, encoding) of its networks: agents.classic.learned.check_setting refuses any other.
TRAINED_FOR = bundle_trained_for(_W)
{constants}


@njit(cache=True)
def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    """The network of the table's setting (table size, advanced rules or not) plays its legal action of highest
    logit (agents.classic.learned.play_network)."""
    p = hdr[H_P]
    adv = 1 if hdr[H_ADV] != 0 else 0
{branches}
    return {last}
'''


def bundle_trained_for(npz: Any) -> list[dict[str, Any]]:
    """The settings of a bundle's networks (:func:`write_bundle`), each as :func:`trained_for` gives one."""
    n = int(npz["members"])
    out = []
    for k in range(n):
        sub = {key[len(f"m{k}_"):]: npz[key] for key in npz.files if key.startswith(f"m{k}_")}
        out.append(trained_for(sub))
    return out


def write_bundle(path: str | Path, members: list[str | Path]) -> Path:
    """Write a plug-in that plays several learned models, each in the setting it was trained for (a champion made of
    per-cell networks): ``NAME.npz`` holds every member's weights and record (``m<k>_W1`` ..., ``m<k>_players``,
    ``m<k>_trained_rules``, ``m<k>_trained_rules_digest``, ``m<k>_encoding``, ``m<k>_relu``, ``m<k>_source``) and
    ``NAME.py`` dispatches by table size and advanced rules in compiled code; its ``TRAINED_FOR`` is the list of
    settings, and :func:`check_setting` refuses any setting none of them was trained for.

    Args:
        path: ``.../NAME`` (any suffix dropped; an importable package's folder for the spec ``pkg.NAME:decide``).
        members: the models' weights files (``.../MODEL.npz``, or ``.../MODEL``), each recording its setting.

    Returns:
        the path of the generated module.

    Raises:
        ValueError: no member, a member without a recorded setting or of another encoding, rules that are not a
            preset's (the compiled dispatch must know whether they are advanced), two members of one table size
            and rule family (advanced or not), which the compiled code could not tell apart.
    """
    from cya_sim.game.classic.actions import ActionSpace
    from cya_sim.game.rules import get_rules

    path = Path(path).with_suffix("")
    if not members:
        raise ValueError("members: give at least one model")
    arrays: dict[str, np.ndarray] = {"members": np.array(len(members))}
    keys: list[tuple[int, int]] = []
    for k, m in enumerate(members):
        npz = Path(m).with_suffix(".npz")
        with np.load(npz) as f:
            rec = trained_for(f)
            if None in rec.values():
                raise ValueError(f"members[{k}]: {npz} records no setting (rewrite_plugin records one)")
            if rec["encoding"] != ENCODING:
                raise ValueError(f"members[{k}]: {npz} has encoding {rec['encoding']}; this code reads {ENCODING}")
            rules = get_rules(rec["rules"])
            if rules_digest(rules) != rec["rules_digest"]:
                raise ValueError(f"members[{k}]: {npz} was trained under options of {rec['rules']!r} that are not the "
                                 "preset's; a bundle takes models of presets")
            key = (int(rec["players"]), int(ActionSpace.for_rules(rules).advanced_on))
            if key in keys:
                raise ValueError(f"members[{k}]: a second model for {key[0]} players "
                                 f"{'with' if key[1] else 'without'} the advanced cards; give one per setting")
            keys.append(key)
            for w in WEIGHTS:
                arrays[f"m{k}_{w}"] = np.asarray(f[w], np.float64)
            arrays[f"m{k}_relu"] = np.array(int(f["relu"]))
            for r in ("players", "trained_rules", "trained_rules_digest", "encoding"):
                arrays[f"m{k}_{r}"] = f[r]
            arrays[f"m{k}_source"] = np.array(npz.name)
    out = path.with_suffix(".npz")
    np.savez(out, **arrays)
    return _write_bundle_module(out, keys)


def rewrite_bundle(npz: str | Path) -> Path:
    """Regenerate the plug-in module of an existing bundle's weights file (:func:`write_bundle`; after a change of
    the module template), its arrays untouched (the same bytes).

    Returns:
        the path of the generated module.
    """
    from cya_sim.game.classic.actions import ActionSpace
    from cya_sim.game.rules import get_rules

    npz = Path(npz)
    with np.load(npz) as f:
        keys = [(int(f[f"m{k}_players"]),
                 int(ActionSpace.for_rules(get_rules(str(f[f"m{k}_trained_rules"]))).advanced_on))
                for k in range(int(f["members"]))]
    return _write_bundle_module(npz, keys)


def _write_bundle_module(out: Path, keys: list[tuple[int, int]]) -> Path:
    """The generated module ``NAME.py`` of bundle ``out`` (``NAME.npz``), whose member k plays the table size and
    rules family (advanced or not) ``keys[k]``; its source carries the weights file's SHA-256."""
    path = out.with_suffix("")
    names = ("W1", "B1", "W2", "B2", "W3T", "B3")
    constants = "\n".join(
        f"M{k}_W1, M{k}_B1, M{k}_W2, M{k}_B2, M{k}_W3T, M{k}_B3 = network_arrays(_W, 'm{k}_')\n"
        f"M{k}_RELU, M{k}_P = int(_W['m{k}_relu']), int(_W['m{k}_players'])"
        for k in range(len(keys)))

    def call(k: int, indent: int) -> str:
        return (f"play_network(hdr, hand, values, unseen, seats, gave_up, mask, M{k}_P,\n" + " " * (indent + 20)
                + ", ".join(f"M{k}_{n}" for n in names) + f", M{k}_RELU)")

    branches = "\n".join(f"    if p == {p} and adv == {a}:\n        return {call(k, 8)}" for k, (p, a) in enumerate(keys))
    last = call(0, 4)
    settings = ", ".join(f"{p} players {'with' if a else 'without'} the advanced cards" for p, a in keys)
    parts = _package_of(path.parent)
    module = ".".join([*parts, path.name]) if parts else path.name
    head = (f"A bundle of learned policies, one network per setting (generated by agents.classic.learned.write_bundle from "
            f"{_shown_path(out)}; sha256 {hashlib.sha256(out.read_bytes()).hexdigest()}).")
    body = (f"Spec: {module}:decide. Settings: {settings}; encoding {ENCODING}. Any other setting is refused before "
            f"play (agents.classic.learned.check_setting). Each network is the model named in {out.name}'s m<k>_source.")
    doc = textwrap.fill(head, 116) + "\n\n" + textwrap.fill(body, 116)
    src = _BUNDLE.format(doc=doc, npz_name=out.name, constants=constants, branches=branches, last=last)
    py = path.with_suffix(".py")
    py.write_text(src)
    return py
