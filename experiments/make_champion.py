"""Write the champion: one plug-in that plays, at every table size under the classic and the advanced rules, the
learned network chosen for that cell (:func:`agents.classic.learned.write_bundle`).

    python experiments/make_champion.py

writes ``agents/learned_models/champion.npz`` and ``champion.py``; the agent is
``agents.learned_models.champion:decide``, refused in one line at any other setting. The choice per cell (the
candidate with the highest win share against ``card_counter`` in every other seat on the learning curve's fresh
games; docs/strategy.md, "The champion") is :data:`MEMBERS`; each member is a committed model with its own curve
and training record.
"""

from __future__ import annotations

import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parents[1] / "agents" / "learned_models"

#: The model of each cell.
MEMBERS = {
    "classic 2p": "classic_2p",
    "classic 3p": "classic_3p_pimc200",
    "classic 4p": "classic_4p_pimc200",
    "classic 6p": "classic_6p_pimc200",
    "advanced 2p": "advanced_2p_ismcts200",
    "advanced 3p": "advanced_3p_ismcts200",
    "advanced 4p": "advanced_4p_ismcts200",
    "advanced 6p": "advanced_6p_ismcts200",
}


def main() -> int:
    """Write the bundle; returns 0."""
    from agents.classic.learned import write_bundle

    py = write_bundle(MODELS / "champion", [MODELS / m for m in MEMBERS.values()])
    for cell, m in MEMBERS.items():
        print(f"{cell}: {m}")
    print(f"wrote {py} and {py.with_suffix('.npz')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
