"""The theft game on the render floor (RULES.md §9): its states read into the table model (:mod:`.table`)."""
