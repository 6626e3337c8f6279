"""Error types shared by every game family (below the rules of any one game)."""


class RulesError(ValueError):
    """An option of a rule set has a value outside what is allowed (the message names the option)."""
