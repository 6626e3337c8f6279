"""Every code block of README.md runs as written, and the README stays a newcomer's page.

Blocks are read from README.md itself, so an edited or added block is tested as it then reads; how
each kind of block is run is in :mod:`markdown_blocks` (shared with ``tests/test_docs.py``, which
does the same for every page of the documentation site). The README also keeps to its purpose: at
most 250 lines, the two set-up commands, the console table and the game log that the command line
really prints, the example's table as in the committed ``results/example/summary.csv``, and links
that lead to files of the repository.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from markdown_blocks import (
    KINDS,
    ROOT,
    blocks,
    check_log,
    check_toml,
    console_header,
    examples,
    is_quick,
    is_slow,
    make_folder,
    not_run,
    run_line,
    run_python,
    sh_lines,
)

README = ROOT / "README.md"
BLOCKS = blocks(README)
DOC_BLOCKS = [b for p in sorted((ROOT / "docs").rglob("*.md")) for b in blocks(p)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_folder(tmp_path_factory.mktemp("readme"), BLOCKS + DOC_BLOCKS)


def test_readme_is_a_newcomers_page():
    """At most 250 lines; the two set-up commands; a plot; links to the documentation that exist."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    setup = next(body for lang, body in BLOCKS if lang == "sh")
    assert [line.split()[:2] for line in sh_lines(setup)] == [["make", "run"], ["make", "test"]]
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert images and all((ROOT / i).is_file() for i in images)
    links = [t for t in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text) if not t.startswith("http")]
    assert len(links) >= 15 and all((ROOT / t).exists() for t in links), [t for t in links if not (ROOT / t).exists()]
    assert not re.search(r"\bissues? \d|\bissue's\b|\bthe issue\b", text, re.IGNORECASE)


def test_every_block_is_accounted_for():
    """Each block is a shell block, a Python block, TOML, printed output or the game log of the play line."""
    kinds = [lang for lang, _ in BLOCKS]
    assert set(kinds) <= KINDS, kinds
    assert kinds.count("text") == 1 and kinds.count("") == 1 and kinds.count("python") == 2
    for lang, body in BLOCKS:
        if lang == "toml":
            check_toml(body)


SH = [i for i, (lang, _) in enumerate(BLOCKS) if lang == "sh"]


@pytest.mark.parametrize("i", SH)
def test_sh_block_quick_lines(folder, i):
    for line in sh_lines(BLOCKS[i][1]):
        if not not_run(line) and is_quick(line):
            run_line(line, folder, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("i", SH)
def test_sh_block_slow_lines(folder, i):
    for line in sh_lines(BLOCKS[i][1]):
        if not not_run(line) and not is_quick(line):
            run_line(line, folder, timeout=3600)


LOGS = [i for i, (lang, _) in enumerate(BLOCKS) if lang == ""]


@pytest.mark.parametrize("i", LOGS)
def test_game_log_block_is_what_play_prints(folder, i):
    """An untagged block is printed by the first play line of the block above it, line for line, apart from '...'."""
    check_log(BLOCKS[i - 1][1], BLOCKS[i][1], folder)


PYTHON = [i for i, (lang, body) in enumerate(BLOCKS) if lang == "python" and body.strip() not in examples()]


@pytest.mark.parametrize("i", [i for i in PYTHON if not is_slow(BLOCKS[i][1])])
def test_python_block(folder, tmp_path, i):
    run_python(BLOCKS[i][1], BLOCKS, folder, tmp_path / f"block{i}.py", timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("i", [i for i in PYTHON if is_slow(BLOCKS[i][1])])
def test_python_block_slow(folder, tmp_path, i):
    """Blocks that play tournaments (worker processes are spawned: run as a script file, as a user would)."""
    run_python(BLOCKS[i][1], BLOCKS, folder, tmp_path / f"block{i}.py", timeout=3600)


def test_text_block_header_is_the_console_table():
    """The ``make run`` table in the README has the header the command line prints (4 reference games)."""
    header = console_header()
    texts = [text for lang, text in BLOCKS if lang == "text"]
    assert texts
    for text in texts:
        assert text.splitlines()[0].split() == header.split()


def test_example_table_is_the_committed_summary():
    """The README's table of results/example at 4 players equals its summary.csv, rounded as printed."""
    text = README.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\S[^|]*?) \| ([\d.]+)% \| \[([\d.]+)%, ([\d.]+)%\] \| \$([\d,]+) \|$", text, re.MULTILINE)
    s = pd.read_csv(ROOT / "results" / "example" / "summary.csv")
    s = s[s["players"] == 4].set_index("agent")
    assert len(rows) == len(s) == 5
    for name, rate, low, high, total in rows:
        r = s.loc[next(a for a in s.index if a.replace("=true", "") == name)]
        for shown, value in ((rate, r["game_win_rate"]), (low, r["game_win_rate_ci_low"]),
                             (high, r["game_win_rate_ci_high"])):
            digits = len(shown.split(".")[1])
            assert float(shown) == pytest.approx(round(100 * value, digits), abs=10 ** -digits / 2), (name, shown)
        assert int(total.replace(",", "")) == round(r["mean_total"])
