"""The command line's one parsing home (cya_sim/cli/parsing.py): the integer flag type, the one parser class, the shared
flags and the sub-command boundary, used by every parser of the CLI."""

import argparse

import pytest

from cya_sim.cli.parsing import int_at_least


@pytest.mark.parametrize("text,value", [("5", 5), ("+5", 5), ("-0", 0), ("0", 0), ("1000000", 1_000_000)])
def test_int_flag_reads_ascii_decimal_integers(text, value):
    assert int_at_least(0, "seed", 10**6)(text) == value


@pytest.mark.parametrize("text", ["1_000", "\u0661\u0662", " 5", "5 ", "0x10", "1e3", "1.0", "", "9" * 41, "-1",
                                  "1000001"])
def test_int_flag_refuses_in_one_line_naming_the_flag_and_range(text):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        int_at_least(0, "seed", 10**6)(text)
    msg = str(e.value)
    assert "\n" not in msg and "seed must be an integer from 0 to 1,000,000" in msg
    assert len(msg) < 120


def test_int_flag_without_upper_bound_says_at_least():
    with pytest.raises(argparse.ArgumentTypeError, match="games must be an integer >= 1"):
        int_at_least(1, "games")("0")


# -- one parser: the class, the flag types, the rule flags and the sub-command boundary (issue 30) -------------------
def test_every_parser_of_the_cli_is_the_one_class_and_no_flag_reads_int():
    """cya_sim/cli/parsing.py is the one home: no module of the CLI makes another ArgumentParser or reads an integer
    flag with int() (which took '1_000', ' 5' and other scripts' digits)."""
    import ast
    from pathlib import Path

    cli = Path(__file__).resolve().parents[1] / "cya_sim" / "cli"
    bad = []
    for path in sorted(cli.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if name == "ArgumentParser":
                    bad.append(f"{path.name}:{node.lineno} makes an ArgumentParser")
                bad += [f"{path.name}:{node.lineno} type=int" for k in node.keywords
                        if k.arg == "type" and isinstance(k.value, ast.Name) and k.value.id == "int"]
    assert not bad, bad


@pytest.mark.parametrize(("argv", "line"), [
    (["bench", "--games", "1_000"],
     "cya-sim bench: error: argument --games: '1_000'; games must be an integer from 1 to 100,000,000"),
    (["bench", "--workers", "0"], "cya-sim bench: error: argument --workers: '0'; workers must be an integer from 1 to 1,024"),
    (["tips", "--deals", "1_000"],
     "cya-sim tips: error: argument --deals: '1_000'; deals must be an integer from 2 to 100,000,000"),
    (["leaderboard", "--workers", " 2"],
     "cya-sim leaderboard: error: argument --workers: ' 2'; workers must be an integer from 1 to 1,024"),
    (["tune", "--agent", "heuristic", "--field", "random", "--option", "hand_size", "--out", "o"],
     "cya-sim tune: error: --option: 'hand_size' is not key=value"),
    (["metagame", "--pool", "greedy,random", "--option", "=5", "--out", "o"],
     "cya-sim metagame: error: --option: '=5' is not key=value"),
    (["play", "--option", "deck=x.toml"],
     "cya-sim play: error: --option: give a deck with --deck FILE (a TOML deck file), not --option deck=..."),
])
def test_shared_flags_refuse_in_one_line_with_exit_2_and_write_nothing(tmp_path, monkeypatch, capsys, argv, line):
    from cya_sim.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [line]
    assert list(tmp_path.iterdir()) == []


def test_option_pairs_read_toml_values_and_name_the_keys():
    from cya_sim.cli.parsing import UsageError, option_pairs

    assert option_pairs(["hand_size=5", " hidden_wilds = false", "end_condition=rounds:3", "x={2 = 5}"]) == [
        ("hand_size", 5), ("hidden_wilds", False), ("end_condition", "rounds:3"), ("x", {"2": 5})]
    with pytest.raises(UsageError, match=r"^--option: unknown rule option 'colour'; choose from: hand_size$"):
        option_pairs(["colour=red"], ["hand_size"])
    with pytest.raises(UsageError, match=r"^--option: 'hand_size' is not key=value; keys: hand_size, tie_break$"):
        option_pairs(["hand_size"], ["hand_size", "tie_break"])
    with pytest.raises(UsageError, match=r"^--option hand_size: an integer of more than 4,300 digits"):
        option_pairs(["hand_size=" + "9" * 5000])


def test_the_rule_flags_are_one_definition_in_every_command(capsys):
    """play, tournament, rules, tune and metagame show the same --rules and --option help (tune and metagame had
    "rule preset (default classic)" and "a rule option (repeatable)")."""
    from cya_sim.cli.main import main

    helps = {}
    for argv in (["play", "--help"], ["tournament", "--help"], ["tune", "--help"], ["metagame", "--help"]):
        assert main(argv) == 0
        helps[argv[0]] = " ".join(capsys.readouterr().out.split())
    for text in helps.values():
        assert "rule preset: classic, guide, basic" in text and "override a rule option, e.g. hand_size=5" in text
    assert "--deck FILE" in helps["play"] and "--deck" not in helps["tune"] and "--deck" not in helps["metagame"]


def test_run_subcommand_is_the_boundary_of_a_sub_command(capsys):
    """--help gives 0; a refused input (FieldError, UsageError, the command's own) one line and 2; Ctrl-C 130; a bug
    propagates to main's boundary."""
    from cya_sim.cli.parsing import ExitingParser, UsageError, run_subcommand
    from cya_sim.errors import FieldError

    p = ExitingParser(prog="cya-sim x")
    p.add_argument("--n", type=int_at_least(1, "n"), default=1)

    def work(exc):
        def run(args, command):
            assert command == "cya-sim x --n 2" and args.n == 2
            if exc is not None:
                raise exc
            return 0
        return run

    assert run_subcommand("x", p, ["--help"], work(None)) == 0
    assert run_subcommand("x", p, ["--n", "0"], work(None)) == 2
    assert capsys.readouterr().err.strip().endswith("n must be an integer >= 1")
    assert run_subcommand("x", p, ["--n", "2"], work(None)) == 0
    for exc, line in ((FieldError("out", "a  file;\nnot a folder"), "cya-sim x: error: field 'out': a file; not a folder"),
                      (UsageError("--n: too many"), "cya-sim x: error: --n: too many"),
                      (LookupError("own"), "cya-sim x: error: own")):
        assert run_subcommand("x", p, ["--n", "2"], work(exc), (LookupError,)) == 2
        assert capsys.readouterr().err.strip().splitlines() == [line]
    assert run_subcommand("x", p, ["--n", "2"], work(KeyboardInterrupt())) == 130
    assert capsys.readouterr().err.strip() == "interrupted; run the same command again to resume"
    with pytest.raises(ZeroDivisionError):
        run_subcommand("x", p, ["--n", "2"], work(ZeroDivisionError()))
