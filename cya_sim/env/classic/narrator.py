"""The classic family's narrator of the terminal (``cya-sim play --human SEAT``; RULES.md §1-8, §10).

Every move is narrated as it happens, with only what the viewer may know: a hidden set card (R-HIDDEN-WILD) is
written ``a hidden card`` and a set's value as the range it can be in (a hidden card could be a wild); the §6 and
§7 actions (R-ADV-*, R-2P-DRAFT, R-3P-DRAFT) have their own lines. Totals are dollars.
"""

from __future__ import annotations

from collections.abc import Callable

from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.env.game import EnvGame
from cya_sim.env.narration import Narrator
from cya_sim.game.classic.state import GameState

#: The §6 action kinds narrated by :meth:`ClassicNarrator._advanced_move` (RULES.md §6).
ADVANCED_KINDS = ("end_turn", "improve", "swap", "move", "deep_challenge", "respond_two")


def _money(v: int) -> str:
    return f"${v:,}"


class ClassicNarrator(Narrator):
    """Readable lines of each move as seen by ``viewer`` (a seat, or -1 for public information only).

    Reads the full state to decide what is public; writes only what the viewer may know (§10). Totals in dollars.
    """

    def __init__(self, game: EnvGame, viewer: int, out: Callable[[str], None]) -> None:
        super().__init__(game, viewer, out)
        self.names = game.rules.deck.names
        self.values = game.rules.deck.values

    def _known(self, known_by: int, state: GameState) -> bool:
        return known_by == state.public_mask or (self.viewer >= 0 and bool(known_by >> self.viewer & 1))

    def set_text(self, state: GameState, owner: int, index: int = -1) -> str:
        """A set as the viewer knows it: its cards (hidden ones as ``a hidden card``) and value."""
        s = state.stacks[owner][index]
        return self.cards_text(s.asset, [(c, self._known(k, state)) for c, k in zip(s.cards, s.known_by)])

    def cards_text(self, asset: int, cards: list[tuple[int, bool]]) -> str:
        """``Jewels set [Jewels, a hidden card] worth $15,000 to $65,000`` from (card, known) pairs."""
        shown = [self.names[c] for c, known in cards if known]
        n_hidden = sum(1 for _, known in cards if not known)
        base = sum(int(self.values[c]) for c, known in cards if known)
        parts = ", ".join(shown + ["a hidden card"] * n_hidden)
        if not n_hidden:
            return f"{self.names[asset]} set [{parts}] worth {_money(base)}"
        deck = self.game.rules.deck
        options = [int(self.values[asset])] + [int(v) for v in self.values[deck.n_assets:]]
        lo, hi = base + n_hidden * min(options), base + n_hidden * max(options)
        worth = _money(lo) if lo == hi else f"{_money(lo)} to {_money(hi)}"
        return f"{self.names[asset]} set [{parts}] worth {worth}"

    def _pair_text(self, seat: int, d, top: int) -> tuple[str, str]:
        """(source, set text) of a pair just laid by ``seat`` (R-PAIR-HAND, R-PAIR-DISCARD, R-HIDDEN-WILD)."""
        hidden_ok = seat == self.viewer or not self.game.rules.hidden_wilds
        if d.kind == "pair_hand":
            partner = d.card if d.partner < 0 else d.partner
            return "from hand", self.cards_text(d.card, [(partner, hidden_ok), (d.card, True)])
        src = f"with the {self.names[top]} from the discard pile"
        if top < self.game.rules.deck.n_assets:  # the hand card goes beneath the face-up asset
            return src, self.cards_text(top, [(d.card, hidden_ok), (top, True)])
        return src, self.cards_text(d.card, [(top, True), (d.card, True)])

    def move(self, before: dict, seat: int, action: int, state: GameState) -> None:
        """Narrate ``action`` of ``seat``; ``before`` is :meth:`snapshot` taken just before it."""
        d = self.game.space.decode(action)
        nm = self.names
        w = self.who(seat)
        if d.kind in ("pair_hand", "pair_discard"):
            src, text = self._pair_text(seat, d, before["top"])
            self.out(f"{w} lays a set {src}: {text}")
        elif d.kind == "discard":
            self.out(f"{w} discards {nm[d.card]}")
        elif d.kind == "challenge":
            target = (seat + d.offset) % self.game.n_players
            ch = state.challenge
            self.out(f"{w} challenges {self.who(target)} for its top {self.set_text(state, target)}")
            self.out(f"  {w} shows {nm[ch.cards[-1]]}")
        elif d.kind == "respond":
            self.out(f"  {w} answers with {nm[state.challenge.cards[-1]]}")
        elif d.kind in ("draft_take", "draft_wild"):  # R-2P-DRAFT, R-3P-DRAFT
            played = d.card if d.kind == "draft_take" else d.partner
            self.out(f"{w} drafts with {nm[played]}: a set of {nm[d.card]} from the draft piles")
        elif d.kind == "draft_challenge":
            self.out(f"  {w} challenges the drafted set at once")
            self.out(f"  {w} shows {nm[state.challenge.cards[-1]]}")
        elif d.kind == "draft_decline":
            self.out(f"  {w} lets the drafted set be")
        elif d.kind == "draft_move":  # §7 with §6: the choice for a Move turned up on a draft pile
            self.out(f"  {w} chooses for the Move turned up: {d.direction.replace('_', ' ')}")
        elif d.kind in ADVANCED_KINDS:
            self._advanced_move(w, seat, d, state, state.round == before["round"])
        else:
            self.out(f"  {w} gives up")
            ch = before["challenge"]
            winner = ch[1] if seat == ch[0] else ch[0]
            if winner == ch[0]:
                won = f": {self.set_text(state, winner)}" if state.round == before["round"] else ""
                self.out(f"  {self.who(winner)} wins the challenge and takes the set{won}")
            else:
                self.out(f"  {self.who(winner)} defends its set")
        if state.round != before["round"] or state.winners is not None:
            scores = [t - b for t, b in zip(state.totals, before["totals"])]
            self.out(f"round {before['round']} ends: scores " + ", ".join(
                f"seat {s} {_money(v)}" for s, v in enumerate(scores)) + "; totals " + ", ".join(
                f"seat {s} {_money(v)}" for s, v in enumerate(state.totals)))
            if state.winners is None:
                self.out(f"round {state.round}: seat {state.dealer} deals; the discard pile shows "
                         f"{nm[state.discard_pile[-1]]}")

    def _advanced_move(self, w: str, seat: int, d, state: GameState, same_round: bool = True) -> None:
        """Narrate a §6 action (R-ADV-TWO end_turn, R-ADV-IMPROVE, R-ADV-SWAP, R-ADV-MOVE, R-ADV-DEEP,
        R-ADV-PENNY's two-card answer), showing sets as :meth:`set_text` does (R-HIDDEN-WILD). ``same_round``
        False: the action ended the round (its last card), and the new round's deal has cleared every stack
        (R-SETUP), so the sets are not shown (the round's scores follow)."""
        nm = self.names
        n = self.game.n_players
        if d.kind == "end_turn":
            self.out(f"{w} ends its turn")
        elif d.kind == "improve":
            self.out(f"{w} improves its top set" + (f": {self.set_text(state, seat)}" if same_round else ""))
        elif d.kind == "swap":
            target = (seat + d.offset) % n
            if not same_round:
                self.out(f"{w} plays Swap with {self.who(target)}")
            else:
                self.out(f"{w} plays Swap with {self.who(target)}: it now has {self.set_text(state, seat)}, "
                         f"{self.who(target)} has {self.set_text(state, target)}")
        elif d.kind == "move":
            target = (seat + d.offset) % n
            where = "its top set to the bottom" if d.direction == "top_to_bottom" else "its bottom set to the top"
            self.out(f"{w} plays Move on {self.who(target)}: {where}")
        else:  # deep_challenge, respond_two: one or two cards shown
            shown = state.challenge.cards[-(1 if d.second == -2 else 2):]
            if d.kind == "deep_challenge":
                target = (seat + d.offset) % n
                self.out(f"{w} challenges {self.who(target)} for the set second from the top")
            self.out(f"  {w} shows " + " and ".join(nm[c] for c in shown))

    def opening(self) -> list[str]:
        """The lines after the table line: the first round's deal (R-SETUP)."""
        st = self.game.state
        return [f"round 1: seat {st.dealer} deals; the discard pile shows {self.names[st.discard_pile[-1]]}"]

    def decision_lines(self, obs: Observation) -> list[str]:
        """What a human sees at its decision (:func:`describe`)."""
        return describe(obs, self)

    def closing(self) -> list[str]:
        """The game-over line: winners and final totals in dollars (R-GAME-END, R-SCORE)."""
        st = self.game.state
        return ["game over: winner(s) " + ", ".join(self.who(s) for s in st.winners) + "; final totals "
                + ", ".join(f"seat {s} {_money(t)}" for s, t in enumerate(st.totals))]

    @staticmethod
    def snapshot(state: GameState) -> dict:
        """What :meth:`move` needs from the state before a move."""
        ch = state.challenge
        return {"round": state.round, "totals": list(state.totals),
                "top": state.discard_pile[-1] if state.discard_pile else -1,
                "challenge": (ch.challenger, ch.defender) if ch else None}


def describe(obs: Observation, narrator: ClassicNarrator) -> list[str]:
    """The lines shown to a human at its decision: hand, table as it may see it, totals, challenge."""
    nm = obs.rules.deck.names
    st = narrator.game.state
    lines = [f"--- seat {obs.seat}, your decision (round {obs.round}) ---",
             "your hand: " + (", ".join(f"{nm[c]} x{int(n)}" for c, n in enumerate(obs.hand) if n) or "empty"),
             f"discard pile: {len(obs.discard_pile)} cards, top " + (nm[obs.top_discard] if obs.discard_pile
                                                                     else "none") + f"; draw pile: {obs.draw_size}"]
    for s in range(obs.n_players):
        n = len(obs.stacks[s])
        top = f"top {narrator.set_text(st, s)}" if n else "no sets"
        lines.append(f"  {narrator.who(s)}: {int(obs.hand_sizes[s])} cards in hand, {n} sets, {top}; "
                     f"total {_money(int(obs.totals[s]))}")
    if obs.draft_sizes:  # §10: the face-up tops and the sizes of the draft piles
        lines.append("draft piles: " + ", ".join(
            f"{j}: {nm[c] if c >= 0 else 'face-down'} ({n} cards)"
            for j, (c, n) in enumerate(zip(obs.draft_tops, obs.draft_sizes, strict=True)))
            + f"; you may draft from {', '.join(map(str, obs.draft_reach))}")
    if obs.challenge is not None:
        c = obs.challenge
        lines.append(f"challenge: seat {c.challenger} against seat {c.defender} over {nm[c.asset]}; cards shown: "
                     + ", ".join(nm[x] for x in c.cards))
    return lines


#: The narrator the terminal finds by the family's name (:mod:`cya_sim.env.narration`).
NARRATOR = ClassicNarrator
