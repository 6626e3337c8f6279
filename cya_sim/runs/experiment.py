"""Experiment files: one TOML file fixes a whole tournament (rules, agents, line-ups, games, seed, output).

An experiment file (``experiments/<name>.toml``) looks like::

    name = "baseline"                 # required; names the results
    description = "what it measures"  # optional
    seed = 2026                       # tournament seed, int >= 0
    games = 1_000_000                 # games per table size, int >= 1
    players = 4                       # table size, or a list of sizes [3, 4, 5]
    agents = ["random", "greedy"]     # the pool of registered agents
    out = "results/baseline"          # optional; default results/<name>

    [rules]
    preset = "classic"                # a preset of cya_sim.game.rules.PRESETS
    deck = "decks/mine.toml"          # optional, relative to the experiment file (R-DECK-CUSTOM)
    [rules.options]                   # optional rule options (cya-sim rules lists them)
    end_condition = "rounds:3"

    [design]
    kind = "round_robin"              # round_robin | one_vs_field | explicit | ablation
    repeats = false                   # round_robin: allow an agent more than once at a table
    duplicate = false                 # replay each deal with every rotation of every line-up
    # one_vs_field: candidates = ["greedy"], field = "random"
    # explicit:     tables = [["greedy", "random", "random", "random"]]
    # ablation:     field = "greedy", tips = [{id = "TIP-BACKUP", treatment = "heuristic(backup=true)",
    #                                          control = "heuristic"}]   (duplicate deals always)

    [run]                             # how to run; never changes a single game
    engine = "auto"                   # auto | batched | reference
    workers = 2                       # local worker processes (default: all cores)
    chunk_size = 20_000               # games per chunk file (default: automatic)
    scheduler = "tcp://host:8786"     # a Dask distributed scheduler (default: local processes)

Every field is checked by :func:`parse_experiment` before anything is played;
a wrong one raises :class:`ExperimentError` naming the field (dotted path,
e.g. ``design.kind``) and what is allowed. Which game plays which deal in which
seat, and how the games are cut into chunks: :mod:`cya_sim.runs.schedule`.

**Ablation** (tip studies): each tip names a *treatment* and a
*control* policy, the same policy with only the tip's switch changed. Every
distinct arm (treatment or control) sits against P - 1 copies of ``field``,
on duplicate deals (always), so the treatment and the control play the same
deals in the same seats against the same field, seats rotated; the paired
analysis is :mod:`cya_sim.studies.tips`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cya_sim.errors import FieldError
from cya_sim.game.limits import MAX_GAMES, MAX_SEED, MAX_WORKERS
from cya_sim.game.rules import DeckError, RulesError, RuleSet, get_rules, load_deck, rule_option_names
from cya_sim.play.families import family_of
from cya_sim.tomltext import TomlTextError, load_toml

DESIGN_KINDS = ("round_robin", "one_vs_field", "explicit", "ablation")
ENGINE_CHOICES = ("auto", "batched", "reference")
TOP_KEYS = ("name", "description", "seed", "games", "players", "agents", "out", "rules", "design", "run")
RULES_KEYS = ("preset", "deck", "options")
DESIGN_KEYS = {
    "round_robin": ("kind", "repeats", "duplicate"),
    "one_vs_field": ("kind", "candidates", "field", "duplicate"),
    "explicit": ("kind", "tables", "duplicate"),
    "ablation": ("kind", "tips", "field", "duplicate"),
}
_TIP_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
RUN_KEYS = ("engine", "workers", "chunk_size", "scheduler")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SCHEDULER_RE = re.compile(r"^(tcp|tls|inproc|ucx)://[^\s/]+(:[0-9]+)?/?$")


def is_scheduler_address(value: Any) -> bool:
    """Whether ``value`` is a Dask distributed scheduler address as ``run.scheduler`` takes it: a string
    ``PROTOCOL://HOST[:PORT]`` with protocol ``tcp``, ``tls``, ``inproc`` or ``ucx`` (the address forms of
    ``distributed.Client``). Only the form is checked; :func:`cya_sim.runs.runner.connect` checks that it answers."""
    return isinstance(value, str) and _SCHEDULER_RE.match(value) is not None


class ExperimentError(FieldError):
    """A field of an experiment is missing or outside what is allowed.

    ``str(e)`` is one line: ``field 'design.kind': 'rr'; choose one of: ...``.

    Attributes:
        field: dotted path of the field (``"games"``, ``"design.tables[1]"``, ``"run.scheduler"``).
        detail: what was wrong and what is allowed.
    """


@dataclass(frozen=True)
class Design:
    """A line-up design, normalised.

    Attributes:
        kind: ``round_robin`` | ``one_vs_field`` | ``explicit``.
        repeats: round robin only — line-ups are multisets of the pool
            (``itertools.combinations_with_replacement``) without the ones of
            a single agent, instead of sets (``itertools.combinations``).
        candidates, field: one-versus-field only — each candidate sits
            against P - 1 copies of ``field``.
        tables: explicit only — the line-ups as agent names, each of one
            table size.
        duplicate: every game of a cycle plays the same deal (module docstring).
        tips: ablation only — (id, treatment, control) agent specs per tip;
            ``field`` is the opponents' agent and ``duplicate`` is always true.
    """

    kind: str
    repeats: bool = False
    candidates: tuple[str, ...] = ()
    field: str = ""
    tables: tuple[tuple[str, ...], ...] = ()
    duplicate: bool = False
    tips: tuple[tuple[str, str, str], ...] = ()

    @property
    def arms(self) -> tuple[str, ...]:
        """Ablation: the distinct treatment and control specs, in order of first mention (one line-up each)."""
        return tuple(dict.fromkeys(a for _tid, t, c in self.tips for a in (t, c)))

    def to_dict(self) -> dict[str, Any]:
        """JSON/TOML-ready dict of the fields this kind uses."""
        d: dict[str, Any] = {"kind": self.kind}
        if self.kind == "round_robin":
            d["repeats"] = self.repeats
        elif self.kind == "one_vs_field":
            d["candidates"] = list(self.candidates)
            d["field"] = self.field
        elif self.kind == "ablation":
            d["field"] = self.field
            d["tips"] = [{"id": i, "treatment": t, "control": c} for i, t, c in self.tips]
        else:
            d["tables"] = [list(t) for t in self.tables]
        d["duplicate"] = self.duplicate
        return d


@dataclass(frozen=True)
class RunOptions:
    """How to run (never changes a game).

    Attributes:
        engine: ``auto`` (batched when ``cya_sim.engine.batched`` imports,
            else reference), ``batched`` or ``reference``.
        workers: local worker processes, >= 1; None = :func:`cya_sim.runs.schedule.default_workers` (the usable cores),
            or one for a small run of built-in compiled agents (:func:`cya_sim.runs.runner.run_workers`).
        chunk_size: games per chunk, >= 1; None = automatic (:func:`cya_sim.runs.schedule.auto_chunk_size`).
            Fixed in the manifest at the first run; a resume keeps it.
        scheduler: address of a Dask distributed scheduler, or None for local processes.
    """

    engine: str = "auto"
    workers: int | None = None
    chunk_size: int | None = None
    scheduler: str | None = None


@dataclass(frozen=True)
class Experiment:
    """A validated experiment (build it with :func:`parse_experiment` or :func:`load_experiment`).

    Attributes:
        name: identifier ([A-Za-z0-9_.-]).
        description: free text.
        rules: the rule set (preset plus options, R-PRESETS).
        players: (S,) table sizes, each allowed by the rules, distinct.
        agents: (K,) distinct registered agent names, the pool; every
            ``seat_agent`` index refers to it.
        design: the line-up design.
        games: games per table size (>= 1); ``total_games = games * S``.
        seed: tournament seed (>= 0), through :func:`cya_sim.game.rng.root_key`.
        out: results folder.
        run: :class:`RunOptions`.
        source: the experiment file, when read from one.
    """

    name: str
    rules: RuleSet
    players: tuple[int, ...]
    agents: tuple[str, ...]
    design: Design
    games: int
    seed: int
    out: Path
    run: RunOptions = field(default_factory=RunOptions)
    description: str = ""
    source: Path | None = None

    @property
    def total_games(self) -> int:
        """Games over every table size."""
        return self.games * len(self.players)

    def lineups(self, n_players: int) -> np.ndarray:
        """(L, P) int16 line-ups at table size P, indices into :attr:`agents` (see :func:`design_lineups`)."""
        return design_lineups(self.design, self.agents, n_players)

    def identity(self) -> dict[str, Any]:
        """JSON-ready dict of everything that fixes the games (and so the results).

        Name, rules, table sizes, agents, design, games and seed. ``out``,
        ``description`` and :class:`RunOptions` are left out: they never change
        a game. Two runs into one folder must have equal identities.
        """
        return {
            "name": self.name,
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "agents": list(self.agents),
            "design": self.design.to_dict(),
            "games": int(self.games),
            "seed": int(self.seed),
        }

    def to_toml(self) -> str:
        """The experiment as TOML text that :func:`parse_experiment` reads back to an equal identity.

        Rules are written as their full option list (``[rules.options]``), so
        a custom deck is written in full too (``[rules.options.deck]``).
        """
        lines = [f"name = {_toml_value(self.name)}"]
        if self.description:
            lines.append(f"description = {_toml_value(self.description)}")
        lines += [f"seed = {self.seed}", f"games = {self.games}",
                  f"players = {_toml_value(list(self.players))}", f"agents = {_toml_value(list(self.agents))}",
                  f"out = {_toml_value(str(self.out))}", "", "[rules]", f"preset = {_toml_value(_preset_of(self.rules))}"]
        opts = _rule_options(self.rules)
        if opts:
            lines.append(f"options = {_toml_value(opts)}")
        lines += ["", "[design]"] + [f"{k} = {_toml_value(v)}" for k, v in self.design.to_dict().items()]
        run = {k: v for k, v in vars(self.run).items() if v is not None}
        lines += ["", "[run]"] + [f"{k} = {_toml_value(v)}" for k, v in run.items()]
        return "\n".join(lines) + "\n"


# -- parsing ---------------------------------------------------------------------
def load_experiment(path: str | Path, overrides: Mapping[str, Any] | None = None) -> Experiment:
    """Read and validate an experiment file, with command-line overrides applied first.

    Args:
        path: the TOML file.
        overrides: dotted field -> value (``{"games": 400, "design.duplicate": True}``),
            applied to the file's data before validation (:func:`apply_overrides`).

    Returns:
        the validated :class:`Experiment` (``source`` = ``path``).

    Raises:
        ExperimentError: unreadable file (field ``"file"``), invalid TOML, or
            any invalid field.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ExperimentError("file", f"cannot read {str(path)!r} ({e.strerror or e}); give an experiment TOML file")
    except UnicodeDecodeError as e:
        raise ExperimentError("file", f"{str(path)!r} is not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    try:
        data = load_toml(text)
    except TomlTextError as e:
        raise ExperimentError("file", f"{str(path)!r}: {e}") from None
    if overrides:
        data = apply_overrides(data, overrides)
    return parse_experiment(data, base_dir=path.parent, source=path)


def apply_overrides(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` with dotted keys set (``"run.workers" -> 2`` sets ``data["run"]["workers"]``).

    A value of None removes the key. The result is validated later by
    :func:`parse_experiment`, so an override can be as wrong as a file field
    and is reported the same way.

    Raises:
        ExperimentError: a dotted key goes through a field that is not a table.
    """
    out = _deep_copy(dict(data))
    for dotted, value in overrides.items():
        parts = dotted.split(".")
        node = out
        for i, part in enumerate(parts[:-1]):
            nxt = node.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise ExperimentError(".".join(parts[: i + 1]), f"is {nxt!r}, not a table; cannot set {dotted!r}")
            node = nxt
        if value is None:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
    return out


def parse_experiment(data: Mapping[str, Any], base_dir: str | Path = ".", source: Path | None = None) -> Experiment:
    """Validate experiment data (a parsed TOML document) into an :class:`Experiment`.

    Fields are checked in a fixed order (unknown keys first, then name,
    rules, agents, players, design, games, seed, out, run) and the first
    error is raised.

    Args:
        data: the document (module docstring lists the fields).
        base_dir: folder that relative ``rules.deck`` paths start from.
        source: the file the data came from, kept in the result.

    Raises:
        ExperimentError: the first invalid field, named by its dotted path.
    """
    if not isinstance(data, Mapping):
        raise ExperimentError("file", "the experiment must be a TOML table")
    _check_keys(data, TOP_KEYS, "")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ExperimentError("name", f"{name!r}; give a name of letters, digits, '_', '.' or '-' (it names the results)")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ExperimentError("description", f"{description!r}; it must be a string")

    rules = _parse_rules(data.get("rules", {}), Path(base_dir))

    known = family_of(rules).agent_names()
    agents_raw = data.get("agents")
    if not isinstance(agents_raw, list) or not agents_raw:
        raise ExperimentError("agents", f"{agents_raw!r}; give a non-empty list of agent names from: {', '.join(known)}")
    for i, a in enumerate(agents_raw):
        _check_agent(a, f"agents[{i}]", known, rules)
    if len(set(agents_raw)) != len(agents_raw):
        dup = next(a for a in agents_raw if agents_raw.count(a) > 1)
        raise ExperimentError("agents", f"{dup!r} is listed twice; list each agent of the pool once")
    agents = tuple(agents_raw)

    design_raw = data.get("design", {"kind": "round_robin"})
    players_raw = data.get("players")
    if players_raw is None and isinstance(design_raw, Mapping) and design_raw.get("kind") == "explicit":
        tabs = design_raw.get("tables")
        if isinstance(tabs, list) and tabs and all(isinstance(t, list) for t in tabs):
            players_raw = sorted({len(t) for t in tabs})
    players = _parse_players(players_raw, rules)
    design = _parse_design(design_raw, agents, players)
    check_settings(rules, agents, design, players)

    games = data.get("games")
    if not _is_int(games) or not 1 <= games <= MAX_GAMES:
        raise ExperimentError("games", f"{games!r}; it must be an integer from 1 to {MAX_GAMES:,} (games per table size)")
    seed = data.get("seed")
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise ExperimentError("seed", f"{seed!r}; it must be an integer from 0 to {MAX_SEED:,}")
    out = data.get("out", f"results/{name}")
    if not isinstance(out, str) or not out.strip():
        raise ExperimentError("out", f"{out!r}; give a folder path as a string")
    run = _parse_run(data.get("run", {}))
    return Experiment(name=name, rules=rules, players=players, agents=agents, design=design, games=int(games),
                      seed=int(seed), out=Path(out), run=run, description=description, source=source)


def _parse_rules(raw: Any, base_dir: Path) -> RuleSet:
    if not isinstance(raw, Mapping):
        raise ExperimentError("rules", f"{raw!r}; it must be a table with preset, options and deck")
    _check_keys(raw, RULES_KEYS, "rules")
    preset = raw.get("preset", "classic")
    try:
        rules = get_rules(preset) if isinstance(preset, str) else None
    except RulesError as e:
        raise ExperimentError("rules.preset", str(e)) from None
    if rules is None:
        raise ExperimentError("rules.preset", f"{preset!r}; give a preset name as a string")
    options = raw.get("options", {})
    if not isinstance(options, Mapping):
        raise ExperimentError("rules.options", f"{options!r}; it must be a table of rule options")
    allowed = rule_option_names(rules)
    options = dict(options)
    for k in options:
        if k not in allowed:
            raise ExperimentError(f"rules.options.{k}", f"unknown rule option; choose from: {', '.join(allowed)}")
    if isinstance(options.get("deck"), Mapping):
        options["deck"] = _deck_from_dict(options["deck"])
    deck = raw.get("deck")
    if deck is not None and not family_of(rules).takes_deck_file:
        raise ExperimentError("rules.deck", f"rules {rules.name!r} have their own deck; change it in [rules.options]")
    if deck is not None:
        if not isinstance(deck, str):
            raise ExperimentError("rules.deck", f"{deck!r}; give the path of a TOML deck file as a string")
        path = Path(deck) if Path(deck).is_absolute() else base_dir / deck
        try:
            options["deck"] = load_deck(path)
        except (DeckError, OSError) as e:
            raise ExperimentError("rules.deck", f"{e}") from None
    if options:
        try:
            rules = rules.with_options(**options)
        except (RulesError, DeckError, TypeError, ValueError) as e:
            key = next((k for k in options if repr(k) in str(e)), None)
            raise ExperimentError(f"rules.options.{key}" if key else "rules.options", str(e)) from None
    return rules


def _deck_from_dict(d: Mapping[str, Any]):
    """A deck from :meth:`RuleSet.to_dict`'s deck form (what :meth:`Experiment.to_toml` writes)."""
    from cya_sim.game.rules import CardType, Deck

    try:
        return Deck(name=d["name"], cards=tuple(CardType(**c) for c in d["cards"]))
    except (KeyError, TypeError, DeckError) as e:
        raise ExperimentError("rules.options.deck", f"not a deck ({e}); give name and cards") from None


def _parse_players(raw: Any, rules: RuleSet) -> tuple[int, ...]:
    allowed = f"an integer from {rules.min_players} to {rules.max_players} (rules {rules.name!r}) or a list of them"
    if raw is None:
        raise ExperimentError("players", f"missing; give {allowed}")
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        raise ExperimentError("players", f"empty list; give {allowed}")
    for i, p in enumerate(items):
        where = f"players[{i}]" if isinstance(raw, list) else "players"
        if not _is_int(p) or not rules.min_players <= p <= rules.max_players:
            raise ExperimentError(where, f"{p!r}; give {allowed}")
        try:
            rules.check_table(p)  # enough cards at this size (hand_size, deck, R-DECK-MULTI)
        except RulesError as e:
            key = next((k for k in ("hand_size", "extra_deck_unit", "target_score", "deck") if repr(k) in str(e)), None)
            raise ExperimentError(f"rules.options.{key}" if key else where, str(e)) from None
    if len(set(items)) != len(items):
        raise ExperimentError("players", f"{raw!r} lists a table size twice; list each once")
    return tuple(int(p) for p in items)


def _parse_design(raw: Any, agents: tuple[str, ...], players: tuple[int, ...]) -> Design:
    if not isinstance(raw, Mapping):
        raise ExperimentError("design", f"{raw!r}; it must be a table with kind = {' | '.join(DESIGN_KINDS)}")
    kind = raw.get("kind", "round_robin")
    if kind not in DESIGN_KINDS:
        raise ExperimentError("design.kind", f"{kind!r}; choose one of: {', '.join(DESIGN_KINDS)}")
    _check_keys(raw, DESIGN_KEYS[kind], "design", f" for kind {kind!r}")
    duplicate = raw.get("duplicate", False)
    if not isinstance(duplicate, bool):
        raise ExperimentError("design.duplicate", f"{duplicate!r}; it must be true or false")
    if kind == "round_robin":
        repeats = raw.get("repeats", False)
        if not isinstance(repeats, bool):
            raise ExperimentError("design.repeats", f"{repeats!r}; it must be true or false")
        if len(agents) < 2:
            raise ExperimentError("agents", f"a round robin needs at least 2 agents in the pool; got {len(agents)}")
        for p in players:
            if not repeats and len(agents) < p:
                raise ExperimentError(
                    "design.repeats", f"false, but the pool has {len(agents)} agents for {p} seats; set repeats = "
                    f"true (an agent may hold several seats) or list at least {p} agents")
        return Design(kind, repeats=repeats, duplicate=duplicate)
    if kind == "one_vs_field":
        cands = raw.get("candidates")
        if isinstance(cands, str):
            cands = [cands]
        if not isinstance(cands, list) or not cands:
            raise ExperimentError("design.candidates", f"{cands!r}; give a non-empty list of agents from the pool "
                                  f"({', '.join(agents)})")
        for i, c in enumerate(cands):
            if c not in agents:
                raise ExperimentError(f"design.candidates[{i}]", f"{c!r} is not in the pool; choose from: "
                                      f"{', '.join(agents)}")
        if len(set(cands)) != len(cands):
            raise ExperimentError("design.candidates", f"{cands!r} lists an agent twice; list each once")
        fld = raw.get("field")
        if fld not in agents:
            raise ExperimentError("design.field", f"{fld!r}; choose the baseline agent from the pool: "
                                  f"{', '.join(agents)}")
        if fld in cands:
            raise ExperimentError("design.field", f"{fld!r} is also a candidate; the field must be another agent")
        return Design(kind, candidates=tuple(cands), field=fld, duplicate=duplicate)
    if kind == "ablation":
        return _parse_ablation(raw, agents, duplicate)
    tables = raw.get("tables")
    if not isinstance(tables, list) or not tables:
        raise ExperimentError("design.tables", "give a non-empty list of line-ups, each a list of agent names "
                              "(one per seat)")
    seen_sizes = set()
    for i, t in enumerate(tables):
        if not isinstance(t, list) or not t:
            raise ExperimentError(f"design.tables[{i}]", f"{t!r}; give a list of agent names, one per seat")
        if len(t) not in players:
            raise ExperimentError(f"design.tables[{i}]", f"has {len(t)} seats; players allows "
                                  f"{', '.join(map(str, players))}")
        for j, a in enumerate(t):
            if a not in agents:
                raise ExperimentError(f"design.tables[{i}][{j}]", f"{a!r} is not in the pool; choose from: "
                                      f"{', '.join(agents)}")
        seen_sizes.add(len(t))
    for p in players:
        if p not in seen_sizes:
            raise ExperimentError("design.tables", f"no line-up of {p} seats, but players lists {p}")
    return Design(kind, tables=tuple(tuple(t) for t in tables), duplicate=duplicate)


def _parse_ablation(raw: Mapping[str, Any], agents: tuple[str, ...], duplicate: bool) -> Design:
    """``design.kind = "ablation"``: tips as {id, treatment, control}, a field, duplicate deals (the tip study)."""
    if not duplicate and "duplicate" in raw:
        raise ExperimentError("design.duplicate", "false; an ablation always plays duplicate deals (treatment and "
                              "control on the same deals); omit it or set it true")
    fld = raw.get("field")
    if fld not in agents:
        raise ExperimentError("design.field", f"{fld!r}; choose the opponents' agent from the pool: {', '.join(agents)}")
    tips = raw.get("tips")
    if not isinstance(tips, list) or not tips:
        raise ExperimentError("design.tips", "give a non-empty list of tables {id, treatment, control} "
                              "(agent specs from the pool)")
    out, seen = [], set()
    for i, t in enumerate(tips):
        where = f"design.tips[{i}]"
        if not isinstance(t, Mapping):
            raise ExperimentError(where, f"{t!r}; give a table {{id, treatment, control}}")
        _check_keys(t, ("id", "treatment", "control"), where)
        tid = t.get("id")
        if not isinstance(tid, str) or not _TIP_ID_RE.match(tid):
            raise ExperimentError(f"{where}.id", f"{tid!r}; give an id of letters, digits, '_', '.', ':' or '-'")
        if tid in seen:
            raise ExperimentError(f"{where}.id", f"{tid!r} is listed twice; give each tip once")
        seen.add(tid)
        for arm in ("treatment", "control"):
            a = t.get(arm)
            if a not in agents:
                raise ExperimentError(f"{where}.{arm}", f"{a!r} is not in the pool; choose from: {', '.join(agents)}")
            if a == fld:
                raise ExperimentError(f"{where}.{arm}", f"{a!r} is the field; an arm must be another agent")
        if t["treatment"] == t["control"]:
            raise ExperimentError(f"{where}.control", f"{t['control']!r} is also the treatment; give the same policy "
                                  "with the switch changed (an A/A check may spell the same policy another way)")
        out.append((tid, t["treatment"], t["control"]))
    return Design("ablation", field=fld, tips=tuple(out), duplicate=True)


def _parse_run(raw: Any) -> RunOptions:
    if not isinstance(raw, Mapping):
        raise ExperimentError("run", f"{raw!r}; it must be a table ({', '.join(RUN_KEYS)})")
    _check_keys(raw, RUN_KEYS, "run")
    engine = raw.get("engine", "auto")
    if engine not in ENGINE_CHOICES:
        raise ExperimentError("run.engine", f"{engine!r}; choose one of: {', '.join(ENGINE_CHOICES)}")
    workers = raw.get("workers")
    if workers is not None and (not _is_int(workers) or not 1 <= workers <= MAX_WORKERS):
        raise ExperimentError("run.workers", f"{_shown(workers)}; it must be an integer from 1 to {MAX_WORKERS:,} "
                              "(omit it for all cores)")
    chunk = raw.get("chunk_size")
    if chunk is not None and (not _is_int(chunk) or not 1 <= chunk <= MAX_GAMES):
        raise ExperimentError("run.chunk_size", f"{_shown(chunk)}; it must be an integer from 1 to {MAX_GAMES:,} "
                              "(omit it for automatic)")
    sched = raw.get("scheduler")
    if sched is not None and not is_scheduler_address(sched):
        raise ExperimentError("run.scheduler", f"{sched!r}; give a Dask scheduler address like tcp://HOST:PORT "
                              "(omit it for local worker processes)")
    return RunOptions(engine=engine, workers=None if workers is None else int(workers),
                      chunk_size=None if chunk is None else int(chunk), scheduler=sched)


def _check_agent(spec: Any, where: str, known: Sequence[str], rules=None) -> None:
    """Refuse an agent the engines cannot build: whatever the rules' game family's ``make_agent``
    accepts is allowed (:func:`cya_sim.play.families.family_of`: registered names, specs with parameters, module:Class)."""
    make_agent = family_of(rules).make_agent

    if not isinstance(spec, str) or not spec.strip():
        raise ExperimentError(where, f"{spec!r}; give an agent name as a string, one of: {', '.join(known)}")
    try:
        make_agent(spec)
    except (ValueError, TypeError, ImportError) as e:
        detail = " ".join(str(e).split())
        raise ExperimentError(where, detail if repr(spec) in detail else f"{spec!r}: {detail}") from None


def check_settings(rules, agents: Sequence[str], design: Design, players: Sequence[int]) -> None:
    """Refuse, before anything is played, an agent seated at a table size or under rules it does not play (a
    learned model trained for one setting: :meth:`cya_sim.play.family.GameFamily.check_setting`)."""
    fam = family_of(rules)
    for p in players:
        for i in sorted({int(a) for a in np.unique(design_lineups(design, agents, p))}):
            try:
                fam.check_setting(agents[i], rules, p)
            except ValueError as e:
                raise ExperimentError(f"agents[{i}]", " ".join(str(e).split())) from None


# -- line-ups and schedule -------------------------------------------------------
def design_lineups(design: Design, agents: Sequence[str], n_players: int) -> np.ndarray:
    """The line-ups of a design at table size P.

    - ``round_robin``: every P-agent subset of the pool in
      ``itertools.combinations`` order (each agent at most once); with
      ``repeats``, every multiset (``combinations_with_replacement``) except
      the single-agent ones. Seat order within a line-up is pool order; the
      rotations then seat them every way round.
    - ``one_vs_field``: per candidate, ``[candidate, field, ..., field]``.
    - ``ablation``: per arm (:attr:`Design.arms`), ``[arm, field, ..., field]``.
    - ``explicit``: the listed tables of P seats, as written.

    Returns:
        (L, P) int16 indices into ``agents``, L >= 1.
    """
    k = len(agents)
    idx = {a: i for i, a in enumerate(agents)}
    if design.kind == "round_robin":
        if design.repeats:
            combos = [c for c in itertools.combinations_with_replacement(range(k), n_players) if len(set(c)) > 1]
        else:
            combos = list(itertools.combinations(range(k), n_players))
        rows = combos
    elif design.kind == "one_vs_field":
        rows = [[idx[c]] + [idx[design.field]] * (n_players - 1) for c in design.candidates]
    elif design.kind == "ablation":
        rows = [[idx[c]] + [idx[design.field]] * (n_players - 1) for c in design.arms]
    else:
        rows = [[idx[a] for a in t] for t in design.tables if len(t) == n_players]
    return np.asarray(rows, dtype=np.int16).reshape(len(rows), n_players)


def resolve_engine(name: str, rules=None) -> tuple[str, str]:
    """The engine that will play (``auto`` -> ``batched`` when importable and the deck fits) and a note.

    Each game family answers for its own batched engine (:meth:`~cya_sim.play.family.GameFamily.batched_refusal`,
    :meth:`~cya_sim.play.family.GameFamily.play_games`): the theft game (RULES.md §9) plays on its own.

    Raises:
        ExperimentError: ``batched`` asked for explicitly but not importable, or ``rules`` has a
            deck of more card types than it takes (field ``run.engine``).
    """
    if name == "reference":
        return "reference", ""
    family = family_of(rules)
    why = "" if rules is None else family.batched_refusal(rules)
    if why:
        if name == "batched":
            raise ExperimentError("run.engine", f"'batched': {why}; use auto or reference")
        return "reference", f"{why}; the reference engine plays"
    try:
        family.play_games("batched")
    except ImportError as e:
        if name == "batched":
            raise ExperimentError("run.engine", f"'batched' is not available ({e}); use auto or reference") from None
        return "reference", "the batched engine is not available; the reference engine plays"
    return "batched", ""


# -- helpers ---------------------------------------------------------------------
def _is_int(v: object) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _check_keys(d: Mapping[str, Any], allowed: Sequence[str], where: str, extra: str = "") -> None:
    for k in d:
        if k not in allowed:
            name = f"{where}.{k}" if where else k
            raise ExperimentError(name, f"unknown field{extra}; allowed: {', '.join(allowed)}")


def _deep_copy(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _deep_copy(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_deep_copy(v) for v in d]
    return d


def _preset_of(rules: RuleSet) -> str:
    return rules.name.removesuffix("+custom")


def _rule_options(rules: RuleSet) -> dict[str, Any]:
    """Options of ``rules`` that differ from its preset's (deck in full when it differs)."""
    base = get_rules(_preset_of(rules)).to_dict()
    mine = rules.to_dict()
    out = {}
    for k, v in mine.items():
        if k in ("name", "family") or base.get(k) == v:
            continue
        out[k] = v
    return out


def _toml_value(v: Any) -> str:
    """A TOML literal of a str, bool, int, float, list or dict (inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, np.integer)):
        return repr(int(v)) if isinstance(v, (int, np.integer)) else repr(float(v))
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {v!r} as TOML")


def _toml_key(k: Any) -> str:
    k = str(k)
    return k if re.match(r"^[A-Za-z0-9_-]+$", k) else _toml_value(k)


def _shown(v: Any) -> str:
    """``v`` as Python shows it, cut to 40 characters for a one-line refusal (an integer of thousands of digits)."""
    t = repr(v)
    return t if len(t) <= 40 else f"{t[:37]}..."
