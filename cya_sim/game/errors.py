"""Error types shared by every game family (below the rules of any one game)."""

from cya_sim.errors import UserInputError


class RulesError(ValueError, UserInputError):
    """An option of a rule set has a value outside what is allowed (the message names the option)."""
