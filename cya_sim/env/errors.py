"""The environments' own errors (every environment and bridge raises these)."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An environment got an action outside the legal action mask; the message names seat, game and action."""


class NotStartedError(RuntimeError):
    """A game was observed or stepped before :meth:`EnvGame.start` dealt it (an environment before ``reset``)."""
