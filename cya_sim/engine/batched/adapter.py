"""The adapter that lets single-game Python agents play in the batched engine.

An agent written for one game at a time (``act(obs: Observation, rng) -> int``,
see :class:`agents.base.Agent`) plays in the batched engine like this:

1. the compiled loop (:func:`~cya_sim.engine.batched.api.run_compiled`) plays
   every compiled seat (``random``, ``greedy``) of every row until, in each
   row, a Python seat must act or the row's games are all over;
2. for each waiting row, :func:`reference_observation` builds the very
   :class:`~cya_sim.observation.Observation` the reference engine would give
   that seat (RULES.md §10), and the agent is called with its seat's NumPy
   stream (:func:`cya_sim.rng.stream_generator`, stream ``1 + seat``);
3. the actions go through :func:`~cya_sim.engine.batched.api.step`, which
   checks them against the legal action mask.

Each Python decision costs a Python call and an observation build (tens of
microseconds), so games with Python agents run at roughly the reference
engine's speed per decision of those agents; compiled seats stay fast. A new
agent object is made for each game and seat, as in the reference engine.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cya_sim.engine.batched import kernels as kn
from cya_sim.engine.batched.state import BatchState


def reference_observation(state: BatchState, row: int):
    """The reference :class:`~cya_sim.observation.Observation` of the seat to act in ``row``.

    Raises:
        ValueError: the row has no game in progress.
    """
    from cya_sim.engine.reference.legal import action_space
    from cya_sim.observation import ChallengeView, Observation, SetView

    b = int(row)
    seat = int(state.to_act[b])
    if seat < 0:
        raise ValueError(f"row {b} has no game in progress (to_act = -1)")
    rules = state.rules
    k = state.consts
    deck = rules.deck
    values = deck.values
    t, p, na = deck.n_types, state.n_players, deck.n_assets
    wv = values[na:]
    bit = 1 << seat
    seen = np.zeros(t, np.int64)
    stacks = []
    for owner in range(p):
        slots = []
        st = int(state.stack_top[b, owner])
        while st >= 0:
            slots.append(st)
            st = int(state.set_below[b, st])
        views = []
        for st in reversed(slots):
            known = state.set_counts[b, st].astype(np.int16)
            n_hidden = 0
            if not int(state.set_known0[b, st]) & bit:
                known[int(state.set_card0[b, st])] -= 1
                n_hidden = 1
            asset = int(state.set_asset[b, st])
            base = int((known.astype(np.int64) * values).sum())
            av = int(values[asset])
            lo = min(av, int(wv.min())) if len(wv) else av
            hi = max(av, int(wv.max())) if len(wv) else av
            views.append(SetView(owner, asset, int(state.set_size[b, st]), known, n_hidden,
                                 base + n_hidden * av, base + n_hidden * lo, base + n_hidden * hi))
            seen += known
        stacks.append(tuple(views))
    discard = tuple(int(c) for c in state.discard[b, : int(state.discard_len[b])])
    for c in discard:
        seen[c] += 1
    ch = None
    if state.ch_active[b]:
        n = int(state.ch_len[b])
        cards = tuple(int(c) for c in state.ch_cards[b, :n])
        for c in cards:
            seen[c] += 1
        ch = ChallengeView(int(state.ch_challenger[b]), int(state.ch_defender[b]), int(state.ch_asset[b]), cards,
                           tuple(int(x) for x in state.ch_players[b, :n]), seat)
    hand = state.hands[b, seat].astype(np.int16)
    mask = np.zeros(state.action_space.size, bool)
    kn.legal_mask_row(k, state.arrays, b, mask)
    return Observation(
        seat=seat, n_players=p, rules=rules, action_space=action_space(rules), hand=hand,
        stacks=tuple(stacks), discard_pile=discard, draw_size=int(k.cfg[kn.C_N] - state.draw_pos[b]),
        hand_sizes=state.hand_count[b].astype(np.int16), totals=state.totals[b].astype(np.int64),
        round=int(state.round[b]), dealer=int(state.dealer[b]), current_player=int(state.current_player[b]),
        phase="challenge" if state.ch_active[b] else "turn", challenge=ch,
        unseen=(k.deck_counts - hand - seen).astype(np.int16), gave_up=state.gave_up[b].copy(),
        legal_action_mask=mask,
    )


def play_with_python_agents(state: BatchState, progress: Callable[[int], None] | None = None) -> None:
    """Play every queued game of ``state`` to the end, Python seats through the per-step loop above.

    Raises:
        IllegalActionError: an agent returned an illegal action, or a value that is not an integer
            (a Python or NumPy integer, not a bool; nothing is coerced); the message names the game
            index, the seat, the agent and the value.
        AgentError: an agent's ``act`` raised (:mod:`cya_sim.engine.agent_calls`).
    """
    from agents import make_agent
    from cya_sim.engine.agent_calls import action_id, call_agent
    from cya_sim.engine.batched.api import IllegalActionError, run_compiled, step
    from cya_sim.rng import stream_generator

    key = int(state.key[0])
    b_n = state.batch_size
    current: dict[int, tuple[int, list, list]] = {}
    while True:
        before = int(state.r_done.sum())
        run_compiled(state)
        actions = np.zeros(b_n, np.int64)
        rows = np.zeros(b_n, bool)
        for b in np.flatnonzero(~state.done):
            b = int(b)
            seat = int(state.to_act[b])
            if state.agent_kind[b, seat] != kn.KIND_PYTHON:
                continue
            q = int(state.queue_pos[b])
            if b not in current or current[b][0] != q:
                g = int(state.q_game_index[q])
                names = [state.agent_names[int(j)] for j in state.q_seat_agent[q]]
                current[b] = (q, [make_agent(nm) for nm in names],
                              [stream_generator(key, g, 1 + s) for s in range(state.n_players)])
            _, seat_agents, rngs = current[b]
            name = state.agent_names[int(state.q_seat_agent[q, seat])]
            g = int(state.game_index[b])
            action = call_agent(seat_agents[seat], name, seat, g, reference_observation(state, b), rngs[seat])
            try:
                actions[b] = action_id(action, name, seat, g, state.action_space.size, ValueError)
            except ValueError as e:
                raise IllegalActionError(str(e), game_index=g, seat=seat, agent=name, action=-1, row=b) from None
            rows[b] = True
        if rows.any():
            step(state, actions, rows)
        if progress:
            progress(int(state.r_done.sum()) - before)
        if not rows.any() and state.done.all():
            break
