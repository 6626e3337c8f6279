"""Rule presets (RULES.md R-PRESETS). A preset is a RuleSet value, nothing more."""

from __future__ import annotations

from typing import Any

from cya_sim.rules.ruleset import RulesError, RuleSet

#: Presets that are built. ``advanced``, ``two_player_draft``,
#: ``three_player_draft`` (§6–7) and ``theft`` (§9) are planned.
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
}

PLANNED_PRESETS = ("advanced", "two_player_draft", "three_player_draft", "theft")


def get_rules(preset: str = "classic", **options: Any) -> RuleSet:
    """The rule set of a preset, with options overridden.

    Args:
        preset: one of :data:`PRESETS`.
        **options: any option of :class:`RuleSet` (``hand_size=5``,
            ``end_condition="rounds:3"``, ``deck=load_deck(path)``, ...).

    Raises:
        RulesError: unknown or unbuilt preset, unknown option, bad value.
    """
    if preset not in PRESETS:
        hint = " (planned, not built yet)" if preset in PLANNED_PRESETS else ""
        raise RulesError(f"unknown rule preset {preset!r}{hint}; choose one of: {', '.join(PRESETS)}")
    rules = PRESETS[preset]
    return rules.with_options(**options) if options else rules
