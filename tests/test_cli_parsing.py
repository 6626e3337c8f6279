"""The sub-commands' shared integer flag type (cya_sim/cli/parsing.py), used by every parser of the CLI."""

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
