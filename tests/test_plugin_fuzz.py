"""The misbehaving compiled plug-ins as an input family (issue 29, item 6): counts of clean refusal / traceback /
hang / crash / wrongly accepted.

Each plug-in kind (raises, returns a non-integer, an id outside the action space, an illegal id, writes into its
mask, loops for ever) plays in each role (a player on the batched and on the reference engine, the rollout of
``ismcts`` and of ``pimc``) in each game (classic, theft): one ``cya-sim tournament`` process per case. A case is
*clean* when the run ends with exit status 2 and one line naming the agent (for the loop: Ctrl-C ends it with
``interrupted`` and exit status 130 within 10 s); a traceback, a hang, a crash (a signal) or exit 0 (the games
stored as if the plug-in had played) are counted against it.

Print the counts (from the repository's root)::

    python tests/test_plugin_fuzz.py          # 48 cases, about 10 minutes on 2 shared cores
    python tests/test_plugin_fuzz.py loop     # the cases of one kind (or more)

``make test-slow`` runs the same family and requires every case clean.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

KINDS = ("raise", "non_integer", "out_of_range", "illegal", "mask_writer", "loop")
ROLES = ("player-batched", "player-reference", "rollout-ismcts", "rollout-pimc")
GAMES = ("classic", "theft")
OUTCOMES = ("clean", "traceback", "hang", "crash", "wrongly accepted")

_BODY = {
    "raise": "    if hdr[0] >= 0:\n        raise ValueError('fuzz')\n    return 0\n",
    "non_integer": "    return 0.5 + hdr[0]\n",
    "out_of_range": "    return 10 ** 9\n",
    "illegal": "    for a in range(mask.shape[0]):\n        if not mask[a]:\n            return a\n    return -1\n",
    "mask_writer": "    for a in range(mask.shape[0]):\n        mask[a] = True\n    return mask.shape[0] - 1\n",
    "loop": "    n = 0\n    while hdr[0] >= 0:\n        n += 1\n    return n\n",
}
_ARGS = {"classic": "params, hdr, hand, values, unseen, seats, gave_up, mask, rng",
         "theft": "params, hdr, hand, values, unseen, assets, mask, rng"}


def plugin_source() -> str:
    """One module with every kind for both games: ``classic_<kind>`` and ``theft_<kind>``."""
    out = ["from numba import njit\n"]
    for game in GAMES:
        for kind in KINDS:
            out.append(f"\n@njit(cache=True)\ndef {game}_{kind}({_ARGS[game]}):\n{_BODY[kind]}")
    return "\n".join(out)


def _group_cpu(pgid: int, but: int) -> float:
    """CPU seconds of the busiest process of group ``pgid`` other than ``but`` (Linux /proc); 0 if none."""
    tick, best = os.sysconf("SC_CLK_TCK"), 0.0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == but:
            continue
        try:
            f = (d / "stat").read_text()
        except OSError:
            continue
        f = f[f.rindex(")") + 2:].split()
        if int(f[2]) == pgid and f[0] not in ("Z", "X"):
            best = max(best, (int(f[11]) + int(f[12])) / tick)
    return best


def sigint_as_at_a_terminal() -> None:
    """Let the runs started from here see SIGINT as at a terminal: a shell's background job (``cmd &``) starts with
    SIGINT ignored, and an ignored signal stays ignored in every child (a handled one is reset at ``exec``)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_case(folder: Path, module: str, kind: str, role: str, game: str) -> tuple[str, str]:
    """Play one case in its own process group; ``(outcome, last stderr line)``."""
    spec = f"{module}:{game}_{kind}"
    engine = "batched" if role == "player-batched" else "reference"
    if role.startswith("rollout"):
        agent = f'{role.split("-")[1]}(iterations=30, rollout="{spec}")'
    else:
        agent = spec
    out = folder / f"out-{game}-{kind}-{role}"
    cmd = [sys.executable, "-m", "cya_sim.cli.main", "tournament", "--quiet", "--rules", game, "--engine", engine,
           "--agents", f"{agent},greedy", "--games", "2", "--players", "2", "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(folder)}, cwd=folder)
    interrupted = False
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.3)
            if kind == "loop" and _group_cpu(proc.pid, proc.pid) >= 2.0:  # looping in its worker
                break
        if proc.poll() is None:
            interrupted = True
            os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=10 if interrupted else 120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hang", ""
    lines = [x for x in err.splitlines() if x.strip()]
    last = lines[-1] if lines else ""
    if proc.returncode < 0 or proc.returncode >= 128 and proc.returncode != 130:
        return "crash", last
    if "Traceback" in err or proc.returncode == 1:
        return "traceback", last
    if proc.returncode == 0:
        return "wrongly accepted", last
    if kind == "loop":
        return ("clean" if interrupted and proc.returncode == 130 and last == "interrupted" else "hang"), last
    named = len(lines) == 1 and (spec in last or role.startswith("rollout") and "rollout" in last)
    return ("clean" if proc.returncode == 2 and named else "traceback"), last


def run_family(folder: Path, cases=None) -> dict[tuple[str, str, str], tuple[str, str]]:
    """Every case (or ``cases``: (kind, role, game) triples): its outcome and last line."""
    sigint_as_at_a_terminal()
    module = f"fuzz_plugins_{os.getpid()}"
    (folder / f"{module}.py").write_text(plugin_source())
    cases = cases or [(k, r, g) for g in GAMES for k in KINDS for r in ROLES]
    return {c: run_case(folder, module, *c) for c in cases}


def _cases_from_argv(argv: list[str]) -> list[tuple[str, str, str]] | None:
    """``KIND ...`` on the command line: only the cases of those kinds (all roles and games)."""
    kinds = [k for k in argv if k in KINDS]
    return [(k, r, g) for g in GAMES for k in kinds for r in ROLES] if kinds else None


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir() or not hasattr(os, "killpg"), reason="needs Linux /proc and process groups")
def test_every_misbehaving_plugin_case_is_a_clean_refusal(tmp_path):
    results = run_family(tmp_path)
    bad = {c: r for c, r in results.items() if r[0] != "clean"}
    assert not bad, bad


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        t0 = time.monotonic()
        res = run_family(Path(d), _cases_from_argv(sys.argv[1:]))
        counts = Counter(o for o, _ in res.values())
        for (kind, role, game), (outcome, line) in sorted(res.items(), key=lambda x: (x[0][2], x[0][0], x[0][1])):
            print(f"{game:8} {kind:13} {role:17} {outcome:16} {line[:150]}")
        print(f"{len(res)} cases in {time.monotonic() - t0:.0f} s: "
              + ", ".join(f"{o} {counts.get(o, 0)}" for o in OUTCOMES))
