"""The classic family's rule presets (RULES.md R-PRESETS). A preset is a RuleSet value, nothing more; every
family's presets are looked up by name in :mod:`cya_sim.game.rules`."""

from __future__ import annotations

from dataclasses import replace

from cya_sim.game.classic.rules.ruleset import RuleSet

#: Presets of the classic game family that are built (other families' presets: their ``rules`` module).
PRESETS: dict[str, RuleSet] = {
    # seed 001: 4 cards, 5 for two players; the loser of a challenge draws first.
    "classic": RuleSet(name="classic"),
    # seed 002 (§8): 5 cards for 2–3 players, else 4; the player to move draws first.
    "guide": RuleSet(
        name="guide",
        hand_size={2: 5, 3: 5, "default": 4},
        challenge_draw_order="mover_first",
    ),
    # seed 000: 5 cards at every size; 4–6 players, 2–3 allowed as an extrapolation.
    "basic": RuleSet(
        name="basic",
        max_players=6,
        hand_size=5,
        challenge_draw_order="mover_first",
    ),
    # seed 000's advanced rules (§6): hand size 6, two actions a turn, improve and deep challenges,
    # 2 Swap, 2 Move and 2 Penny Jars (R-DECK-ACTION: the later edition's card list; Penny Jar $1,000).
    "advanced": RuleSet(
        name="advanced",
        max_players=6,
        hand_size=6,
        challenge_draw_order="mover_first",
        actions_per_turn=2,
        action_card_counts=(2, 2, 2),
        penny_jar_value=1_000,
        deep_challenge_costs="two_for_one",
        advanced_actions=True,
    ),
    # seed 000, R-2P-DRAFT: three shared draft piles of 10 from a deck without the eight 8-copy
    # assets (Home), 2 Silver and 1 Gold (99 cards, $1,100,000); hand size 6.
    "two_player_draft": RuleSet(
        name="two_player_draft",
        min_players=2,
        max_players=2,
        hand_size=6,
        challenge_draw_order="mover_first",
        draft="shared",
        draft_piles=3,
        draft_pile_size=10,
        draft_removed=(("Home", 8), ("Silver", 2), ("Gold", 1)),
    ),
    # seed 000, R-3P-DRAFT: one draft pile of 10 between each pair of neighbours, the whole deck; hand size 5.
    "three_player_draft": RuleSet(
        name="three_player_draft",
        min_players=3,
        max_players=3,
        hand_size=5,
        challenge_draw_order="mover_first",
        draft="neighbours",
        draft_piles=3,
        draft_pile_size=10,
    ),
}

#: The §6 options of ``advanced`` that the drafts take over in their ``*_advanced`` presets (R-ADV-HAND: "6 cards
#: instead of 5", read as a hand of 6 at both small tables; R-ADV-TWO, R-ADV-IMPROVE, R-ADV-DEEP, R-DECK-ACTION).
_ADVANCED_OPTIONS = {
    "hand_size": 6,
    **{k: getattr(PRESETS["advanced"], k) for k in ("actions_per_turn", "action_card_counts", "penny_jar_value",
                                                    "deep_challenge_costs", "advanced_actions")},
}
# seed 000 lines 21 and 25: the drafts "with Advanced Rules" (R-2P-DRAFT, R-3P-DRAFT with §6).
for _draft in ("two_player_draft", "three_player_draft"):
    PRESETS[f"{_draft}_advanced"] = replace(PRESETS[_draft], name=f"{_draft}_advanced", **_ADVANCED_OPTIONS)
