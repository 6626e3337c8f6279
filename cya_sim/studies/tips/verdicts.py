"""The verdicts of a tip study: of each tip x cell row, and of the measured claims FACT-1360, FACT-ROUNDS and
TIP-BIG-POT, in words.

A tip row's verdict (:func:`verdict`, after :func:`finish`): *inert* when the switch changed no decision in the
run (no paired game's action log differed in the logged sample and no paired game's outcome differed anywhere),
else *supported* / *refuted* when the Holm-adjusted difference test rejects (sign of the effect), else *no effect
within ±m* when the Holm-adjusted TOST rejects, else *inconclusive*.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cya_sim.reports.stats import holm

VERDICTS = ("supported", "refuted", "no effect within ±m", "inconclusive", "inert")


def verdict(effect: float, p_holm: float, tost_holm: float, inert: bool, alpha: float = 0.05) -> str:
    """The verdict of one tip row (module docstring): one of :data:`VERDICTS`.

    Args:
        effect: win-rate difference, treatment minus control. p_holm: Holm-adjusted p of no difference.
        tost_holm: Holm-adjusted TOST p. inert: the switch changed no decision in the run.
        alpha: 1 - confidence.
    """
    if inert:
        return "inert"
    if np.isfinite(p_holm) and p_holm < alpha:
        return "supported" if effect > 0 else "refuted"
    if np.isfinite(tost_holm) and tost_holm < alpha:
        return "no effect within ±m"
    return "inconclusive"


def finish(effects: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Holm over the family (every non-inert row of the study) and the verdicts.

    A row is *inert* when no paired game's outcome differed and no logged
    paired game's actions differed (``pairs_outcome_changed == 0`` and
    ``decisions_changed == 0``); inert rows carry no test (p columns NaN).

    Returns:
        ``effects`` with ``inert``, ``p_holm``, ``p_tost_holm``, ``verdict`` and ``half_width_pp`` added.
    """
    df = effects.copy()
    df["inert"] = (df["pairs_outcome_changed"] == 0) & (df["decisions_changed"] == 0)
    p = np.where(df["inert"], np.nan, df["p"].to_numpy(np.float64))
    pt = np.where(df["inert"], np.nan, df["p_tost"].to_numpy(np.float64))
    df["p_holm"], df["p_tost_holm"] = holm(p), holm(pt)
    alpha = 1.0 - confidence
    df["verdict"] = [verdict(e, a, b, i, alpha) for e, a, b, i in
                     zip(df["win_diff"], df["p_holm"], df["p_tost_holm"], df["inert"])]
    df["half_width_pp"] = 100.0 * (df["win_high"] - df["win_low"]) / 2.0
    return df


def _sizes(ps) -> str:
    """``2``, ``2 and 3``, ``4–6``: table sizes in words."""
    ps = sorted({int(p) for p in ps})
    if len(ps) > 2 and ps == list(range(ps[0], ps[-1] + 1)):
        return f"{ps[0]}–{ps[-1]}"
    return " and ".join(map(str, ps)) if len(ps) <= 2 else ", ".join(map(str, ps[:-1])) + f" and {ps[-1]}"


def fact_1360_verdict(fact: pd.DataFrame) -> str:
    """Whether FACT-1360 holds in the stored rounds, in words: ``holds``, ``holds only ...`` or ``does not hold``.

    The claim (TIPS.md, seed 001): at most $1,360,000 can be scored in one
    round, less the discard pile. Checked per stored round (:func:`trace_rounds`):
    the invariant (stacks + discard + draw pile + hands (+ leftover draft
    cards) = the deck in play) and the largest round score.
    """
    failures = int(fact["invariant_failures"].sum())
    checked = int(fact["rounds_checked"].sum())
    if failures:
        where = fact[fact["invariant_failures"] > 0]
        return (f"does not hold: {failures} of {checked:,} stored rounds break the round invariant ("
                + ", ".join(f"{x.preset}/{x.field}/{x.players}p" for x in where.itertuples()) + ")")
    over = fact[fact["over_1360000"] > 0]
    if len(over):
        ok = sorted(set(fact["preset"]) - set(over["preset"]))
        return (f"holds only for decks worth at most $1,360,000 a round{' (' + ', '.join(ok) + ')' if ok else ''}: "
                f"{int(over['over_1360000'].sum()):,} rounds under {', '.join(sorted(set(over['preset'])))} scored "
                f"more, up to ${int(over['max_scored'].max()):,} (the deck in play there is "
                f"${int(over['deck_value'].max()):,}); every round's total equals the deck in play ({checked:,} "
                "rounds, no failure)")
    return (f"holds: {checked:,} stored rounds, none scored more than $1,360,000 (largest "
            f"${int(fact['max_scored'].max()):,}), every round's total equals the deck in play")


def fact_rounds_verdict(rounds: pd.DataFrame) -> str:
    """Whether FACT-ROUNDS holds, in words: a game *usually* (in more than half of the games) lasts 3–5 rounds
    (seed 002) or 4–5 (seed 000).

    A context counts as holding when the deal-clustered 95% interval of the
    share lies above 50% (the point estimate when a stored table has no
    interval), as not holding when it lies below; the claim is then stated per
    table size over every preset and field.
    """
    parts = []
    for k, label in (("in_3_5", "3–5 rounds (seed 002)"), ("in_4_5", "4–5 rounds (seed 000)")):
        lo = rounds[f"{k}_low"] if f"{k}_low" in rounds else rounds[k]
        hi = rounds[f"{k}_high"] if f"{k}_high" in rounds else rounds[k]
        groups: dict[str, list[int]] = {"yes": [], "mixed": [], "no": []}
        for p, g in rounds.groupby("players"):
            yes, no = (lo[g.index] > 0.5).all(), (hi[g.index] < 0.5).all()
            groups["yes" if yes else "no" if no else "mixed"].append(int(p))

        def share(sizes: list[int], k: str = k) -> str:
            d = rounds[rounds["players"].isin(sizes)][k]
            return f"{100 * d.min():.1f}–{100 * d.max():.1f} % of games"

        if not groups["mixed"] and not groups["no"]:
            parts.append(f"{label}: holds ({share(groups['yes'])})")
        elif not groups["mixed"] and not groups["yes"]:
            parts.append(f"{label}: does not hold ({share(groups['no'])})")
        else:
            text = []
            if groups["yes"]:
                text.append(f"holds only at {_sizes(groups['yes'])} players ({share(groups['yes'])})")
            if groups["mixed"]:
                text.append(("" if groups["yes"] else "holds only ") + f"in some contexts at {_sizes(groups['mixed'])} "
                            f"players ({share(groups['mixed'])})")
            if groups["no"]:
                text.append(f"not at {_sizes(groups['no'])} ({share(groups['no'])})")
            parts.append(f"{label}: " + "; ".join(text))
    return "; ".join(parts)


def big_pot_verdict(big_pot: pd.DataFrame) -> str:
    """Whether TIP-BIG-POT holds, in words: holding the largest set at a round's end goes with a chance of winning
    the game above the base rate 1/P (deal-clustered 95% interval above it).
    """
    above = big_pot[big_pot["low"] > big_pot["base_rate"]]
    below = big_pot[big_pot["high"] < big_pot["base_rate"]]
    rng = (f"P(win | held the largest set) {100 * big_pot['p_win_held'].min():.1f}–"
           f"{100 * big_pot['p_win_held'].max():.1f} % against 1/P = {100 * big_pot['base_rate'].min():.1f}–"
           f"{100 * big_pot['base_rate'].max():.1f} %")
    n = len(big_pot)
    if len(above) == n:
        return f"holds: above the base rate in all {n} contexts ({rng})"
    if len(below) == n:
        return f"does not hold: below the base rate in all {n} contexts ({rng})"
    if not len(above):
        return f"not shown: no context's interval lies above the base rate ({rng})"
    rest = big_pot[~big_pot.index.isin(above.index)]
    return (f"holds only in {len(above)} of {n} contexts ({rng}); not shown at "
            + ", ".join(f"{x.preset}/{x.field}/{x.players}p" for x in rest.itertuples())
            + " (interval includes 1/P)" + (f"; below it at {len(below)}" if len(below) else ""))
