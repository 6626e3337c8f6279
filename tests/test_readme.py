"""Every code block of README.md is executed (issue 14: "every README code block runs as written").

Blocks are read from README.md itself, so an edited or added block is tested
as it then reads. Each ``sh`` line runs as written, as a command, in a fresh
folder holding a copy of ``experiments/`` and the README's ``my-deck.toml``:
``cya-sim rules`` and ``cya-sim play`` lines (and every ``python`` block that
plays on the reference engine) in the default run; lines that play thousands
of games on the compiled engine, benchmarks and experiment scripts in the slow
target (``make test-slow``), still as written. Three kinds of line are not run,
each named in :data:`NOT_RUN` with the reason: ``make`` targets (``make test``
is what runs this very suite), the Dask line, whose scheduler address is an
example, and ``play --human``, which waits for a person (its own test drives it
through a pseudo-terminal). Each untagged block (a game log) must be what the first ``play`` line above
it prints, line for line, except its ``...`` gaps. ``text`` blocks show what a
``make`` target prints (``make run``'s summary table); their header must be the
one the command line prints. The ``peaceful`` agent block
is registered as the module ``agents.peaceful`` (the README asks the reader to
save it as ``agents/peaceful.py``; the test does not write into the package).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", README, re.DOTALL)]
CLI = str(Path(sys.executable).parent / "cya-sim")

#: Lines not run, and why (matched by their start).
NOT_RUN = {
    "make ": "a make target: `make test` runs this suite itself and `make run` installs; CI runs `make test`",
    "cya-sim play --human": "waits for a person at the terminal; tests/test_env_terminal.py drives it through a "
                            "pseudo-terminal for a whole game",
    "cya-sim tournament experiments/baseline.toml --scheduler tcp://10.0.0.5:8786":
        "needs a Dask scheduler at the example address (the Dask executor has its own tests)",
}
#: Quick lines (run by default); every other runnable line is slow.
QUICK = ("cya-sim rules", "cya-sim play")


def sh_lines(text: str) -> list[str]:
    return [line.split("  #")[0].strip() for line in text.splitlines() if line.strip()]


def not_run(line: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if line.startswith(start)), None)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "experiments", d / "experiments")
    deck = next(text for lang, text in BLOCKS if lang == "toml")
    (d / "my-deck.toml").write_text(deck, encoding="utf-8")
    return d


def run_line(line: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    argv = shlex.split(line)
    if argv[0] == "cya-sim":
        argv[0] = CLI
    elif argv[0] == "python":
        argv[0] = sys.executable
        argv[1] = str(ROOT / argv[1])
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout)
    assert r.returncode == 0, f"{line}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "Traceback" not in r.stderr
    return r


def test_every_block_is_accounted_for():
    """Each block is a shell block, a Python block, the TOML deck, printed output, the game log of the play line,
    or (``console``) the transcript of a human seat at the terminal (driven by tests/test_env_terminal.py)."""
    kinds = [lang for lang, _ in BLOCKS]
    assert set(kinds) <= {"sh", "python", "toml", "text", "console", ""}, kinds
    assert kinds.count("toml") == 1 and kinds.count("") >= 1
    assert len(BLOCKS) >= 10


SH = [i for i, (lang, _) in enumerate(BLOCKS) if lang == "sh"]


@pytest.mark.parametrize("i", SH)
def test_sh_block_quick_lines(folder, i):
    for line in sh_lines(BLOCKS[i][1]):
        if not not_run(line) and line.startswith(QUICK):
            run_line(line, folder, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("i", SH)
def test_sh_block_slow_lines(folder, i):
    for line in sh_lines(BLOCKS[i][1]):
        if not not_run(line) and not line.startswith(QUICK):
            run_line(line, folder, timeout=3600)


LOGS = [i for i, (lang, _) in enumerate(BLOCKS) if lang == ""]


@pytest.mark.parametrize("i", LOGS)
def test_game_log_block_is_what_play_prints(folder, i):
    """An untagged block is printed by the first play line of the block above it, line for line, apart from '...'."""
    play = next(line for line in sh_lines(BLOCKS[i - 1][1]) if line.startswith("cya-sim play"))
    out = run_line(play, folder, timeout=300).stdout.splitlines()
    at = 0
    for want in BLOCKS[i][1].splitlines():
        if want.strip() == "...":
            continue
        while at < len(out) and out[at] != want:
            at += 1
        assert at < len(out), f"README line not printed (in order) by {play!r}: {want!r}"


def _python_blocks():
    return [i for i, (lang, _) in enumerate(BLOCKS) if lang == "python"]


def _is_slow(code: str) -> bool:
    return "run_tournament" in code or "run_experiment" in code


def _script(i: int) -> str:
    """Block ``i`` as a script; the peaceful agent block is registered as ``agents.peaceful`` first."""
    code = BLOCKS[i][1]
    prelude = ""
    if "agents.peaceful" in code:
        agent = next(text for lang, text in BLOCKS if lang == "python" and "class PeacefulAgent" in text)
        prelude = textwrap.dedent(f"""
            import sys, types
            import cya_sim.engine.reference
            import agents
            _m = types.ModuleType("agents.peaceful")
            exec({agent!r}, _m.__dict__)
            sys.modules["agents.peaceful"] = agents.peaceful = _m
        """)
    return prelude + code


@pytest.mark.parametrize("i", [i for i in _python_blocks() if not _is_slow(BLOCKS[i][1])])
def test_python_block(folder, tmp_path, i):
    path = tmp_path / f"block{i}.py"
    path.write_text(_script(i), encoding="utf-8")
    r = subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True, text=True, check=False, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("i", [i for i in _python_blocks() if _is_slow(BLOCKS[i][1])])
def test_python_block_slow(folder, tmp_path, i):
    """Blocks that play tournaments (worker processes are spawned: run as a script file, as a user would)."""
    path = tmp_path / f"block{i}.py"
    path.write_text(_script(i), encoding="utf-8")
    r = subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True, text=True, check=False, timeout=3600)
    assert r.returncode == 0, r.stderr[-3000:]


def test_python_tournament_block_guards_its_main():
    """Worker processes are spawned: a script calling run_tournament needs ``if __name__ == "__main__":``."""
    for i in _python_blocks():
        code = BLOCKS[i][1]
        if "run_tournament(" in code or "run_experiment(" in code:
            assert 'if __name__ == "__main__":' in code, code


def test_text_block_header_is_the_console_table():
    """The ``make run`` table in the README has the header the command line prints (4 reference games)."""
    from cya_sim.reports.report import console_summary
    from cya_sim.runs.tournament import TournamentConfig, run_tournament

    texts = [text for lang, text in BLOCKS if lang == "text"]
    assert texts
    r = run_tournament(TournamentConfig(rules="classic", agents=["greedy", "random"], n_players=4, games=4, seed=1,
                                        engine="reference", workers=1, out=None), progress=False)
    header = console_summary(r.summary).splitlines()[0]
    for text in texts:
        assert text.splitlines()[0].split() == header.split()
