"""The environments' own errors (every environment and bridge raises these)."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An environment got an action outside the legal action mask; the message names seat, game and action."""


class NotStartedError(RuntimeError):
    """A game was observed or stepped before :meth:`EnvGame.start` dealt it (an environment before ``reset``)."""


#: The install command of each optional dependency group (pyproject.toml's extras) the environments need.
EXTRA_INSTALL = {"rl": "pip install -e '.[rl]'", "train": "pip install -e '.[train]'"}


def missing_extra(error: ModuleNotFoundError, extra: str = "rl", what: str = "cya_sim.env") -> ImportError:
    """The one-line ImportError for a toolkit that is not installed, naming the extra and its install command.

    ``missing_extra(e)`` of ``No module named 'gymnasium'`` reads ``cya_sim.env needs the rl extra: pip install -e
    '.[rl]' (gymnasium is not installed)``. Used as ``raise missing_extra(e) from None`` around the toolkit imports.

    Args:
        error: the ModuleNotFoundError of the toolkit's import. extra: ``rl`` or ``train`` (:data:`EXTRA_INSTALL`).
        what: the module or function that needs it.
    """
    name = (error.name or str(error)).split(".")[0]
    return ImportError(f"{what} needs the {extra} extra: {EXTRA_INSTALL[extra]} ({name} is not installed)",
                       name=error.name)
