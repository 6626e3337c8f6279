"""OpenSpiel's ISMCTS bot plays the game against a random player (registered by importing cya_sim.env)."""
import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import cya_sim.env  # noqa: F401  (registers python_cover_your_assets)

game = pyspiel.load_game("python_cover_your_assets", {"players": 2, "rounds": 1})
bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=1.41,
                       max_simulations=4, random_state=np.random.RandomState(1))
rng = np.random.default_rng(0)
state = game.new_initial_state()
while not state.is_terminal():
    if state.is_chance_node():  # the shuffles: the first dealer, then each round's deck card by card
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(actions, p=probs)))
    elif state.current_player() == 0:
        state.apply_action(bot.step(state))  # OpenSpiel's ISMCTS at seat 0 (keyed by information states)
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))  # random at seat 1
print("max_game_length", game.max_game_length(), "- returns (win shares):", state.returns())
