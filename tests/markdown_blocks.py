"""Code blocks of the README and of the documentation pages, and how the tests run them as written.

Used by ``tests/test_readme.py`` (README.md) and ``tests/test_docs.py`` (every page of ``docs/``).
A page's ``--8<-- "path"`` lines (pymdownx.snippets, as ``mkdocs.yml`` configures it) are replaced
by the file they include, so a page is tested as the site shows it.

Kinds of block, and what is done with each:

- ``sh``: every line runs as written, as a command, in a fresh folder holding a copy of
  ``experiments/``, ``results/example/`` and the files the pages ask the reader to write (below).
  ``cya-sim rules`` and ``cya-sim play`` lines and ``cya-sim report`` of the committed example run in the default suite; every
  other line (thousands of games, benchmarks, experiment scripts) in ``make test-slow``, still as
  written. A ``VAR=value`` word before the command sets that variable; a line ending in ``\\`` goes on
  on the next. The lines of :data:`NOT_RUN` are not run, each for the reason given there.
- untagged: a game log; it must be what the first ``cya-sim play`` line of the block above it
  prints, line for line, apart from its ``...`` gaps.
- ``text``: what ``make run`` prints; its header must be the command line's console table header.
- ``console``: the transcript of a human seat at the terminal (``tests/test_env_terminal.py`` drives
  ``play --human`` through a pseudo-terminal).
- ``python``: runs as a script in the same folder (tournament blocks in ``make test-slow``); a block
  whose first line is ``# NAME.py`` is also written into the folder as ``NAME.py`` (the pages ask the
  reader to save it); the ``PeacefulAgent`` block is registered as the module ``agents.peaceful``
  for the blocks that import it (the test does not write into the package). A block equal to a file
  of ``examples/`` is run by ``tests/test_env_examples.py`` instead.
- ``toml``: must parse; the deck (``[[cards]]``) is written into the folder as ``my-deck.toml``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = str(Path(sys.executable).parent / "cya-sim")
KINDS = {"sh", "python", "toml", "text", "console", ""}
SNIPPET = re.compile(r'^[ \t]*--8<--[ \t]+"([^"]+)"[ \t]*$', re.MULTILINE)

#: Lines not run, and why (matched by their start).
NOT_RUN = {
    "make ": "a make target: `make test` runs this suite itself, `make run` installs, `make docs` is "
             "tests/test_docs.py's build; CI runs `make test`",
    "cya-sim play --human": "waits for a person at the terminal; tests/test_env_terminal.py drives it through a "
                            "pseudo-terminal for a whole game",
    "pip install": "installs packages (the train extra: torch) into the environment that runs the tests",
    "python experiments/train_learned.py": "needs the train extra (torch, stable-baselines3, sb3-contrib), which "
                                           "the test environment does not install; tests/test_learned.py trains a "
                                           "few steps when it is present",
    "cya-sim exploit": "trains a best response: needs the train extra (torch, stable-baselines3, sb3-contrib), which "
                       "the test environment does not install; tests/test_exploit.py runs a small one when present",
    "python experiments/make_champion.py": "rewrites the committed agents/learned_models/champion.*; "
                                           "tests/test_learned_models.py checks its members and refusals",
    "cya-sim tournament experiments/baseline.toml --scheduler tcp://10.0.0.5:8786":
        "needs a Dask scheduler at the example address (the Dask executor has its own tests)",
    "cya-sim leaderboard experiments/leaderboard.toml --scheduler tcp://10.0.0.5:8786":
        "needs a Dask scheduler at the example address (tests/test_leaderboard_cluster.py runs a board on one)",
}
#: Quick lines (run by default): these starts, and ``cya-sim report`` of the committed example; every other
#: runnable line is slow.
QUICK = ("cya-sim rules", "cya-sim play")
QUICK_LINES = ("cya-sim report", "cya-sim report results/example")


def is_quick(line: str) -> bool:
    """A line the default suite runs (the others run in ``make test-slow``)."""
    return line.startswith(QUICK) or line in QUICK_LINES


def page_text(path: Path) -> str:
    """The text of a page with its snippet lines replaced by the files they include (recursively)."""
    text = path.read_text(encoding="utf-8")
    return SNIPPET.sub(lambda m: page_text(ROOT / m.group(1)), text)


def blocks(path: Path) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced block of a page, in order (indented fences included)."""
    return [(m.group(1), textwrap.dedent(m.group(2)))
            for m in re.finditer(r"^[ \t]*```(\w*)\n(.*?)^[ \t]*```", page_text(path), re.DOTALL | re.MULTILINE)]


def sh_lines(text: str) -> list[str]:
    """The commands of an ``sh`` block: comments after two spaces dropped, ``\\`` continuations joined."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.split("  #")[0].strip()
        if not line:
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        out.append(pending + line)
        pending = ""
    return out


def not_run(line: str) -> str | None:
    """Why a line is not run, or None when it is run."""
    return next((why for start, why in NOT_RUN.items() if line.startswith(start)), None)


def examples() -> set[str]:
    """The files of ``examples/`` (run by tests/test_env_examples.py), as text."""
    return {p.read_text(encoding="utf-8").strip() for p in (ROOT / "examples").glob("*.py")}


def file_name(code: str) -> str | None:
    """``NAME.py`` when the block's first line is ``# NAME.py`` (optionally followed by `` — ...``)."""
    m = re.match(r"#\s*([\w.]+\.py)\b", code)
    return m.group(1) if m else None


def make_folder(folder: Path, all_blocks: list[tuple[str, str]]) -> Path:
    """Fill ``folder`` with what the pages' commands expect: experiments/, results/example/, the files to write."""
    shutil.copytree(ROOT / "experiments", folder / "experiments")
    shutil.copytree(ROOT / "results" / "example", folder / "results" / "example",
                    ignore=shutil.ignore_patterns(".cya-sim.lock"))
    for lang, body in all_blocks:
        if lang == "toml" and "[[cards]]" in body:
            (folder / "my-deck.toml").write_text(body, encoding="utf-8")
        elif lang == "python" and file_name(body):
            (folder / file_name(body)).write_text(body, encoding="utf-8")
    return folder


def run_line(line: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """Run one ``sh`` line as written (``cya-sim`` and ``python`` of this interpreter); assert it succeeds."""
    argv = shlex.split(line)
    env = dict(os.environ)
    while argv and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[0]):
        key, value = argv.pop(0).split("=", 1)
        env[key] = str(cwd / value) if value == "." else value
        if key == "PYTHONPATH" and os.environ.get("PYTHONPATH"):
            env[key] += os.pathsep + os.environ["PYTHONPATH"]
    if argv[0] == "cya-sim":
        argv[0] = CLI
    elif argv[0] == "python":
        argv[0] = sys.executable
        argv[1] = str(ROOT / argv[1])
    r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=timeout)
    assert r.returncode == 0, f"{line}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    assert "Traceback" not in r.stderr
    return r


def is_slow(code: str) -> bool:
    """A Python block that plays tournaments (worker processes are spawned)."""
    return "run_tournament" in code or "run_experiment" in code


def script(code: str, all_blocks: list[tuple[str, str]]) -> str:
    """A Python block as a script; the ``PeacefulAgent`` block is registered as ``agents.peaceful`` first."""
    prelude = ""
    if "agents.peaceful" in code:
        agent = next(text for lang, text in all_blocks if lang == "python" and "class PeacefulAgent" in text)
        prelude = textwrap.dedent(f"""
            import sys, types
            import cya_sim.engine.classic.reference
            import agents
            _m = types.ModuleType("agents.peaceful")
            exec({agent!r}, _m.__dict__)
            sys.modules["agents.peaceful"] = agents.peaceful = _m
        """)
    return prelude + code


def run_python(code: str, all_blocks: list[tuple[str, str]], folder: Path, path: Path, timeout: float) -> None:
    """Write the block as the script ``path`` and run it in ``folder``; assert it succeeds."""
    path.write_text(script(code, all_blocks), encoding="utf-8")
    r = subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True, text=True, check=False,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr[-3000:]


def check_log(play_block: str, log: str, folder: Path) -> None:
    """The untagged block ``log`` is printed, line for line apart from '...', by the first play line of ``play_block``."""
    play = next(line for line in sh_lines(play_block) if line.startswith("cya-sim play"))
    out = run_line(play, folder, timeout=300).stdout.splitlines()
    at = 0
    for want in log.splitlines():
        if want.strip() == "...":
            continue
        while at < len(out) and out[at] != want:
            at += 1
        assert at < len(out), f"line not printed (in order) by {play!r}: {want!r}"


def console_header() -> str:
    """The header line of the console table of ``cya-sim tournament`` (4 reference games)."""
    from cya_sim.reports.report import console_summary
    from cya_sim.studies.tournament import TournamentConfig, run_tournament

    r = run_tournament(TournamentConfig(rules="classic", agents=["greedy", "random"], n_players=4, games=4, seed=1,
                                        engine="reference", workers=1, out=None), progress=False)
    return console_summary(r.summary).splitlines()[0]


def check_toml(body: str) -> None:
    """A ``toml`` block parses as TOML."""
    tomllib.loads(body)
