"""The reference engine: one game at a time, written to be checked against RULES.md.

Modules: :mod:`.setup` (R-SETUP, R-NEW-ROUND), :mod:`.legal` (legal action
mask: R-TURN, R-CH-ALLOWED, R-CH-EXCHANGE), :mod:`.step` (applying actions,
R-REFILL, turn order), :mod:`.scoring` (R-SCORE, R-GAME-END, R-TIE) and
:mod:`.game` (a whole game with agent objects; playing many games from agent specs is
:mod:`cya_sim.play.classic.reference`).
"""

from cya_sim.engine.classic.reference.game import GameResult, IllegalActionError, play_game
from cya_sim.engine.classic.reference.legal import legal_action_mask
from cya_sim.engine.classic.reference.setup import new_game
from cya_sim.engine.classic.reference.step import apply_action

__all__ = ["GameResult", "IllegalActionError", "apply_action", "legal_action_mask", "new_game", "play_game"]
