"""A learned policy as a compiled plug-in: view features, a small MLP in numba, and the module that carries its weights.

The network reads only the agent view (:mod:`agents.view`), so the same function serves training (the view of
a reference observation, :func:`agents.view.build_view`, in :mod:`cya_sim.env.sb3`) and play inside the
batched engine's compiled loop (the view the loop builds for the seat): no torch at play time, and the
features of training and play are the same by construction.

* :func:`features` — ``(F,) float64`` from the view; :func:`n_features` gives F for P seats, T card types and
  nA assets (classic rules: the advanced cards and the drafts are not encoded).
* :func:`mlp_action` — the greedy (arg-max over legal actions) action of an MLP ``F -> H -> H -> A`` with
  ``tanh`` or ``relu`` hidden layers.
* :func:`compatible` — whether a view is of the game a network was trained for; the generated ``decide`` plays
  greedy's action at another table size of the classic game and the first legal action under the advanced
  rules or the drafts (the features encode the classic game at one table size).
* :func:`write_plugin` — a weights file ``NAME.npz`` (``W1, b1, W2, b2, W3, b3``, ``act``, ``players``) next to a
  generated module ``NAME.py`` whose ``decide`` (the plug-in signature of :mod:`agents.plugin`) reads the
  weights as module-level constant arrays (numba freezes them into the compiled code). The module's source
  carries the weights file's SHA-256, so a new weights file gives a new source and numba's cache compiles
  it once. Committed models live in :mod:`agents.learned_models` and are named like any plug-in, e.g.
  ``agents.learned_models.classic_2p:decide``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from numba import njit

from agents.view import (
    H_ADV,
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_LEN,
    H_CH_POT_VALUE,
    H_DRAFT,
    H_DRAW,
    H_NA,
    H_NW,
    H_P,
    H_ROUND,
    H_SEAT,
    H_TOP_DISCARD,
    S_HAND_SIZE,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
)

#: Dollars are fed in units of $100,000 (a pair of the most valuable asset).
DOLLAR_SCALE = 100_000.0


def n_features(p: int, t: int, na: int) -> int:
    """F, the length of :func:`features` for P seats, T card types and nA asset types."""
    return 3 + 2 * t + 2 + t + na + 2 + 2 * p + p * (6 + na) + p * t


@njit(cache=True)
def features(hdr, hand, values, unseen, seats, gave_up) -> np.ndarray:
    """(F,) float64 features of one seat's agent view; seats relative to the observer (0 = itself, r = r places on).

    Blocks, in order: phase (challenge active, the seat is challenger, is defender); hand and unseen cards per
    type (/4, /8); draw pile (/40) and round (/5); top discard one-hot (T); challenge asset one-hot (nA), pot
    value ($100k) and cards shown (/6); challenger and defender one-hot (relative seats, P each); per relative
    seat: hand size (/5), sets (/10), has a top set, its value seen ($100k), hidden cards, size (/4), its asset
    one-hot (nA); per relative seat and type, the public ``gave_up`` record.
    """
    p, na, nw = hdr[H_P], hdr[H_NA], hdr[H_NW]
    t = na + nw
    me = hdr[H_SEAT]
    out = np.zeros(3 + 2 * t + 2 + t + na + 2 + 2 * p + p * (6 + na) + p * t)
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
    return out


@njit(cache=True)
def mlp_action(x, w1, b1, w2, b2, w3, b3, relu, mask) -> int:
    """The legal action of highest logit of the MLP ``logits = W3' h2 + b3``, ``h_k = act(W_k' h_{k-1} + b_k)``.

    Shapes: x (F,), w1 (F, H1), w2 (H1, H2), w3 (H2, A), b_k their columns; relu: 1 for ReLU, 0 for tanh;
    mask (A,) bool. Returns -1 when no action is legal.
    """
    h1 = x @ w1 + b1
    h1 = np.maximum(h1, 0.0) if relu else np.tanh(h1)
    h2 = h1 @ w2 + b2
    h2 = np.maximum(h2, 0.0) if relu else np.tanh(h2)
    logits = h2 @ w3 + b3
    best, best_v = -1, -np.inf
    for a in range(mask.shape[0]):
        if mask[a] and logits[a] > best_v:
            best, best_v = a, logits[a]
    return best


@njit(cache=True)
def compatible(hdr, mask, players, n_in, n_out) -> int:
    """1: the view is of the game a network was trained for (classic rules, ``players`` seats, its input and output
    sizes); 0: the classic game at another table size; -1: rules with the advanced cards or draft piles."""
    if hdr[H_ADV] != 0 or hdr[H_DRAFT] != 0:
        return -1
    p, na, nw = hdr[H_P], hdr[H_NA], hdr[H_NW]
    t = na + nw
    f = 3 + 2 * t + 2 + t + na + 2 + 2 * p + p * (6 + na) + p * t
    if p != players or f != n_in or mask.shape[0] != n_out:
        return 0
    return 1


_MODULE = '''"""A learned policy (generated by agents.learned.write_plugin from {npz}; weights sha256 {digest}).

Spec: {module}:decide. Trained for {players} players; see {npz_name}'s metadata and experiments/train_learned.py.
"""
from pathlib import Path

import numpy as np
from numba import njit

from agents.heuristic import heuristic_decide
from agents.learned import compatible, features, mlp_action

_W = np.load(Path(__file__).with_name("{npz_name}"))
W1, B1, W2, B2, W3, B3 = (np.ascontiguousarray(_W[k], np.float64) for k in ("W1", "b1", "W2", "b2", "W3", "b3"))
RELU = int(_W["relu"])
PLAYERS = int(_W["players"])
GREEDY = np.array([1, 30000, 0, 40000, 1, 0, 0, 0, 0, 0, 20000, 1, 1, 1], np.float64)  # heuristic's defaults


@njit(cache=True)
def decide(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    """The network's legal action of highest logit; outside what it was trained for (agents.learned.compatible),
    greedy's action in the classic game, else the first legal action."""
    c = compatible(hdr, mask, PLAYERS, W1.shape[0], W3.shape[1])
    if c == 1:
        return mlp_action(features(hdr, hand, values, unseen, seats, gave_up), W1, B1, W2, B2, W3, B3, RELU, mask)
    if c == 0:
        return heuristic_decide(GREEDY, hdr, hand, values, unseen, seats, mask)
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return 0
'''


def write_plugin(path: str | Path, weights: dict[str, np.ndarray], players: int, relu: bool,
                 meta: dict[str, str] | None = None) -> Path:
    """Write ``NAME.npz`` (the weights, ``relu``, ``players`` and ``meta`` strings) and the plug-in ``NAME.py``.

    Args:
        path: ``.../NAME`` (any suffix is dropped); the folder must be importable (a package) for the spec
            ``package.NAME:decide``. weights: ``W1 (F, H1), b1, W2 (H1, H2), b2, W3 (H2, A), b3`` float arrays.
        players: the table size it was trained for. relu: hidden activation (else tanh). meta: strings kept
            in the npz (``meta_<key>``: command, seed...).

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
    npz = path.with_suffix(".npz")
    extra = {f"meta_{k}": np.array(str(v)) for k, v in (meta or {}).items()}
    np.savez(npz, **w, relu=np.array(int(relu)), players=np.array(int(players)), **extra)
    digest = hashlib.sha256(npz.read_bytes()).hexdigest()
    module = ".".join([*_package_of(path.parent), path.name]) if _package_of(path.parent) else path.name
    src = _MODULE.format(npz=str(npz), digest=digest, module=module, players=players, npz_name=npz.name)
    py = path.with_suffix(".py")
    py.write_text(src)
    return py


def rewrite_plugin(npz: str | Path) -> Path:
    """Regenerate the plug-in module of an existing weights file (after a change of the module template).

    Returns:
        the path of the generated module.
    """
    npz = Path(npz)
    w = np.load(npz)
    meta = {k[5:]: str(w[k]) for k in w.files if k.startswith("meta_")}
    weights = {k: w[k] for k in ("W1", "b1", "W2", "b2", "W3", "b3")}
    return write_plugin(npz.with_suffix(""), weights, int(w["players"]), bool(int(w["relu"])), meta)


def _package_of(folder: Path) -> list[str]:
    """Dotted package parts of ``folder`` (walking up while ``__init__.py`` exists)."""
    parts: list[str] = []
    f = folder.resolve()
    while (f / "__init__.py").exists():
        parts.insert(0, f.name)
        f = f.parent
    return parts
