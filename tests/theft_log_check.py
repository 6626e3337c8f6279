"""An independent reader of a theft game's log that checks every line against RULES.md §9.

It shares no code with the engine: it tracks every hand and asset from the
log's own words (dealt, draws, builds, thefts, answers, discards) and asserts
that each line is a legal move under the default ``theft`` rules and that
every total, winner and turn follows from the lines before it.
"""

from __future__ import annotations

import re
from collections import Counter

VALUE = {**{str(n): n for n in range(1, 11)}, "Gold": 1}
THEFTS = ("Theft", "Gold Theft")


def _cards(text: str) -> list[str]:
    """Card names of a ``"3, 7, Gold Theft"`` list (``"nothing"`` for none)."""
    return [] if text == "nothing" else text.split(", ")


def _is_pair(a: str, b: str) -> bool:
    """R-T-TURN: equal numbers, or a number with a gold card; two gold cards do not pair."""
    if a in THEFTS or b in THEFTS:
        return False
    return (a == b and a != "Gold") or ((a == "Gold") != (b == "Gold"))


def _assets_text(assets: list[list[str]]) -> str:
    return "[" + ", ".join("+".join(a) + f"={sum(VALUE[c] for c in a)}" for a in assets) + "]"


def check_log(lines: list[str], hand_limit: int = 5, draw_per_turn: int = 2, assets_to_end: int = 3) -> dict:
    """Check a whole log; returns a summary (players, turns, winners, points). Raises AssertionError."""
    lines = [re.sub(r"seat (\d+) \([^)]*\)", r"seat \1", x) for x in lines]
    m = re.match(r"game \d+: (\d+) players, rules theft; seat (\d+) moves first", lines[0])
    assert m, lines[0]
    p, first = int(m[1]), int(m[2])
    hands = [Counter() for _ in range(p)]
    assets: list[list[list[str]]] = [[] for _ in range(p)]
    turn, mover, pending, last_turns = 0, -1, None, None
    setup_next = first
    discarding = False
    result = {}
    for line in lines[1:]:
        if m := re.fullmatch(r"seat (\d+) is dealt (.*)", line):
            hands[int(m[1])] = Counter(_cards(m[2]))
            assert sum(hands[int(m[1])].values()) == 5, line
        elif m := re.fullmatch(r"seat (\d+) lays its first asset: (\S+) face-down, (\S+) face-up \(worth (\d+)\)",
                               line):
            s, down, up = int(m[1]), m[2], m[3]
            assert s == setup_next, line
            assert down not in THEFTS and up not in THEFTS, line
            hands[s] -= Counter([down, up])
            assert min(hands[s].values(), default=0) >= 0 and int(m[4]) == VALUE[down] + VALUE[up], line
            assets[s].append([down, up])
            setup_next = (s + 1) % p
        elif m := re.fullmatch(r"seat (\d+) holds fewer than two asset cards and lays no first asset", line):
            s = int(m[1])
            assert sum(v for c, v in hands[s].items() if c not in THEFTS) < 2, line
            setup_next = (s + 1) % p
        elif m := re.fullmatch(r"turn (\d+)( \(a last turn, R-T-END\))?: seat (\d+) draws (.*); holds (.*); "
                               r"draw pile (\d+)", line):
            assert pending is None and not discarding
            turn += 1
            assert int(m[1]) == turn, line
            s = int(m[3])
            assert s == (first if mover < 0 else (mover + 1) % p), line
            mover = s
            drawn = _cards(m[4])
            assert len(drawn) == draw_per_turn, line
            hands[s] += Counter(drawn)
            assert hands[s] == Counter(_cards(m[5])), line
            if last_turns is not None:
                assert m[2], line
                last_turns -= 1
        elif m := re.fullmatch(r"seat (\d+) builds (\S+)\+(\S+) \(worth (\d+)\); assets (.*)", line):
            s, a, b = int(m[1]), m[2], m[3]
            assert s == mover and pending is None and _is_pair(a, b), line
            hands[s] -= Counter([a, b])
            assert min(hands[s].values(), default=0) >= 0 and int(m[4]) == VALUE[a] + VALUE[b], line
            assets[s].append([a, b])
            assert m[5] == _assets_text(assets[s]), line
        elif m := re.fullmatch(r"seat (\d+) plays a (Theft|Gold Theft) on seat (\d+)'s asset #(\d+) \((.*)\)", line):
            s, card, t, k = int(m[1]), m[2], int(m[3]), int(m[4])
            assert s == mover and t != s and hands[s][card] > 0 and k < len(assets[t]), line
            assert m[5] == _assets_text([assets[t][k]])[1:-1], line
            hands[s][card] -= 1
            pending = (s, t, k, card)
        elif m := re.fullmatch(r"seat (\d+) cancels it with (\S+)\+(\S+) from hand; .*", line):
            t, a, b = int(m[1]), m[2], m[3]
            assert pending and pending[1] == t and _is_pair(a, b), line
            assert pending[3] != "Gold Theft" or "Gold" in (a, b), line
            hands[t] -= Counter([a, b])
            assert min(hands[t].values(), default=0) >= 0, line
            pending = None
        elif m := re.fullmatch(r"seat (\d+) cancels it by giving up (?:the targeted asset|its asset) #(\d+) .*", line):
            t, k = int(m[1]), int(m[2])
            assert pending and pending[1] == t and k < len(assets[t]), line
            assert pending[3] != "Gold Theft" or "Gold" in assets[t][k], line
            assets[t].pop(k)
            pending = None
        elif m := re.fullmatch(r"seat (\d+) lets it pass: seat (\d+) takes the asset \((.*?)\); .*", line):
            t, s = int(m[1]), int(m[2])
            assert pending and pending[:2] == (s, t), line
            assets[s].append(assets[t].pop(pending[2]))
            assert m[3] == _assets_text([assets[s][-1]])[1:-1], line
            pending = None
        elif m := re.fullmatch(r"seat (\d+) ends its turn holding (\d+) cards: (.*)", line):
            s = int(m[1])
            assert s == mover and pending is None and hands[s] == Counter(_cards(m[3])), line
            discarding = sum(hands[s].values()) > hand_limit
        elif m := re.fullmatch(r"seat (\d+) discards (.+?) \(down to (\d+): (\d+) left\)", line):
            s, c = int(m[1]), m[2]
            assert discarding and s == mover and hands[s][c] > 0, line
            hands[s][c] -= 1
            assert sum(hands[s].values()) == int(m[4]) >= hand_limit, line
            discarding = sum(hands[s].values()) > hand_limit
        elif m := re.fullmatch(r"seat (\d+) has (\d+) assets (.*) at the end of a turn: every other player gets one "
                               r"more turn \(R-T-END\)", line):
            s = int(m[1])
            assert last_turns is None and s == mover and len(assets[s]) == int(m[2]) >= assets_to_end, line
            assert m[3] == _assets_text(assets[s]), line
            last_turns = p - 1
        elif line.startswith("  the draw pile is empty"):
            pass
        elif m := re.fullmatch(r"seat (\d+) scores (\d+): assets (.*)", line):
            s = int(m[1])
            assert m[3] == _assets_text(assets[s]) and int(m[2]) == sum(VALUE[c] for a in assets[s] for c in a), line
        elif m := re.fullmatch(r"game over after (\d+) turns: winner\(s\) (.*); points (.*)", line):
            assert int(m[1]) == turn and last_turns == 0, line
            points = [sum(VALUE[c] for a in assets[s] for c in a) for s in range(p)]
            assert [int(x) for x in m[3].split(", ")] == points, line
            winners = [int(x) for x in re.findall(r"seat (\d+)", m[2])]
            assert winners == [s for s in range(p) if points[s] == max(points)], line
            result = {"players": p, "turns": turn, "winners": winners, "points": points}
        else:
            raise AssertionError(f"a line the checker does not know: {line!r}")
    assert result, "the log has no game-over line"
    return result
