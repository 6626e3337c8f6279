"""Results folders of older schema versions: which versions this cya-sim reads, and how an old chunk is read.

The results schema version is the manifest's ``format`` key, and every chunk file written at version 3 or later
records its own in its Arrow schema's metadata (:data:`VERSION_KEY`), so a folder of an older version resumed by
this one (its new chunks at the current version) is still read chunk by chunk. The versions:

1. the first folders: ``manifest.json``, ``runs.json`` and the chunks of ``games.parquet/``, whose columns spoke
   the classic game (``first_dealer``, ``rounds``, ``challenges``, ``largest_steal`` in dollars...); the
   ``capped`` column was added during this version (an older chunk lacks it: no game was capped then).
2. added ``chunks.json`` (every chunk's size and SHA-256); the same columns.
3. the manifest names the game family (``family``) and the chunks hold the common columns and the family's own
   result columns in its words (:func:`cya_sim.results.folder.games_schema`), with the version in each chunk.

An older chunk is upgraded to the current schema here, and only here (:func:`upgrade_chunk`): the classic
family's columns of versions 1 and 2 are its current columns (the same names; their integers are widened to the
declared dtypes as they are read) and ``capped`` is False where it is missing. The theft game's chunks of versions
1 and 2 held stand-ins (the seat before the first player as ``first_dealer``, ``rounds`` = 1, thefts as
``challenges``) and no cancelled thefts, which cannot be recovered, so they are refused with the command that
replays the same games (:func:`refusal`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

#: The version this cya-sim writes.
SCHEMA_VERSION = 3

#: Every version this cya-sim reads.
READ_VERSIONS = (1, 2, 3)

#: The key of a chunk's Arrow schema metadata that holds its schema version (from version 3 on).
VERSION_KEY = b"cya_sim.schema_version"

#: The key of a chunk's Arrow schema metadata that holds its game family (from version 3 on).
FAMILY_KEY = b"cya_sim.family"


def versions_text() -> str:
    """The versions this cya-sim reads, as text: ``1, 2 and 3``."""
    v = [str(x) for x in READ_VERSIONS]
    return ", ".join(v[:-1]) + " and " + v[-1] if len(v) > 1 else v[0]


def manifest_family(manifest: dict[str, Any]) -> str:
    """The game family of a results folder: the manifest's ``family`` (version 3), else its rules' (versions 1 and 2
    stored it only in ``experiment.rules.family``; a rule set without one is ``classic``)."""
    if "family" in manifest:
        return str(manifest["family"])
    rules = manifest.get("experiment", {}).get("rules", {})
    return str(rules.get("family", "classic")) if isinstance(rules, dict) else "classic"


def chunk_version(schema: pa.Schema) -> int:
    """The schema version of a chunk file from its Arrow schema: its metadata's (version 3 on), else 2 (versions 1
    and 2 wrote the same columns and no version).

    Raises:
        ValueError: the recorded version is not an integer (the message says what it found).
    """
    raw = (schema.metadata or {}).get(VERSION_KEY)
    if raw is None:
        return 2
    try:
        return int(raw.decode())
    except (UnicodeDecodeError, ValueError):
        raise ValueError(f"records schema version {raw[:20]!r}, not an integer") from None


def refusal(version: int, family: str, folder: str) -> str:
    """Why games of ``family`` stored at schema ``version`` cannot be read by this cya-sim, or "" if they can.

    The reason is one line: a version newer than this cya-sim's names the version found and the versions read;
    the theft game's games of versions 1 and 2 name the command that replays them (the same seed gives the same
    games).
    """
    if version not in READ_VERSIONS:
        return (f"results schema version {version}; this cya-sim reads versions {versions_text()} (a newer cya-sim "
                "wrote it: upgrade cya-sim to read it)")
    if version < 3 and family != "classic":
        return (f"the {family} game's games at results schema version {version}, with stand-ins for its own "
                f"columns and no cancelled thefts; replay them into a new folder (cya-sim tournament "
                f"{folder}/experiment.toml --out NEW_FOLDER: the same seed plays the same games)")
    return ""


def upgrade_chunk(table: pa.Table, version: int) -> pa.Table:
    """The columns of one chunk read at the current schema (:data:`SCHEMA_VERSION`).

    Args:
        table: the columns read from a chunk file whose version and family :func:`refusal` accepts.
        version: the chunk's schema version (:func:`chunk_version`).

    Returns:
        ``table`` with what versions 1 and 2 lacked: ``capped`` all False when it is missing (chunks written before
        the column existed; no game was capped then). Every other column keeps its name; its values are widened to
        the current dtypes as they are read.
    """
    if version < 3 and "capped" not in table.column_names:
        table = table.append_column("capped", pa.array(np.zeros(table.num_rows, bool)))
    return table
