"""The ``cya-sim`` command line: every command, and every refused option (exit 2, one line, nothing written)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import pandas as pd
import pytest

from cya_sim.cli.main import main
from cya_sim.results.folder import load_games, read_manifest

DECK_OK = """\
name = "tiny"
[[cards]]
name = "Pebble"
kind = "asset"
value = 1000
copies = 20
[[cards]]
name = "Shell"
kind = "asset"
value = 2000
copies = 20
[[cards]]
name = "Pearl"
kind = "wild"
value = 9000
copies = 6
"""

DECK_NEGATIVE = DECK_OK.replace("value = 1000", "value = -1000")
FAST = ["--engine", "reference", "--workers", "1", "--quiet"]


def snapshot(folder) -> dict:
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty folder holding one valid and one invalid deck file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(DECK_OK)
    (tmp_path / "negative.toml").write_text(DECK_NEGATIVE)
    (tmp_path / "broken.toml").write_text("name = \n[[cards")
    return tmp_path


# -- rules -----------------------------------------------------------------------
def test_rules_prints_options_and_deck(capsys):
    assert main(["rules", "classic"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rules classic")
    assert "challenge_draw_order" in out and "loser_first" in out
    assert "deck 2011: 110 cards, $1,360,000" in out
    assert "Gold" in out and "$50,000" in out


def test_rules_with_option_and_deck(capsys, in_tmp):
    assert main(["rules", "guide", "--option", "hand_size=6", "--deck", "tiny.toml"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rules guide+custom")
    assert "mover_first" in out and "deck tiny: 46 cards" in out and "Pearl" in out


# -- play ------------------------------------------------------------------------
def test_play_prints_a_readable_log_and_is_reproducible(capsys):
    argv = ["play", "--rules", "classic", "--players", "4", "--agents", "greedy,random,greedy,random", "--seed", "7"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "game 0: 4 players, rules classic"
    assert "seat 0 (greedy)" in out and "seat 1 (random)" in out
    assert "round 1 ends" in out and lines[-1].startswith("game over: winner(s) seat")
    assert main(argv) == 0
    assert capsys.readouterr().out == out


def test_play_defaults_and_options(capsys):
    assert main(["play", "--option", "end_condition=rounds:1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 0: 4 players, rules classic+custom")
    assert "round 1 ends" in out and "round 2 ends" not in out


# -- tournament ------------------------------------------------------------------
def test_tournament_writes_an_experiment_results_folder(capsys, in_tmp):
    argv = ["tournament", "--rules", "classic", "--agents", "greedy,random", "--players", "4", "--games", "8",
            "--seed", "1", "--out", "results/demo", *FAST]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "random" in out and "wrote results/demo" in out
    folder = in_tmp / "results" / "demo"
    names = {p.name for p in folder.iterdir()}
    assert {"manifest.json", "games.parquet", "chunks.json", "runs.json", "REPORT.md", "summary.csv"} <= names
    games = load_games(folder)
    assert len(games) == 8 and set(games["seat_0_agent"]) == {"greedy", "random"}
    summary = pd.read_csv(folder / "summary.csv")
    assert summary["agent"].tolist() == ["greedy", "random"] and summary["seat_games"].tolist() == [16, 16]
    assert pd.read_parquet(folder / "games.parquet")["game"].tolist() == list(range(8))
    # the same tournament again into the same folder: allowed (a resume), same results
    assert main(argv) == 0
    pd.testing.assert_frame_equal(games, load_games(folder))


def test_tournament_with_deck_and_options(capsys, in_tmp):
    argv = ["tournament", "--players", "3", "--games", "3", "--deck", "tiny.toml", "--option", "end_condition=rounds:1",
            "--option", "hidden_wilds=false", "--out", "custom", *FAST]
    assert main(argv) == 0
    rules = read_manifest(in_tmp / "custom")["experiment"]["rules"]
    assert rules["deck"]["name"] == "tiny" and rules["end_condition"] == "rounds:1" and rules["hidden_wilds"] is False
    games = load_games(in_tmp / "custom")
    assert (games["rounds"] == 1).all()


def test_tournament_without_quiet_shows_header_and_engine(capsys, in_tmp):
    assert main(["tournament", "--games", "2", "--workers", "1", "--engine", "reference", "--out", "r"]) == 0
    captured = capsys.readouterr()
    assert "engine: reference" in captured.out
    assert "note: 2 games is not a multiple of 4" in captured.out
    assert "2/2" in captured.err  # the tqdm bar


def test_tournament_defaults_are_the_documented_ones():
    from cya_sim.cli.main import build_parser

    args = build_parser(["tournament"]).parse_args(["tournament"])
    assert (args.rules, args.agents, args.players, args.seed, str(args.out)) == (
        "classic", "greedy,random", 4, 1, "results/default")
    assert args.games >= 2000 and args.games % args.players == 0 and args.engine == "batched"


# -- refused options ---------------------------------------------------------------
BAD = [
    (["rules", "clasic"], "--rules", "classic"),
    (["rules", "classic", "--option", "hand_size=0"], "--option", "hand_size"),
    (["play", "--rules", "clasic"], "--rules", "classic"),
    (["play", "--agents", "greedy,smart"], "--agents", "random"),
    (["play", "--players", "13"], "--players", "2 to 12"),
    (["play", "--players", "1"], "--players", "from 2 to 12"),
    (["play", "--rules", "basic", "--players", "7"], "--players", "2 to 6"),
    (["play", "--agents", "greedy,random,greedy", "--players", "2"], "--agents", "1 to 2"),
    (["play", "--option", "colour=red"], "--option", "hand_size"),
    (["play", "--deck", "missing.toml"], "--deck", "cannot read"),
    (["tournament", "--rules", "clasic"], "--rules", "classic, guide, basic"),
    (["tournament", "--rules", "advance"], "--rules", "classic, guide, basic, advanced"),
    (["tournament", "--agents", "greedy,smart"], "--agents", "random, greedy"),
    (["tournament", "--agents", "greedy,random,greedy,random,greedy"], "--agents", "1 to 4"),
    (["tournament", "--players", "13"], "--players", "2 to 12"),
    (["tournament", "--players", "0"], "--players", "from 2 to 12"),
    (["tournament", "--rules", "basic", "--players", "8"], "--players", "2 to 6"),
    (["tournament", "--games", "0"], "--games", "from 1 to 100,000,000"),
    (["tournament", "--games", "-5"], "--games", "from 1 to 100,000,000"),
    (["tournament", "--games", "many"], "--games", "from 1 to 100,000,000"),
    (["tournament", "--seed", "-1"], "--seed", "from 0 to"),
    (["tournament", "--workers", "0"], "--workers", "from 1 to 1,024"),
    (["tournament", "--chunk-size", "0"], "--chunk-size", "from 1 to 100,000,000"),
    (["tournament", "--engine", "turbo"], "--engine", "reference"),
    (["tournament", "--option", "colour=red"], "--option", "challenge_draw_order"),
    (["tournament", "--option", "hand_size"], "--option", "key=value"),
    (["tournament", "--option", "deck=tiny.toml"], "--option", "--deck"),
    (["tournament", "--option", "tie_break=coin"], "--option", "share, extra_round"),
    (["tournament", "--option", "end_condition=rounds:0"], "--option", "rounds:N"),
    (["tournament", "--option", "hidden_wilds=perhaps"], "--option", "true, false"),
    (["tournament", "--option", "target_score=-5"], "--option", "from 1 to 1,000,000,000,000,000"),
    (["tournament", "--option", "hand_size=50"], "--option", "option 'hand_size' is 50 at 4 players"),
    (["tournament", "--deck", "missing.toml"], "--deck", "cannot read"),
    (["tournament", "--deck", "broken.toml"], "--deck", "TOML"),
    (["tournament", "--deck", "negative.toml"], "--deck", "from 0 to 1,000,000,000,000"),
    (["tournament", "--out", "tiny.toml"], "--out", "is a file"),
    (["tournament", "--out", "."], "--out", "not cya-sim results"),
    (["tournament", "--out", "tiny.toml/inside"], "--out", "is a file"),
    (["tournament", "--colour", "red"], "cya-sim tournament: error: unrecognized arguments", "--colour"),
    (["play", "--colour", "red"], "cya-sim play: error: unrecognized arguments", "--colour"),
    (["rules", "--colour"], "cya-sim rules: error: unrecognized arguments", "--colour"),
    (["dance"], "invalid choice", "tournament"),
]


@pytest.mark.parametrize("argv, option, allowed", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_option_one_line_exit_2_nothing_written(argv, option, allowed, capsys, in_tmp):
    before = snapshot(in_tmp)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert option in lines[0] and allowed in lines[0], lines[0]
    assert lines[0].startswith("cya-sim")
    assert captured.out == ""
    assert snapshot(in_tmp) == before


def test_folder_of_another_tournament_is_refused_and_kept(capsys, in_tmp):
    assert main(["tournament", "--games", "2", "--out", "mine", *FAST]) == 0
    capsys.readouterr()
    before = snapshot(in_tmp)
    assert main(["tournament", "--games", "4", "--out", "mine", *FAST]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "another experiment" in err[0]
    assert snapshot(in_tmp) == before


# -- bench, entry point, help ---------------------------------------------------------
def test_bench_is_wired_to_cya_sim_bench(capsys):
    if importlib.util.find_spec("cya_sim.studies.bench") is None:
        assert main(["bench"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "bench" in err[0]
    else:
        assert main(["bench", "--help"]) == 0
        assert "usage: cya-sim bench" in capsys.readouterr().out


def test_help_and_version(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("play", "tournament", "rules", "bench"):
        assert command in out
    assert main(["tournament", "--help"]) == 0
    assert "--games" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("cya-sim ")


def test_console_script_is_registered():
    scripts = entry_points(group="console_scripts", name="cya-sim")
    assert [e.value for e in scripts] == ["cya_sim.cli.main:main"]


def test_module_runs_as_a_program():
    proc = subprocess.run([sys.executable, "-m", "cya_sim.cli", "rules", "basic"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("rules basic")
    proc = subprocess.run([sys.executable, "-m", "cya_sim.cli", "rules", "nope"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_bench_finds_its_files_from_the_runs_floor():
    """``cya-sim bench`` reads experiments/baseline.toml by path; its ceiling loop is optional: the sibling
    ``shared/bench/ceiling.py`` only when that file exists, else none (a clone has nothing beside it)."""
    from cya_sim.studies.bench import BASELINE, SIBLING_CEILING, ceiling_path

    assert BASELINE.is_file() and BASELINE.name == "baseline.toml"
    assert SIBLING_CEILING.name == "ceiling.py"
    assert ceiling_path(None) == (SIBLING_CEILING if SIBLING_CEILING.is_file() else None)


def test_bench_without_a_ceiling_file_reports_null_and_a_note(tmp_path):
    """No ceiling loop: the rate is None and the note names the flag; a given loop (a pure-Python stand-in with
    the ceiling's interface) is measured; a --ceiling that is not a file is refused in one line, exit status 2,
    before anything is measured."""
    from cya_sim.studies.bench import _ceiling_loop, _no_ceiling_note, ceiling_path

    note = _no_ceiling_note()
    assert "ceiling not measured" in note and "--ceiling PATH" in note
    loop = tmp_path / "my_ceiling.py"
    loop.write_text("VAL = (1, 2)\nCOUNT = (3, 4)\n\ndef play_game(seed, players, val, count):\n"
                    "    return sum(v * c for v, c in zip(val, count)) + seed * players\n")
    assert ceiling_path(loop) == loop
    with _ceiling_loop(loop) as rate:
        assert rate(200) > 0 and rate(100) > 0  # measured again at each call, while the loop is loaded
    proc = subprocess.run([sys.executable, "-m", "cya_sim.cli", "bench", "--ceiling", str(tmp_path / "nope.py")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    line = (f"cya-sim bench: error: argument --ceiling: {str(tmp_path / 'nope.py')!r} is not a file; give the path "
            "of a ceiling loop (a .py file), or leave --ceiling out to skip the ceiling")
    assert proc.stderr.strip().splitlines() == [line]


def test_tournament_help_prints_a_plain_percent_sign(capsys):
    """argparse leaves ``%%`` as it is in a description without ``%(prog)s``: the help must say ``95%``."""
    assert main(["tournament", "--help"]) == 0
    out = capsys.readouterr().out
    assert "95% intervals" in " ".join(out.split()) and "%%" not in out


def test_tips_help_answers_without_importing_the_study():
    """``cya-sim tips --help`` parses before it imports pandas, SciPy and the runner (it took seconds)."""
    code = ("import sys\nfrom cya_sim.cli.main import main\ntry:\n    main(['tips', '--help'])\nexcept SystemExit:\n"
            "    pass\nprint(sorted(m for m in ('pandas', 'scipy', 'cya_sim.studies.tips') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert "usage: cya-sim tips" in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "[]"


def test_table_refusals_name_only_what_the_preset_has(capsys):
    """A classic deck too small for the hands names no draft piles; a one-size preset says "only 2", not "2 to 2"."""
    assert main(["play", "--players", "6", "--option", "hand_size=30"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("enough for at most 18 each and a discard (181 needed); lower hand_size, play fewer players "
                        "or use a larger deck") and "draft" not in err
    assert main(["play", "--rules", "two_player_draft", "--players", "4"]) == 2
    assert capsys.readouterr().err.strip() == "cya-sim play: error: --players: 4; rules 'two_player_draft' allow only 2"
    assert main(["play", "--rules", "two_player_draft", "--players", "2", "--option", "hand_size=60"]) == 2
    assert "the draft piles and a discard" in capsys.readouterr().err


def test_bench_tournament_is_measured_in_a_process_of_its_own():
    """The bench's tournament runs in a fresh process (:func:`cya_sim.studies.bench._tournament`): its peak RSS is
    that process's and its workers', never an earlier measurement's child (a cold compile's)."""
    from cya_sim.studies.bench import _tournament

    out = _tournament(2_000, ["greedy", "random"], 1, 1)
    assert out["tournament_games"] == 2_000 and out["tournament_workers"] == 1
    assert out["tournament_wall_s"] > 0 and 50 < out["tournament_peak_rss_mb"] < 4_000


@pytest.mark.parametrize("flags, line", [
    (["--tournament-agents", "bogus"], ("cya-sim bench: error: argument --tournament-agents: unknown agent 'bogus'; "
                                       "choose one of: ")),
    (["--tournament-agents", "greedy,random,greedy,random,greedy"],
     "cya-sim bench: error: argument --tournament-agents: 5 agents for 4 seats; give 1 to 4 agents"),
    (["--tournament-agents", " , "], "cya-sim bench: error: argument --tournament-agents: no agents given; "),
    (["--rules", "theft", "--tournament-agents", "bogus"],
     "cya-sim bench: error: argument --tournament-agents: unknown agent 'bogus'; "),
    (["--ceiling", "{tmp}/noplay.py"], ("cya-sim bench: error: argument --ceiling: '{tmp}/noplay.py' defines no "
                                       "play_game, COUNT; a ceiling loop defines play_game(seed, players, VAL, COUNT)")),
    (["--ceiling", "{tmp}/broken.py"], ("cya-sim bench: error: argument --ceiling: '{tmp}/broken.py' is not a "
                                       "readable Python file (SyntaxError: ")),
])
def test_bench_refuses_bad_agents_and_ceilings_before_measuring(tmp_path, capsys, flags, line):
    """A bad --tournament-agents (the bench's last measurement) or a ceiling file without play_game/VAL/COUNT is
    refused in one line, exit status 2, before anything is measured (they had ended, minutes in, in an internal
    error)."""
    (tmp_path / "noplay.py").write_text("VAL = (1, 2)\nimport numpy as np\n")
    (tmp_path / "broken.py").write_text("def play_game(\n")
    flags = [f.replace("{tmp}", str(tmp_path)) for f in flags]
    t0 = time.perf_counter()
    assert main(["bench", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(line.replace("{tmp}", str(tmp_path))), err
    assert time.perf_counter() - t0 < 60  # refused at once, nothing measured (a bench takes minutes)


def test_bench_tournament_memory_is_its_own_not_the_forking_parents(tmp_path):
    """The bench's tournament subprocess reports its own peak memory (VmHWM), not the peak its parent had when it
    forked (ru_maxrss starts there on Linux: a 800 MB bench made an 8,000-game tournament report 800 MB)."""
    import numpy as np

    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc: the peak is ru_maxrss there")
    big = np.ones(50_000_000)  # 400 MB touched by the parent
    code = "from cya_sim.studies.bench import _own_peak_mb; print(_own_peak_mb())"
    child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                 timeout=120).stdout)
    assert big.sum() > 0 and child < 300


def test_bench_tournament_agents_keep_a_comma_inside_a_spec():
    """--tournament-agents is split as --agents is (agents.spec.split_agent_list): a spec with two parameters stays
    whole (a plain split had refused 'heuristic(count=true' as no spec), and empty entries are left out."""
    from cya_sim.studies.bench import tournament_agents

    assert tournament_agents("heuristic(count=true, backup=true), greedy") == (
        "heuristic(count=true, backup=true)", "greedy")
    assert tournament_agents(" , ") == ()
