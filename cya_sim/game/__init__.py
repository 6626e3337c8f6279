"""The game floor: rules as data (presets, decks, options), state, actions, positions (JSON)."""
