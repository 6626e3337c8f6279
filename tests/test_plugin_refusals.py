"""A compiled plug-in that numba cannot compile, or that returns a float, is refused in one line naming the
plug-in (exit status 2), on the batched and the reference engine, for both games; never an internal error."""

from __future__ import annotations

import re

import pytest

from cya_sim.cli.main import main

SOURCE = '''
from numba import njit

@njit(cache=True)
def typeerr(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    return hdr.nosuch

@njit(cache=True)
def wrongsig(a, b):
    return 0

@njit(cache=True)
def floatret(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    for a in range(mask.shape[0]):
        if mask[a]:
            return a + 0.5
    return 0.5
'''


@pytest.fixture
def bad_module(tmp_path, monkeypatch):
    name = f"bad_policy_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


@pytest.mark.parametrize("func, words", [("typeerr", r"numba cannot compile it \(TypingError: Unknown attribute"),
                                         ("wrongsig", "numba cannot compile it|cannot be called as decide"),
                                         ("floatret", "returns float64, not an integer action id")])
@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_a_bad_compiled_plugin_is_refused_in_one_line(bad_module, tmp_path, capsys, func, words, engine):
    code = main(["tournament", "--quiet", "--engine", engine, "--agents", f"{bad_module}:{func},greedy", "--games", "4",
                 "--players", "2", "--out", str(tmp_path / f"out-{func}-{engine}")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and f"compiled plug-in {bad_module}:{func}" in err[0] and re.search(words, err[0]), err
    assert "internal error" not in err[0] and "\x1b[" not in err[0]
