"""The flags of ``cya-sim bench`` (:mod:`cya_sim.studies.bench` measures; ``--help`` lists what).

Every count is read by the command line's one integer type (:mod:`cya_sim.cli.parsing`): a refused value is one line
naming the flag and its range, exit status 2, before anything is measured.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from cya_sim.cli.parsing import SEED, WORKERS, UsageError, games, int_at_least

#: What a ceiling loop file defines at its top level (``cya_sim.studies.bench`` calls
#: ``play_game(seed, 4, VAL, COUNT)``).
CEILING_NAMES = ("play_game", "VAL", "COUNT")


def ceiling_file(text: str) -> Path:
    """An argparse ``type``: ``text`` as the path of a ceiling loop, else a one-line refusal naming it: a readable
    Python file that defines :data:`CEILING_NAMES` at its top level (read, not run: nothing is compiled yet)."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file; give the path of a ceiling loop "
                                         f"(a .py file), or leave --ceiling out to skip the ceiling")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as e:
        raise argparse.ArgumentTypeError(f"{text!r} is not a readable Python file ({type(e).__name__}: "
                                         f"{' '.join(str(e).split())}); give the path of a ceiling loop") from None
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
    missing = [n for n in CEILING_NAMES if n not in defined]
    if missing:
        raise argparse.ArgumentTypeError(f"{text!r} defines no {', '.join(missing)}; a ceiling loop defines "
                                         "play_game(seed, players, VAL, COUNT), VAL and COUNT at its top level")
    return path


def check_tournament_agents(args: argparse.Namespace) -> None:
    """Refuse ``--tournament-agents`` before anything is measured, as ``cya-sim tournament`` refuses ``--agents``
    (the tournament is the bench's last measurement, minutes in).

    Raises:
        UsageError: one line naming the flag: an unknown agent, none, or more agents than the 4 seats (the theft
            preset's own agents under ``--rules`` of the theft game).
    """
    from cya_sim.studies.bench import tournament_agents
    from cya_sim.studies.bench_theft import is_theft_preset

    if args.mcts or args.env or (args.rules and not is_theft_preset(args.rules)) or args.tournament_games == 0:
        return
    from cya_sim.studies.tournament import TournamentConfig, TournamentError

    agents = tournament_agents(args.tournament_agents)
    try:
        TournamentConfig(rules=args.rules or "classic", agents=agents, n_players=4, games=args.tournament_games,
                         seed=args.seed, engine="batched", workers=args.workers)
    except TournamentError as e:
        raise UsageError(f"cya-sim bench: error: argument --tournament-agents: {e.detail}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``cya-sim bench`` to ``parser``."""
    parser.add_argument("--games", type=games(), default=200_000,
                        help="games played on the batched engine (default 200000)")
    parser.add_argument("--reference-games", type=games("reference games"), default=300,
                        help="games played on the reference engine (default 300)")
    parser.add_argument("--ceiling", type=ceiling_file, default=None, metavar="PATH",
                        help="a hand-compiled ceiling loop to compare with (a .py file with play_game, VAL, "
                             "COUNT); default: the project's original shared/bench/ceiling.py beside the "
                             "repository's folder if it exists, else the ceiling is skipped with a note")
    parser.add_argument("--ceiling-games", type=games("ceiling games"), default=100_000,
                        help="games played by the ceiling loop (default 100000)")
    parser.add_argument("--tournament-games", type=games("tournament games", lo=0), default=1_000_000,
                        help="games of the tournament on every core; 0 skips it (default 1000000)")
    parser.add_argument("--tournament-agents", default="greedy,random,greedy,random",
                        help="comma-separated agents of the tournament, one per seat (default greedy,random,greedy,random)")
    parser.add_argument("--workers", type=WORKERS, default=None,
                        help="tournament worker processes (default: every core; one for at most 20,000 games)")
    parser.add_argument("--batch-size", type=int_at_least(1, "batch size"), default=256,
                        help="rows of the batched engine (default 256)")
    parser.add_argument("--seed", type=SEED, default=1, help="seed (default 1)")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the cold-compile, cold-tournament and plug-in edit-loop measurements")
    parser.add_argument("--strategy-games", type=games("strategy games", lo=0), default=40_000,
                        help="games of card_counter x4 and of the plug-in example x4 (default 40000; 0 skips)")
    parser.add_argument("--no-search", action="store_true", help="skip the ISMCTS speed measurement")
    parser.add_argument("--baseline-games", type=games("baseline games", lo=0), default=20_000,
                        help="games of experiments/baseline.toml's line-ups played to estimate its 1,000,000-game "
                             "time (default 20000; 0 skips)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--mcts", action="store_true",
                        help="measure the ISMCTS/PIMC search instead (cya_sim.search.classic.bench)")
    parser.add_argument("--mcts-iterations", type=int_at_least(1, "mcts iterations"), default=20_000,
                        help="ISMCTS iterations per timed search with --mcts (default 20,000)")
    parser.add_argument("--env", action="store_true",
                        help="measure the RL environments instead: the batched vector environment against "
                             "Gymnasium's SyncVectorEnv (cya_sim.env.bench; needs .[rl])")
    parser.add_argument("--rules", default=None, metavar="PRESET",
                        help="measure greedy x P and random x P games/s of this preset (e.g. advanced, "
                             "two_player_draft) against classic at the same table size instead (P = 4, or the "
                             "preset's nearest allowed size); uses --games and --reference-games")
    parser.add_argument("--env-seconds", type=float, default=10.0,
                        help="CPU seconds per environment measured with --env (default 10)")
