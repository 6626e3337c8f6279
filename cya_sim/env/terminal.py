"""A human at the terminal: ``cya-sim play --human SEAT`` (RULES.md §10 decides what is shown).

The game runs on its reference engine (:class:`~cya_sim.env.game.EnvGame`, the
deal of ``cya-sim play --seed S --game G``), for every game: the classic family
(:class:`Narrator`) and the theft game of RULES.md §9 (:class:`TheftNarrator`:
totals in points; a first asset's face-down card is ``a hidden card`` to the
other seats, and every first asset stays unseen until all are laid, as
:mod:`cya_sim.engine.theft.observation` says). Every move is narrated as it
happens, but only with what the viewer may know: with one human seat the
viewer is that seat (its own hidden set cards are shown), with several human
seats (players sharing one screen) only public information is narrated, and
each human's hand and own sets are shown at that human's decision. A hidden
set card (R-HIDDEN-WILD) is written ``a hidden card``; set values are shown as
the viewer can know them (a range when a hidden card could be a wild).

At a decision the legal actions are listed with numbers and short names
(:meth:`cya_sim.game.classic.actions.ActionSpace.name`); the player types a number or a
name (any case), ``help`` or ``?`` (lists the legal actions and the commands again) or ``quit`` or
``q`` (ends the game: one line, exit status 0). Anything else gets a one-line hint and the question again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cya_sim.engine.agent_calls import call_agent
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.engine.theft.observation import AssetView, TheftObservation
from cya_sim.env.game import EnvGame
from cya_sim.game.classic.state import GameState
from cya_sim.game.rules import RuleSet
from cya_sim.game.theft.state import TheftState

#: The §6 action kinds narrated by :meth:`Narrator._advanced_move` (RULES.md §6).
ADVANCED_KINDS = ("end_turn", "improve", "swap", "move", "deep_challenge", "respond_two")
PROMPT = "your move (number or name): "


class InputClosed(Exception):
    """The terminal's input ended (EOF) before the game did."""


class Quit(Exception):
    """The human typed ``quit`` or ``q`` (:data:`QUIT_WORDS`) at a decision."""


#: Words that list the legal actions and the commands again at a decision.
HELP_WORDS = ("help", "?")
#: Words that end the game at a decision (``cya-sim play`` exits with status 0).
QUIT_WORDS = ("quit", "q")
COMMANDS_LINE = "commands: a number or a name plays that action; help or ? lists them again; quit or q ends the game"


def _money(v: int) -> str:
    return f"${v:,}"


class Narrator:
    """Readable lines of each move as seen by ``viewer`` (a seat, or -1 for public information only).

    Reads the full state to decide what is public; writes only what the viewer may know (§10).
    """

    def __init__(self, game: EnvGame, viewer: int, out: Callable[[str], None]) -> None:
        self.game, self.viewer, self.out = game, viewer, out
        self.names = game.rules.deck.names
        self.values = game.rules.deck.values

    def _known(self, known_by: int, state: GameState) -> bool:
        return known_by == state.public_mask or (self.viewer >= 0 and bool(known_by >> self.viewer & 1))

    def who(self, seat: int) -> str:
        """``seat 2 (greedy)`` or ``seat 1 (you)``."""
        return f"seat {seat} ({'you' if seat == self.viewer else self.game.seat_names[seat]})"

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
            self._advanced_move(w, seat, d, state)
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

    def _advanced_move(self, w: str, seat: int, d, state: GameState) -> None:
        """Narrate a §6 action (R-ADV-TWO end_turn, R-ADV-IMPROVE, R-ADV-SWAP, R-ADV-MOVE, R-ADV-DEEP,
        R-ADV-PENNY's two-card answer), showing sets as :meth:`set_text` does (R-HIDDEN-WILD)."""
        nm = self.names
        n = self.game.n_players
        if d.kind == "end_turn":
            self.out(f"{w} ends its turn")
        elif d.kind == "improve":
            self.out(f"{w} improves its top set: {self.set_text(state, seat)}")
        elif d.kind == "swap":
            target = (seat + d.offset) % n
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

class TheftNarrator:
    """Readable lines of each theft-game move (RULES.md §9) as seen by ``viewer`` (a seat, or -1: public only).

    Reads the full :class:`~cya_sim.game.theft.state.TheftState` to decide what is public and writes only what
    the viewer may know (§10 for §9, :mod:`cya_sim.engine.theft.observation`): other hands are counts, a first
    asset's face-down card is ``a hidden card`` unless the viewer laid it or stole it, first assets are
    shown once every seat has laid one (R-T-SETUP), and the other seats' draws are counts. At the end the
    face-down cards are turned up for the score (R-T-END). Totals are points.
    """

    def __init__(self, game: EnvGame, viewer: int, out: Callable[[str], None]) -> None:
        self.game, self.viewer, self.out = game, viewer, out
        self.rules = game.rules
        self.names = game.rules.card_names

    def who(self, seat: int) -> str:
        """``seat 2 (greedy)`` or ``seat 1 (you)``."""
        return f"seat {seat} ({'you' if seat == self.viewer else self.game.seat_names[seat]})"

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


#: The narrator of each game family (the one place the terminal looks at it).
NARRATORS = {"classic": Narrator, "theft": TheftNarrator}


def describe(obs: Observation, narrator: Narrator) -> list[str]:
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


def choose(obs: Observation, ask: Callable[[str], str], out: Callable[[str], None]) -> int:
    """List the legal actions, read a number or a name until one is legal; return its action id.

    ``help`` / ``?`` (:data:`HELP_WORDS`) list the legal actions and the commands again; ``quit`` / ``q``
    (:data:`QUIT_WORDS`) raise :class:`Quit`. An action name equal to a command word would win (none is).

    Raises:
        InputClosed: the input ended.
        Quit: the human typed ``quit`` or ``q``.
    """
    sp = obs.action_space
    legal = [int(a) for a in np.flatnonzero(obs.legal_action_mask)]
    names = [sp.name(a) for a in legal]

    def listing() -> None:
        for i, n in enumerate(names, 1):
            out(f"  {i:2d}  {n}")

    listing()
    by_name = {n.lower(): a for n, a in zip(names, legal)}
    while True:
        try:
            text = ask(PROMPT).strip()
        except EOFError:
            raise InputClosed() from None
        # at most 9 digits: int() of a line of more than 4,300 digits raises ValueError
        number = int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else 0
        if 1 <= number <= len(legal):
            return legal[number - 1]
        if text.lower() in by_name:
            return by_name[text.lower()]
        if text.lower() in HELP_WORDS:
            out(f"your legal actions ({len(legal)}):")
            listing()
            out(COMMANDS_LINE)
            continue
        if text.lower() in QUIT_WORDS:
            raise Quit()
        shown = repr(text) if len(text) <= 40 else f"{text[:37]!r}... ({len(text):,} characters)"
        out(f"{shown} is not a choice: type a number from 1 to {len(legal)} or a name such as {names[0]} "
            "(help lists the commands, quit ends the game)")


def play_human(rules: RuleSet, agents: Sequence, humans: Sequence[int], key_seed: int, game_index: int = 0,
               ask: Callable[[str], str] = input, out: Callable[[str], None] | None = None) -> int:
    """Play one game with humans at ``humans`` and ``agents[s]`` elsewhere; return 0, or 1 if input ended.

    A human who types ``quit`` or ``q`` ends the game there: one line (``seat S quit; the game is abandoned``)
    and status 0.

    Args:
        rules: the rule set (the classic family or the theft game, RULES.md §9). agents: one agent per seat
            of the rules' game (P = len(agents)); human seats' entries are ignored.
        humans: seats played at the terminal. key_seed: the seed (``cya-sim play --seed``).
        game_index: the game under the seed (``--game``). ask: reads one line (``input``).
        out: prints one line (default ``print`` with flush).
    """
    out = out or (lambda line: print(line, flush=True))
    p = len(agents)
    names = ["human" if s in humans else getattr(agents[s], "name", type(agents[s]).__name__) for s in range(p)]
    game = EnvGame(rules, p, names)
    game.start(key_seed, game_index)
    viewer = humans[0] if len(set(humans)) == 1 else -1
    narrator = NARRATORS[game.kind.family](game, viewer, out)
    out(f"game {game_index}: {p} players, rules {rules.name}; you play seat{'s' if len(humans) > 1 else ''} "
        + ", ".join(map(str, sorted(set(humans)))))
    for line in narrator.opening():
        out(line)
    while not game.over:
        seat = game.to_act
        obs = game.observe(seat)
        if seat in humans:
            if viewer < 0:
                narrator.viewer = seat
            for line in narrator.decision_lines(obs):
                out(line)
            try:
                action = choose(obs, ask, out)
            except InputClosed:
                out("input closed; the game is abandoned")
                return 1
            except Quit:
                out(f"seat {seat} quit; the game is abandoned")
                return 0
        else:
            action = call_agent(agents[seat], names[seat], seat, game.game_index, obs, game.seat_rngs[seat])
        before = narrator.snapshot(game.state)
        game.step(action, who=f"agent {names[seat]!r}")
        if viewer < 0:
            narrator.viewer = -1
        narrator.move(before, seat, action, game.state)
    for line in narrator.closing():
        out(line)
    return 0
