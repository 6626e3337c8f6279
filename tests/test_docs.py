"""The documentation site: it builds in strict mode, and every code block of every page runs as written.

The site is built from ``docs/`` by MkDocs with Material and mkdocstrings (``mkdocs.yml``; ``make
docs``). The build is strict: a warning (a broken link, a missing page or file, a docstring the API
reference cannot read) fails it. Every page's code blocks are run the way ``tests/test_readme.py``
runs the README's (:mod:`markdown_blocks`): quick commands in the default suite, tournaments,
benchmarks and experiment scripts in ``make test-slow``. Pages speak of the software, not of how it
was built: no page mentions an issue number.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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
    page_text,
    run_line,
    run_python,
    sh_lines,
)

DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
BLOCKS = {page: blocks(DOCS / page) for page in PAGES}
ALL = [b for page in PAGES for b in BLOCKS[page]]
HISTORY = re.compile(r"\bissues? \d|\bissue's\b|\bthe issue\b|\bthis session\b", re.IGNORECASE)


def _ids(kind_filter) -> list[tuple[str, int]]:
    return [(page, i) for page in PAGES for i, (lang, body) in enumerate(BLOCKS[page]) if kind_filter(lang, body)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return make_folder(tmp_path_factory.mktemp("docs"), ALL)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, str]:
    """The site built in strict mode into a temporary folder, and what the build printed."""
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                       capture_output=True, text=True, check=False, timeout=600,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return out, r.stdout + r.stderr


def test_site_builds_in_strict_mode_without_warnings(site):
    out, log = site
    assert "WARNING" not in log and "ERROR" not in log, log
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:  # every page is in the navigation and was written
        assert page in nav, f"docs/{page} is not in mkdocs.yml's nav"
        stem = page[:-3]
        html = out / (f"{stem}.html" if stem == "index" or stem.endswith("/index") else f"{stem}/index.html")
        assert html.is_file(), html
    api = (out / "api" / "reports" / "index.html").read_text(encoding="utf-8")
    assert 'id="cya_sim.reports.plots.win_rate_figure"' in api  # the reference is generated from the code


def test_no_page_speaks_of_how_the_project_was_built(site):
    """Neither the pages (includes resolved) nor the generated API reference mention issue numbers."""
    out, _ = site
    for page in PAGES:
        assert not HISTORY.search(page_text(DOCS / page)), page
    for html in out.rglob("*.html"):
        text = re.sub(r"<[^>]+>", " ", html.read_text(encoding="utf-8"))
        m = HISTORY.search(text)
        assert not m, f"{html.relative_to(out)}: ...{text[max(0, m.start() - 80):m.end() + 80]}..."


def test_images_are_the_committed_plots():
    """The plots shown in the docs are copies of the committed results' files, byte for byte."""
    for name, source in (("win_rates.png", "results/example/win_rates.png"), ("forest.png", "results/tips/forest.png"),
                         ("rl_recipe.png", "experiments/rl_recipe.png")):
        assert (DOCS / "img" / name).read_bytes() == (ROOT / source).read_bytes(), name
    shown = {m for page in PAGES for m in re.findall(r"\]\((?:\.\./)*img/([^)]+)\)", page_text(DOCS / page))}
    # table.png is a drawing of a game, not a plot: tests/test_render.py checks it is what docs/play.md's command draws
    assert shown == {"win_rates.png", "forest.png", "table.png", "rl_recipe.png"}


def test_every_block_is_accounted_for():
    kinds = {lang for lang, _ in ALL}
    assert kinds <= KINDS, kinds
    for lang, body in ALL:
        if lang == "toml":
            check_toml(body)
    for page in PAGES:  # a game log follows the block with its play line
        for i, (lang, _) in enumerate(BLOCKS[page]):
            if lang == "":
                assert any(x.startswith("cya-sim play") for x in sh_lines(BLOCKS[page][i - 1][1])), (page, i)


@pytest.mark.parametrize("page, i", _ids(lambda lang, body: lang == "sh"))
def test_sh_block_quick_lines(folder, page, i):
    for line in sh_lines(BLOCKS[page][i][1]):
        if not not_run(line) and is_quick(line):
            run_line(line, folder, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("page, i", _ids(lambda lang, body: lang == "sh"))
def test_sh_block_slow_lines(folder, page, i):
    for line in sh_lines(BLOCKS[page][i][1]):
        if not not_run(line) and not is_quick(line):
            run_line(line, folder, timeout=3600)


@pytest.mark.parametrize("page, i", _ids(lambda lang, body: lang == ""))
def test_game_log_block_is_what_play_prints(folder, page, i):
    check_log(BLOCKS[page][i - 1][1], BLOCKS[page][i][1], folder)


def _python(slow: bool):
    return _ids(lambda lang, body: lang == "python" and body.strip() not in examples() and is_slow(body) == slow)


@pytest.mark.parametrize("page, i", _python(slow=False))
def test_python_block(folder, tmp_path, page, i):
    run_python(BLOCKS[page][i][1], ALL, folder, tmp_path / "block.py", timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("page, i", _python(slow=True))
def test_python_block_slow(folder, tmp_path, page, i):
    """Blocks that play tournaments (worker processes are spawned: run as a script file, as a user would)."""
    run_python(BLOCKS[page][i][1], ALL, folder, tmp_path / "block.py", timeout=3600)


def test_python_tournament_blocks_guard_their_main():
    """Worker processes are spawned: a script calling run_tournament needs ``if __name__ == "__main__":``."""
    for lang, code in ALL:
        if lang == "python" and ("run_tournament(" in code or "run_experiment(" in code):
            assert 'if __name__ == "__main__":' in code, code


def test_rl_examples_are_shown_verbatim():
    """Each file of examples/ is on the RL page as it is (tests/test_env_examples.py runs the files)."""
    shown = {body.strip() for lang, body in BLOCKS["rl.md"] if lang == "python"}
    assert examples() <= shown


def test_text_blocks_are_the_console_table():
    header = console_header()
    for lang, text in ALL:
        if lang == "text":
            assert text.splitlines()[0].split() == header.split()
