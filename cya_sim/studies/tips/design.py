"""The design of a tip study: its cells and their ablation experiments, and the TIP-HIDE-WILD comparison's.

A study (:class:`Study`, read from its file by :mod:`cya_sim.studies.tips.studyfile`) lists tips, each a
treatment and a control agent spec (the same ``heuristic`` with only the tip's switch changed), and the
contexts: table sizes, rule presets and fields. Each context *cell* (preset, field, P) is one experiment of
``design.kind = "ablation"`` (:mod:`cya_sim.runs.experiment`): every arm sits against P - 1 copies of the field
on the same duplicated deals, seats rotated, so treatment and control play the same cards in the same seats
against the same opponents. A cell plays ``deals x arms x P`` games into its own results folder (resumable).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cya_sim.runs.experiment import Experiment, ExperimentError, RunOptions, parse_experiment

#: The conditions of the TIP-HIDE-WILD comparison: (name, rule option hidden_wilds, field agent).
HIDE_CONDITIONS = (("hidden, naive field", True, "card_counter(infer_hidden=false)"),
                   ("hidden, inferring field", True, "card_counter(infer_hidden=true)"),
                   ("revealed", False, "card_counter(infer_hidden=true)"))


@dataclass(frozen=True)
class Study:
    """A validated tip study.

    Attributes:
        name: identifier. seed: root seed (every cell derives its own seed from it and its position).
        deals: (S,) duplicated deals per cell at each table size (:meth:`deals_at`). players: (S,) table sizes. presets: rule presets. fields: field agents.
        tips: (id, treatment spec, control spec) per tip. reasons: id -> why it has no verdict row.
        margin_pp: TOST margin, percentage points of win rate. confidence: two-sided level.
        log_deals: deals per cell replayed with action logs (the inert check; <= deals).
        trace_deals: of those, deals replayed on the reference engine for per-round records (<= log_deals).
        out: study folder. workers: local worker processes (None: all cores). quick: the --quick form.
        source: the study file.
        pilot: pilot verdict tables (CSV paths, :func:`plan_deals`); with ``target_half_width_pp`` they fix
            the deals of each cell (the two-stage allocation); empty: ``deals`` everywhere.
        target_half_width_pp: the win-rate half-width (pp) every non-inert row should reach (None: no target).
        pilot_inflation: factor (>= 1) on the planned deals against the pilot's sampling error.
        planned: (preset, field, P) -> deals, filled by :func:`plan_deals` (empty: ``deals_at``).
        hide_wild: the TIP-HIDE-WILD comparison (:data:`HIDE_KEYS`), None to skip it.
        only: cell names (``classic-greedy-2p``) and/or ``hide`` to run and analyse only those (a
            reproduction check; each cell keeps its seed and deals); empty: everything.
        players_by_preset: preset -> the table sizes (a subset of ``players``) at which it is played, for
            presets that allow only some sizes (``two_player_draft`` only 2); a preset not named plays every
            size of ``players``. Empty: every preset at every size (the cells are the full product).
    """

    name: str
    seed: int
    deals: tuple[int, ...]
    players: tuple[int, ...]
    presets: tuple[str, ...]
    fields: tuple[str, ...]
    tips: tuple[tuple[str, str, str], ...]
    reasons: tuple[tuple[str, str], ...] = ()
    margin_pp: float = 0.5
    confidence: float = 0.95
    log_deals: int = 200
    trace_deals: int = 20
    out: Path = Path("results/tips")
    workers: int | None = None
    quick: bool = False
    source: Path | None = None
    description: str = ""
    pilot: tuple[Path, ...] = ()
    target_half_width_pp: float | None = None
    pilot_inflation: float = 1.1
    planned: Mapping[tuple[str, str, int], int] = field(default_factory=dict)
    hide_wild: Mapping[str, Any] | None = None
    only: tuple[str, ...] = ()
    players_by_preset: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def arms(self) -> tuple[str, ...]:
        """Distinct treatment and control specs in order of first mention."""
        return tuple(dict.fromkeys(a for _i, t, c in self.tips for a in (t, c)))

    def deals_at(self, p: int) -> int:
        """Duplicated deals per cell at table size ``p`` (the ``deals`` field, before any pilot plan)."""
        return self.deals[self.players.index(p)]

    def deals_of(self, preset: str, fld: str, p: int) -> int:
        """Duplicated deals of one cell: the pilot plan's (:func:`plan_deals`) when it has the cell, else ``deals_at``."""
        return int(self.planned.get((preset, fld, p), self.deals_at(p)))

    def all_cells(self) -> list[tuple[str, str, int]]:
        """(preset, field, P) of every cell of the study file, ``only`` ignored (a cell's seed is its position here).

        The product presets x fields x players, keeping for each preset only its sizes in ``players_by_preset``.
        """
        return [(pr, f, p) for pr in self.presets for f in self.fields for p in self.players
                if p in self.players_by_preset.get(pr, self.players)]

    def cells(self) -> list[tuple[str, str, int]]:
        """(preset, field, P) of every cell to run and analyse, in run order (those named in ``only`` when given)."""
        return [c for c in self.all_cells() if not self.only or self.cell_name(*c) in self.only]

    def cell_name(self, preset: str, fld: str, p: int) -> str:
        """Folder name of a cell inside ``out/cells``."""
        return f"{preset}-{fld}-{p}p"

    def experiment(self, preset: str, fld: str, p: int) -> Experiment:
        """The ablation experiment of one cell: ``deals x arms x P`` games, duplicate deals, seats rotated.

        Raises:
            ExperimentError: a field the experiment refuses (named).
        """
        i = self.all_cells().index((preset, fld, p)) if (preset, fld, p) in self.all_cells() else 0
        doc = {
            "name": f"{self.name}-{self.cell_name(preset, fld, p)}",
            "description": f"tip study {self.name}: ablation cell {preset}, field {fld}, {p} players",
            "seed": int(self.seed) * 1000 + i,
            "games": self.deals_of(preset, fld, p) * len(self.arms) * p,
            "players": p,
            "agents": [*self.arms, fld],
            "out": str(self.out / "cells" / self.cell_name(preset, fld, p)),
            "rules": {"preset": preset},
            "design": {"kind": "ablation", "field": fld,
                       "tips": [{"id": i_, "treatment": t, "control": c} for i_, t, c in self.tips]},
        }
        exp = parse_experiment(doc)
        return replace(exp, run=RunOptions(engine="batched", workers=self.workers))


def hide_experiments(study: Study) -> list[tuple[int, int, Experiment]]:
    """The experiments of the TIP-HIDE-WILD comparison: (P, condition index, experiment) per table size and condition.

    Per table size, one ``one_vs_field`` experiment per condition of
    :data:`HIDE_CONDITIONS` (the subject against P - 1 copies of the field,
    duplicate deals, seats rotated). The conditions of a table size share one
    seed, so they play the same deals (a deal depends only on the seed, its
    number and the deck) and the contrasts are paired on deals. Under
    ``hidden_wilds = false`` (R-HIDDEN-WILD) no card is hidden, so the field's
    inference switch changes nothing there and one revealed condition suffices.

    Raises:
        ExperimentError: an invalid subject or size, named (``hide_wild.subject``).
    """
    h = study.hide_wild
    if not h or (study.only and "hide" not in study.only):
        return []
    out = []
    for k, (p, deals) in enumerate(zip(h["players"], h["deals"])):
        seed = int(h["seed"]) * 1000 + k if h.get("seed") is not None else int(study.seed) * 1000 + 900 + k
        for j, (cname, hidden, fld) in enumerate(HIDE_CONDITIONS):
            doc = {"name": f"{study.name}-hide-{p}p-{j}", "seed": seed, "games": deals * p, "players": p,
                   "description": f"TIP-HIDE-WILD: {h['subject']} against {fld}, hidden_wilds={hidden}, {p} players",
                   "agents": [h["subject"], fld], "out": str(study.out / "hide" / f"{p}p-c{j}"),
                   "rules": {"preset": h["preset"], "options": {"hidden_wilds": hidden}},
                   "design": {"kind": "one_vs_field", "candidates": [h["subject"]], "field": fld, "duplicate": True}}
            try:
                exp = parse_experiment(doc)
            except ExperimentError as e:
                where = "subject" if e.field.startswith("agents[0]") else e.field
                raise ExperimentError(f"hide_wild.{where}", e.detail) from None
            out.append((p, j, replace(exp, run=RunOptions(engine="batched", workers=study.workers))))
    return out
