"""What each seat has seen this round outside its hand, kept in the game row (RULES.md §10 "unseen").

The row's ``B_SEEN_PUBLIC`` (T) and ``B_SEEN_PRIVATE`` (P*T) blocks
(:mod:`cya_sim.engine.classic.layout`) let a compiled agent read its unseen cards without a
recount each decision: the rules (:mod:`.rules`, :mod:`.draft`) call :func:`reveal` at every event
that takes a card out of a hand or turns one face up; :func:`unseen_of` reads the counts;
:func:`count_unseen` counts the same from where the cards are (no kept state) and
:func:`recount_seen` rebuilds the blocks for rows written from outside the rules (the search's
determinizations). ``tests/test_kernel_unseen.py`` checks kept == recount for every seat at every
decision of random games of every preset and draft.

Every function takes ``K`` (a :class:`~cya_sim.engine.classic.layout.Consts`) and one row ``G``
((W,) int64). This module depends on the layout only, so :mod:`.rules` and :mod:`.draft` both use it.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.classic.layout import (
    B_ADV_REMOVED,
    B_CHCARDS,
    B_DECK,
    B_DISC,
    B_DRAFT_LEN,
    B_HANDS,
    B_SCARD0,
    B_SCOUNTS,
    B_SEEN_PRIVATE,
    B_SEEN_PUBLIC,
    B_SKNOWN0,
    C_DRAFT_PILES,
    C_DRAFT_SIZE,
    C_N,
    C_P,
    C_T,
    G_CH_ACTIVE,
    G_CH_LEN,
    G_DISC_LEN,
    G_DRAFT_DOWN,
    G_DRAW_POS,
    G_N_SETS,
)
from cya_sim.engine.intrinsics import cttz
from cya_sim.engine.jit import JIT


@njit(**JIT)
def reveal(K, G, card, seats):
    """Note that the seats of bitmask ``seats`` have now seen ``card`` (a card type id) outside their own hands.

    Call it when a card leaves a hand (``seats`` must then include its holder) or the draw pile or
    a face-down place to a place where those seats see it, and when seats newly see a card already
    out of the hands (only the new seers). Every seat → the card counts once in ``B_SEEN_PUBLIC``;
    else once per seat in ``B_SEEN_PRIVATE``. The rules call it at every such event: a card
    discarded, laid face up or shown in a challenge (everyone), the first discard (everyone), a card
    laid face down beneath a set (its knower bitmask, R-HIDDEN-WILD), a hidden set card a winning
    challenger takes (the winner, if new to it), a draft pile's card turned face up (everyone,
    R-2P-DRAFT / R-3P-DRAFT; drafted into a set it stays seen). Drawing into a hand needs no call (a
    hand is seen by its seat). A seat's unseen cards are then
    ``deck_counts - hand - seen_public - seen_private[seat]`` (:func:`unseen_of`), equal to
    :func:`count_unseen` at every decision. New rules that show a card must call it too.
    """
    t = K.cfg[C_T]
    if seats == (1 << K.cfg[C_P]) - 1:
        G[K.lay[B_SEEN_PUBLIC] + card] += 1
    else:
        u = K.lay[B_SEEN_PRIVATE] + card
        while seats != 0:
            s = cttz(seats)
            seats &= seats - 1
            G[u + s * t] += 1


@njit(inline="always", **JIT)
def unseen_bases(K, seat):
    """Where ``seat``'s kept counts start in the row: (hand, public seen cards, the seat's privately seen cards),
    for :func:`unseen_one`."""
    t = K.cfg[C_T]
    return K.lay[B_HANDS] + seat * t, K.lay[B_SEEN_PUBLIC], K.lay[B_SEEN_PRIVATE] + seat * t


@njit(inline="always", **JIT)
def unseen_one(K, G, bases, c):
    """A seat's unseen cards of type ``c`` (int; RULES.md §10) from the kept counts, ``bases`` its
    :func:`unseen_bases`: the deck's count less the seat's hand, the public seen cards and its privately seen ones."""
    h0, u0, v0 = bases
    return K.deck_counts[c] - G[h0 + c] - G[u0 + c] - G[v0 + c]


@njit(**JIT)
def unseen_of(K, G, seat, out):
    """``seat``'s unseen cards ((T,) int64 into ``out``; RULES.md §10) from the kept counts, without a recount
    (:func:`unseen_one` of every type)."""
    bases = unseen_bases(K, seat)
    for c in range(K.cfg[C_T]):
        out[c] = unseen_one(K, G, bases, c)


@njit(**JIT)
def _draft_face_down(K, G, j):
    """Cards of draft pile ``j`` that are face down (all but a face-up top; R-2P-DRAFT, R-3P-DRAFT)."""
    n = G[K.lay[B_DRAFT_LEN] + j]
    if n > 0 and (G[G_DRAFT_DOWN] >> j) & 1 == 0:
        return n - 1
    return n


@njit(**JIT)
def count_unseen(K, G, seat, out):
    """Count ``seat``'s unseen cards from where the cards are now, into ``out`` ((T,) int64); no kept state.

    The other seats' hands, the draw pile, the face-down draft cards (§7) and the first card of
    every set whose knower bitmask lacks the seat (R-HIDDEN-WILD). Every card is in exactly one place
    (a hand, the draw pile, a draft pile, the discard pile, a challenge, a set, or out of the game
    face up — a Swap or Move card, §6, seen by all), so this equals "cards in play minus everything
    the seat has seen" (``Observation.unseen``, RULES.md §10).
    """
    L = K.lay
    t = K.cfg[C_T]
    p = K.cfg[C_P]
    hb = L[B_HANDS]
    for c in range(t):
        out[c] = 0
    for s in range(p):
        if s != seat:
            for c in range(t):
                out[c] += G[hb + s * t + c]
    d0 = L[B_DECK]
    for i in range(G[G_DRAW_POS], K.cfg[C_N]):
        out[G[d0 + i]] += 1
    size = K.cfg[C_DRAFT_SIZE]
    for j in range(K.cfg[C_DRAFT_PILES]):
        for i in range(_draft_face_down(K, G, j)):
            out[G[d0 + j * size + i]] += 1
    for st in range(G[G_N_SETS]):
        if (G[L[B_SKNOWN0] + st] >> seat) & 1 == 0:
            out[G[L[B_SCARD0] + st]] += 1


@njit(**JIT)
def recount_seen(K, G):
    """Rebuild ``B_SEEN_PUBLIC`` and ``B_SEEN_PRIVATE`` of row ``G`` from the card locations.

    For rows written from outside the rules (the search's determinizations); the rules keep the
    blocks themselves with :func:`reveal`. Public: the discard pile, the challenge cards, the
    face-up draft tops (§7), the cards out of the game (``B_ADV_REMOVED``, §6) and every set card
    but a first card some seat does not know; private: those first cards, for each seat that knows them.
    """
    L = K.lay
    t = K.cfg[C_T]
    p = K.cfg[C_P]
    u0 = L[B_SEEN_PUBLIC]
    v0 = L[B_SEEN_PRIVATE]
    everyone = (1 << p) - 1
    for c in range(t):
        G[u0 + c] = 0
    for i in range(p * t):
        G[v0 + i] = 0
    for i in range(G[G_DISC_LEN]):
        G[u0 + G[L[B_DISC] + i]] += 1
    if G[G_CH_ACTIVE]:
        for i in range(G[G_CH_LEN]):
            G[u0 + G[L[B_CHCARDS] + i]] += 1
    for c in range(t):  # cards out of the game (§6 Swap/Move), face up
        G[u0 + c] += G[L[B_ADV_REMOVED] + c]
    size = K.cfg[C_DRAFT_SIZE]
    for j in range(K.cfg[C_DRAFT_PILES]):
        n = G[L[B_DRAFT_LEN] + j]
        if n > _draft_face_down(K, G, j):
            G[u0 + G[L[B_DECK] + j * size + n - 1]] += 1
    for st in range(G[G_N_SETS]):
        c0 = L[B_SCOUNTS] + st * t
        for c in range(t):
            G[u0 + c] += G[c0 + c]
        known = G[L[B_SKNOWN0] + st]
        if known != everyone:
            card0 = G[L[B_SCARD0] + st]
            G[u0 + card0] -= 1
            for s in range(p):
                if (known >> s) & 1:
                    G[v0 + s * t + card0] += 1
