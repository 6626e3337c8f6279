"""The project carries its own specification: every rule ID (``R-…``), section (``§n``) and tip ID (``TIP-…``,
``FACT-…``) cited in the code, tests, experiments and docs is defined in RULES.md / TIPS.md at the repository's
root; the options those files name are the rule sets' own, with their defaults; no text of the repository sends a
reader to a folder beside it; and where the copies the project was started from (``../shared/RULES.md``,
``../shared/TIPS.md``) happen to exist, both define the same IDs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from conftest import RULES_MD, SHARED_RULES_MD, SHARED_TIPS_MD, TIPS_MD

from cya_sim.game.classic.rules import PRESETS
from cya_sim.game.classic.rules.ruleset import option_names
from cya_sim.game.rules import get_rules
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.rules import option_names as theft_option_names

ROOT = Path(__file__).resolve().parents[1]
#: Where IDs are cited: the package, the agents, the tests, the experiments, the docs, and the root's text files.
CITING = ("cya_sim", "agents", "tests", "experiments", "docs", "notebooks", "examples")
SUFFIXES = {".py", ".md", ".toml", ".ipynb", ".txt", ".yml", ".yaml", ".cfg"}
#: An ID, or a prefix of IDs: ``R-ADV-*`` in prose, ``"R-T-"`` in a test's code.
RULE_ID = re.compile(r"\bR-[A-Z0-9]+(?:-[A-Z0-9]+)*(?:-\*|-(?![A-Z0-9]))?")
TIP_ID = re.compile(r"\b(?:TIP|FACT)-[A-Z0-9]+(?:-[A-Z0-9]+)*(?:-\*|-(?![A-Z0-9]))?")
#: A section of RULES.md (``§7``), not a numbered subsection of a cited paper (``§4.1.1``, ``§12.6``).
SECTION = re.compile(r"§\s?(\d+)(?![.\d]*\d)")
DEFINED = re.compile(r"(?:^###\s+|\*\*)(R-[A-Z0-9]+(?:-[A-Z0-9]+)*)", re.MULTILINE)


def _citing_files() -> list[Path]:
    files = [p for p in ROOT.glob("*") if p.is_file() and p.suffix in SUFFIXES]
    for d in CITING:
        files += [p for p in (ROOT / d).rglob("*") if p.is_file() and p.suffix in SUFFIXES
                  and "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts]
    return sorted(f for f in files if f not in (RULES_MD, TIPS_MD))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def defined_rule_ids(text: str) -> set[str]:
    """IDs a rules file defines: a ``### R-…`` heading or a bold ``**R-…**``."""
    return set(DEFINED.findall(text))


def defined_tip_ids(text: str) -> set[str]:
    """IDs a tip list defines: the first cell of a table row ``| TIP-… |`` / ``| FACT-… |``."""
    return {line.split("|")[1].strip() for line in text.splitlines() if line.startswith(("| TIP-", "| FACT-"))}


def _sections(text: str) -> dict[int, str]:
    parts = re.split(r"^## (\d+)\.", text, flags=re.MULTILINE)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _cited(pattern: re.Pattern) -> dict[str, set[str]]:
    """ID (or a prefix: ``R-ADV-*``, ``R-T-``) -> the files citing it."""
    out: dict[str, set[str]] = {}
    for f in _citing_files():
        for m in pattern.finditer(_text(f)):
            out.setdefault(m.group(0), set()).add(str(f.relative_to(ROOT)))
    return out


def _undefined(cited: dict[str, set[str]], defined: set[str]) -> dict[str, list[str]]:
    missing = {}
    for cid, where in cited.items():
        prefix = cid.rstrip("*")
        ok = any(d.startswith(prefix) for d in defined) if prefix.endswith("-") else cid in defined
        if not ok:
            missing[cid] = sorted(where)[:3]
    return missing


def test_spec_every_rule_id_cited_in_the_repository_is_defined_in_rules_md():
    defined = defined_rule_ids(_text(RULES_MD))
    cited = _cited(RULE_ID)
    assert len(defined) >= 40 and {"R-TIE", "R-ADV-DEEP", "R-T-END", "R-PAIR-HAND", "R-NO-WILD-PAIR"} <= defined
    assert len(cited) >= 40 and "R-HIDDEN-WILD" in cited  # the scan reaches the sources
    assert _undefined(cited, defined) == {}
    # every ID RULES.md names, it defines (a heading or bold), not only mentions
    assert {m.group(0) for m in RULE_ID.finditer(_text(RULES_MD))} == defined
    # an ID nobody defines is caught, and so is a prefix nothing starts with
    typo, nothing = "R-" + "CH", "R-" + "NOPE-*"  # spelt in two parts, so the scan of this file does not see them
    assert _undefined({typo: {"x"}, "R-ADV-*": {"x"}, nothing: {"y"}, "R-T-": {"z"}}, defined) == {
        typo: ["x"], nothing: ["y"]}


def test_spec_every_section_cited_is_a_section_of_rules_md():
    sections = set(_sections(_text(RULES_MD)))
    assert sections == set(range(1, 11))
    cited: dict[int, set[str]] = {}
    for f in _citing_files():
        for m in SECTION.finditer(_text(f)):
            cited.setdefault(int(m.group(1)), set()).add(str(f.relative_to(ROOT)))
    assert {6, 7, 9, 10} <= set(cited)
    assert {n: sorted(w)[:3] for n, w in cited.items() if n not in sections} == {}


def test_spec_every_tip_id_cited_in_the_repository_is_defined_in_tips_md():
    defined = defined_tip_ids(_text(TIPS_MD))
    assert len(defined) == 12 and {"TIP-HIDE-WILD", "FACT-1360", "FACT-ROUNDS"} <= defined
    cited = _cited(TIP_ID)
    assert len(cited) >= 10
    assert _undefined(cited, defined) == {}


def test_spec_no_text_sends_the_reader_outside_the_repository():
    """No file of the repository points at ``../shared/`` (or the machine's ``/work/shared``), except the tests that
    compare with those copies when present (this file and conftest.py) and the bench, whose ceiling is optional."""
    allowed = {"tests/conftest.py", "tests/test_spec_ids.py"}
    bad = {}
    for f in _citing_files():
        rel = str(f.relative_to(ROOT))
        if rel in allowed:
            continue
        for n, line in enumerate(_text(f).splitlines(), 1):
            if "../shared" in line or "/work/shared" in line:
                bad.setdefault(rel, []).append(n)
    assert bad == {}


def test_spec_rule_options_named_in_rules_md_with_the_presets_values():
    text = _text(RULES_MD)
    classic = "".join(body for n, body in _sections(text).items() if n <= 8)
    assert [o for o in option_names() if f"`{o}`" not in classic and f"`{o} =" not in classic] == []
    # the R-PRESETS table: each cell's first value is that preset's option
    header = next(line for line in classic.splitlines() if line.startswith("| option |"))
    presets = re.findall(r"`([a-z_]+)`", header)
    assert presets == ["classic", "guide", "basic", "advanced", "two_player_draft", "three_player_draft"]
    rows = {re.match(r"\| `([a-z_]+)`", line).group(1): [c.strip() for c in line.split("|")[2:-1]]
            for line in classic.splitlines() if re.match(r"\| `[a-z_]+` \|", line)}
    for opt in ("challenge_draw_order", "actions_per_turn", "hidden_wilds"):
        for preset, cell in zip(presets, rows[opt], strict=True):
            shown = re.match(r"`?([a-z_0-9]+)`?", cell).group(1)
            assert shown == str(getattr(PRESETS[preset], opt)).lower(), (opt, preset, cell)
    for preset, cell in zip(presets, rows["hand_size"], strict=True):
        sizes = dict(PRESETS[preset].hand_size)
        assert str(sizes[max(sizes)]) in cell and str(sizes[min(sizes)]) in cell, (preset, cell)
    # "In every preset ...": the defaults every preset shares
    line = re.search(r"In every preset (.*?)\n\n", classic, re.DOTALL).group(1)
    for opt, value in re.findall(r"`([a-z_]+) = ([^`]+)`", line):
        for preset in PRESETS.values():
            assert tomllib.loads(f"v = {value}")["v"] == getattr(preset, opt), (opt, preset.name)


def test_spec_theft_options_named_in_rules_md_section_9_with_their_defaults():
    body = _sections(_text(RULES_MD))[9]
    assert [o for o in theft_option_names() if f"`{o}" not in body] == []
    default = TheftRuleSet()
    shown = re.findall(r"`([a-z_]+) = ([^`]+)`", body)
    assert len(shown) >= 20
    for opt, value in shown:
        assert tomllib.loads(f"v = {value}")["v"] == getattr(default, opt), opt
    assert get_rules("theft") == default


def _same_ids_as_shared(shared: Path, ours: Path, ids) -> None:
    if not shared.is_file():
        pytest.skip(f"{shared} does not exist (a clone has nothing beside it): nothing to compare with")
    assert ids(_text(shared)) == ids(_text(ours))


def test_spec_rules_md_defines_the_same_rule_ids_as_shared_rules_md():
    """Both name the same rule IDs (defined as a heading, in bold or inline) and the same sections."""
    _same_ids_as_shared(SHARED_RULES_MD, RULES_MD,
                        lambda t: ({m.group(0) for m in RULE_ID.finditer(t)}, set(_sections(t))))


def test_spec_tips_md_defines_the_same_tip_ids_as_shared_tips_md():
    _same_ids_as_shared(SHARED_TIPS_MD, TIPS_MD, defined_tip_ids)
