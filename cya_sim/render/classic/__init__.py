"""The classic family on the render floor: its states read into the table model (:mod:`.table`)."""
