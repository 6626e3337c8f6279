"""The Cover Your Assets family (RULES.md §1-§8, §10): its rules and presets (:mod:`.rules`), the state
(:mod:`.state`), the action space (:mod:`.actions`) and JSON positions (:mod:`.position`)."""
