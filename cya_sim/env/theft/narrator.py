"""The theft game's narrator of the terminal (``cya-sim play --human SEAT``; RULES.md §9, §10).

Totals are points; a first asset's face-down card is ``a hidden card`` to the other seats, and every first asset
stays unseen until all are laid (R-T-SETUP), as :mod:`cya_sim.engine.theft.observation` says; at the end the
face-down cards are turned up for the score (R-T-END).
"""

from __future__ import annotations

from collections.abc import Callable

from cya_sim.engine.theft.observation import AssetView, TheftObservation
from cya_sim.env.game import EnvGame
from cya_sim.env.narration import Narrator
from cya_sim.game.theft.state import TheftState


class TheftNarrator(Narrator):
    """Readable lines of each theft-game move (RULES.md §9) as seen by ``viewer`` (a seat, or -1: public only).

    Reads the full :class:`~cya_sim.game.theft.state.TheftState` to decide what is public and writes only what
    the viewer may know (§10 for §9, :mod:`cya_sim.engine.theft.observation`): other hands are counts, a first
    asset's face-down card is ``a hidden card`` unless the viewer laid it or stole it, first assets are
    shown once every seat has laid one (R-T-SETUP), and the other seats' draws are counts. At the end the
    face-down cards are turned up for the score (R-T-END). Totals are points.
    """

    def __init__(self, game: EnvGame, viewer: int, out: Callable[[str], None]) -> None:
        super().__init__(game, viewer, out)
        self.rules = game.rules
        self.names = game.rules.card_names

    def _cards(self, cards) -> str:
        return ", ".join(self.names[c] for c in cards) or "nothing"

    def asset_text(self, state: TheftState, owner: int, slot: int, reveal: bool = False) -> str:
        """``3+5=8``, or ``a hidden card+7 worth 8 to 17`` for a face-down card the viewer does not know."""
        a = state.assets[owner][slot]
        public = state.public_mask
        known = [reveal or k == public or (self.viewer >= 0 and bool(k >> self.viewer & 1)) for k in a.known_by]
        return self._asset_words([c for c, k in zip(a.cards, known) if k], known.count(False))

    def _asset_words(self, cards, n_hidden: int) -> str:
        values = self.rules.values
        seen = sum(int(values[c]) for c in cards)
        parts = ["a hidden card"] * n_hidden + [self.names[c] for c in cards]
        if not n_hidden:
            return "+".join(parts) + f"={seen}"
        lo, hi = self._hidden_range()
        return "+".join(parts) + f" worth {seen + n_hidden * lo} to {seen + n_hidden * hi}"

    def _hidden_range(self) -> tuple[int, int]:
        r = self.rules  # a hidden card is a number or a gold card (cya_sim.engine.theft.observation.observe)
        lo = min(1, r.gold_value) if r.gold_cards else 1
        hi = max(r.numbers, r.gold_value) if r.gold_cards else r.numbers
        return lo, hi

    def view_text(self, v: AssetView) -> str:
        """An asset of an observation, as :meth:`asset_text` writes it."""
        return self._asset_words(v.cards, v.n_hidden)

    def assets_text(self, state: TheftState, owner: int, reveal: bool = False) -> str:
        """``[3+5=8, 7+7=14]``: a seat's assets as the viewer knows them, oldest first."""
        return "[" + ", ".join(self.asset_text(state, owner, i, reveal) for i in range(len(state.assets[owner]))) + "]"

    def opening(self) -> list[str]:
        """The first player and the deal (R-T-SETUP); the viewer's own hand is shown at its decisions."""
        st = self.game.state
        line = (f"{self.who(st.first_player)} moves first (chosen at random, R-T-SETUP); each seat is dealt "
                f"{self.rules.hand_size} cards and lays a first asset, one card face-down and one face-up")
        return [line]

    @staticmethod
    def snapshot(state: TheftState) -> dict:
        """What :meth:`move` needs from the state before a move."""
        return {"phase": state.phase, "turns": state.turns, "discard": list(state.discard_pile),
                "hands": [list(h) for h in state.hands], "final": state.final_turns_left,
                "theft": state.theft, "n_assets": [len(a) for a in state.assets]}

    def move(self, before: dict, seat: int, action: int, state: TheftState) -> None:
        """Narrate ``action`` of ``seat`` and what followed it (a new turn, its draw, R-T-END, the end)."""
        d = self.game.space.decode(action)
        w = self.who(seat)
        if d.kind == "first_asset":
            if seat == self.viewer:
                down, up = d.cards
                self.out(f"{w} lays a first asset: {self.names[down]} face-down, {self.names[up]} face-up")
            else:
                self.out(f"{w} lays a first asset (unseen until every seat has laid one, R-T-SETUP)")
        elif d.kind == "build":
            self.out(f"{w} builds {self.asset_text(state, seat, len(state.assets[seat]) - 1)}")
        elif d.kind == "theft":
            th = state.theft
            self.out(f"{w} plays a {self.names[th.card]} on {self.who(th.target)}'s asset #{th.slot} "
                     f"({self.asset_text(state, th.target, th.slot)})")
        elif d.kind in ("cancel_pair", "cancel_gold"):
            what = "+".join(self.names[c] for c in d.cards) if d.kind == "cancel_pair" else "a gold card"
            self.out(f"  {w} cancels it with {what} from hand; the cards go to the discard pile")
        elif d.kind == "give_up_asset":
            given = state.discard_pile[len(before["discard"]) + 1:]  # after the theft card: public now
            self.out(f"  {w} cancels it by giving up its asset #{d.slot} ({self._cards(given)}, now in the "
                     "discard pile)")
        elif d.kind == "let_pass":
            th = before["theft"]
            slot = len(state.assets[th.thief]) - 1
            self.out(f"  {w} lets it pass: {self.who(th.thief)} takes the asset "
                     f"({self.asset_text(state, th.thief, slot)})")
        elif d.kind == "end_turn":
            self.out(f"{w} ends its turn holding {state.hand_count(seat)} cards")
        elif d.kind == "discard":
            self.out(f"{w} discards {self.names[d.cards[0]]}")
        self._after(before, seat, state)

    def _after(self, before: dict, seat: int, state: TheftState) -> None:
        if before["phase"] == "setup" and state.phase != "setup":  # R-T-SETUP: every first asset is laid
            self.out("first assets: " + "; ".join(f"{self.who(s)} {self.assets_text(state, s)}"
                                                  for s in range(state.n_players)))
        old = before["discard"]
        if state.discard_pile[:len(old)] != old:
            self.out("  the draw pile ran out: the discard pile is shuffled into a new draw pile (R-T-TURN)")
        if before["final"] is None and state.final_turns_left is not None:
            s = state.trigger_seat
            self.out(f"{self.who(s)} has {len(state.assets[s])} assets at the end of a turn: every other player "
                     "gets one more turn (R-T-END)")
        if state.turns != before["turns"] and state.phase != "over":
            mover = state.current_player
            drawn = [c for c in range(self.rules.n_types)
                     for _ in range(state.hands[mover][c] - before["hands"][mover][c])]
            if mover == self.viewer:
                cards = f": {self._cards(drawn)}"
            else:
                cards = f" {len(drawn)} card{'s' if len(drawn) != 1 else ''}"
            last = " (a last turn, R-T-END)" if state.final_turns_left is not None else ""
            self.out(f"turn {state.turns}{last}: {self.who(mover)} draws{cards}; draw pile {len(state.draw_pile)}")

    def decision_lines(self, obs: TheftObservation) -> list[str]:
        """The lines shown to a human at its decision: hand, piles, every seat as it may see it, a pending theft."""
        nm = self.names
        hand = ", ".join(nm[c] for c in range(len(obs.hand)) for _ in range(int(obs.hand[c]))) or "empty"
        top = nm[obs.discard_pile[-1]] if obs.discard_pile else "none"
        st = self.game.state
        lines = [f"--- seat {obs.seat}, your decision (turn {st.turns}, {obs.phase}) ---", f"your hand: {hand}",
                 f"draw pile: {obs.draw_size} cards; discard pile: {len(obs.discard_pile)} cards, top {top}"]
        for s in range(obs.n_players):
            views = obs.assets[s]
            lo, hi = sum(v.value_low for v in views), sum(v.value_high for v in views)
            points = f"{lo} points" if lo == hi else f"{lo} to {hi} points"
            shown = "[" + ", ".join(f"#{v.slot} {self.view_text(v)}" for v in views) + "]"
            if obs.phase == "setup" and s != obs.seat:
                shown, points = "[first asset unseen until every seat has laid one]", "? points"
            lines.append(f"  {self.who(s)}: {int(obs.hand_sizes[s])} cards in hand, assets {shown}; {points}")
        if obs.theft is not None:
            th = obs.theft
            v = obs.assets[th.target][th.slot]
            lines.append(f"theft: {self.who(th.thief)} plays a {nm[th.card]} on {self.who(th.target)}'s asset "
                         f"#{th.slot} ({self.view_text(v)}): cancel it or let it pass")
        if obs.final_turns_left is not None:
            lines.append(f"R-T-END: {obs.final_turns_left} last turn(s) to play, this one included")
        return lines

    def closing(self) -> list[str]:
        """Every seat's assets with the face-down cards turned up, the points and the winners (R-T-END)."""
        st = self.game.state
        lines = [f"{self.who(s)} scores {p} points: assets {self.assets_text(st, s, reveal=True)}"
                 for s, p in enumerate(st.scores())]
        cap = " (the turn cap max_turns stopped it; not a rule)" if st.capped else ""
        lines.append(f"game over after {st.turns} turns{cap}: winner(s) " + ", ".join(self.who(s) for s in st.winners)
                     + "; points " + ", ".join(f"seat {s} {p}" for s, p in enumerate(st.scores())))
        return lines


#: The narrator the terminal finds by the family's name (:mod:`cya_sim.env.narration`).
NARRATOR = TheftNarrator
