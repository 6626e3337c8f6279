"""Every rule ID of RULES.md §1, §3–5, §7 and §8 has a test named after it (the project's own RULES.md, at the
repository's root: these tests never skip)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import RULES_MD

ID_RE = re.compile(r"R-[A-Z0-9]+(?:-[A-Z0-9]+)*")
DEFINED_RE = re.compile(r"(?:^###\s+|\*\*)(R-[A-Z0-9]+(?:-[A-Z0-9]+)*)", re.MULTILINE)
SECTIONS = {1, 3, 4, 5, 7, 8}


def rule_ids(text: str) -> list[str]:
    """The R- IDs of §1, §3–5, §7 and §8 of RULES.md, in order of first mention.

    An ID mentioned there but defined (``### R-…`` or ``**R-…**``) in another section (for example
    R-ADV-TWO, §6, named in R-TURN as an exception) is not counted.
    """
    parts = re.split(r"^## (\d+)\.", text, flags=re.MULTILINE)
    by_section = {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    elsewhere = {m for n, body in by_section.items() if n not in SECTIONS for m in DEFINED_RE.findall(body)}
    out: list[str] = []
    for n in sorted(SECTIONS):
        for m in ID_RE.findall(by_section.get(n, "")):
            if m not in elsewhere and m not in out:
                out.append(m)
    return out


def _test_function_names() -> list[str]:
    """Names of every test function under tests/."""
    names = []
    for f in sorted(Path(__file__).parent.glob("test_*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.append(node.name)
    return names


def test_rule_id_coverage():
    """Each R- ID of §1, §3–5 and §8 (R-DECK-ACTION included, tested as refused / not built) names a test."""
    ids = rule_ids(RULES_MD.read_text(encoding="utf-8"))
    assert len(ids) >= 20 and "R-DECK-ACTION" in ids and "R-ADV-TWO" not in ids
    names = _test_function_names()
    missing = []
    for rid in ids:
        token = rid.lower().replace("-", "_")
        if not any(re.search(rf"(?:^|_){token}(?:_|$)", n) for n in names):
            missing.append(rid)
    assert missing == [], f"rule IDs with no test named after them: {', '.join(missing)}"


def test_rule_id_coverage_advanced():
    """Each R- ID defined in §6 (the advanced rules, preset ``advanced``) names a test."""
    parts = re.split(r"^## (\d+)\.", RULES_MD.read_text(encoding="utf-8"), flags=re.MULTILINE)
    body = {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}[6]
    ids = list(dict.fromkeys(DEFINED_RE.findall(body)))
    assert len(ids) >= 9 and "R-ADV-TWO" in ids and "R-ADV-SETUP" in ids
    names = _test_function_names()
    missing = [rid for rid in ids
               if not any(re.search(rf"(?:^|_){rid.lower().replace('-', '_')}(?:_|$)", n) for n in names)]
    assert missing == [], f"§6 rule IDs with no test named after them: {', '.join(missing)}"


def test_rule_ids_parsed():
    """The parser finds the IDs of §1, §3–5, §7 and §8 (at least those of RULES.md when this was written) and no
    ID of the advanced or theft rules."""
    ids = rule_ids(RULES_MD.read_text(encoding="utf-8"))
    assert not [i for i in ids if i.startswith(("R-ADV-", "R-T-"))]
    assert {"R-2P-DRAFT", "R-3P-DRAFT"} <= set(ids)
    assert set(ids) >= {
        "R-DECK-2011", "R-DECK-ACTION", "R-DECK-CUSTOM", "R-DECK-MULTI",
        "R-PRESETS", "R-NEW-ROUND", "R-SETUP", "R-HAND-SIZE", "R-TURN", "R-PAIR-HAND", "R-PAIR-DISCARD",
        "R-CHALLENGE", "R-DISCARD", "R-NO-WILD-PAIR", "R-NEW-SET", "R-REFILL", "R-EMPTY-DISCARD",
        "R-ROUND-END", "R-SCORE",
        "R-CH-ALLOWED", "R-CH-EXCHANGE", "R-CH-ONE", "R-HIDDEN-WILD",
        "R-GAME-END", "R-TIE",
    }
