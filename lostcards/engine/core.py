"""The rules core in one place: the state API of the numba engine (deal, check, apply, observe).

A round's state is one block of ``STATE_WORDS`` int64 words (``layout.STATE``):
the rules block, copied in once per batch, then the round.  Every function
takes a raw pointer ``st`` to such a block (``bits.ptr(array)``), so nothing on
the per-turn path touches a reference-counted array.  Cards are bits (two words
a card set, see ``layout``); discard piles are stacks of 4-bit entries; copies
of a card (4 players) are told apart by plane (first copy, second copy) so the
statistics count physical cards, while policies see only counts.

The jobs live in three modules, listed here as one API (for the batch loop, and
for a search bot that plays out its own guesses of the hidden cards, inside numba):

- ``deal``: ``rules_block(ruleset)`` (Python) -> int64 array; ``load_rules(st, rb)``
  copies it into a block; ``deal(st, mem, seed, round_index, first, totals)``
  shuffles and deals as ``docs/engine.md`` says (``mem``: the seats' memory,
  ``layout.SEAT_MEM`` per seat, whose streams it seeds); ``deal_order(st, mem,
  order, ...)`` deals a given order; ``clear_round``, ``add_to_hand``,
  ``set_deck`` build a state by hand; ``copy_state(dst, src)`` (a scratch copy).
- ``apply``: ``check(st, move)`` -> 0 or an ``Illegal`` code, changes nothing;
  ``apply(st, move)`` -> the same, and on 0 plays the move, runs the end checks
  (deck, stall, hand-empty, capped, in that order) and passes the turn on.
- ``apply`` also has ``step(st, move)`` (``apply`` compiled once, for callers that play out many
  guessed states and should not inline the rules) and ``pass_held``.
- ``state``: ``ended(st)``, ``seat_to_move(st)``, ``hand_size``, ``deck_left``,
  ``held(st, seat)``, ``expeditions``/``accepted(st, side)``, ``draw_options`` (the legal draws),
  ``pile_top_slot``/``pile_top_card``/``pile_entry`` (discard piles), ``side_score(st, side)``,
  ``score_of`` (the scoring rule) and ``expedition_score(lane, ...)``, ``card_word``/``card_bit``,
  ``observe(st, seat)`` -> ``Obs`` (what that seat may see: SPEC §3).
- ``determinize`` (its own module): the hidden-card sampler that search bots and the analysis share.

Moves are built with ``engine.moves`` (re-exported here: ``make_play``,
``make_pass``, ``TO_*``, ``DRAW_*``).
"""
from __future__ import annotations

from numba import types

from lostcards.engine.apply import apply, apply_as, apply_simple2, check, check_as, pass_held, step
from lostcards.engine.deal import (
                                   add_to_hand,
                                   card_set,
                                   clear_round,
                                   codes_of,
                                   copy_state,
                                   deal,
                                   deal_order,
                                   load_rules,
                                   obs_rules_words,
                                   physical_ids,
                                   rules_block,
                                   set_deck,
)
from lostcards.engine.intrinsics import as_u64
from lostcards.engine.layout import HI_BASE, LANE, NUMBER_SLOTS, STATE_WORDS
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, draw_pile, make_pass, make_play
from lostcards.engine.state import (
                                   END_CAPPED,
                                   END_DECK,
                                   END_HAND_EMPTY,
                                   END_ILLEGAL,
                                   END_NONE,
                                   END_STALL,
                                   accepted,
                                   can_pass,
                                   card_bit,
                                   card_word,
                                   deck_left,
                                   draw_options,
                                   ended,
                                   expedition_score,
                                   expeditions,
                                   hand_size,
                                   held,
                                   holds,
                                   lane_count,
                                   lane_investments,
                                   lane_of,
                                   lane_sum,
                                   observe,
                                   observe_as,
                                   pile_entry,
                                   pile_top_card,
                                   pile_top_slot,
                                   score_of,
                                   seat_to_move,
                                   side_score,
                                   suit_of,
)

STATE_TYPE = types.CPointer(types.int64)
MEM_TYPE = types.CPointer(types.uint64)
__all__ = [
    "apply", "apply_as", "apply_simple2", "check", "check_as", "pass_held", "step", "accepted", "draw_options", "held",
    "pile_entry", "score_of", "card_bit", "card_word", "expeditions", "pile_top_slot",
    "as_u64", "add_to_hand", "card_set", "clear_round",
    "codes_of", "copy_state", "deal", "deal_order", "load_rules", "obs_rules_words", "physical_ids",
    "rules_block", "set_deck", "STATE_WORDS", "DRAW_DECK", "DRAW_NONE", "TO_DISCARD",
    "TO_EXPEDITION", "draw_pile", "make_pass", "make_play", "END_CAPPED", "END_DECK",
    "END_HAND_EMPTY", "END_ILLEGAL", "END_NONE", "END_STALL", "HI_BASE", "LANE", "NUMBER_SLOTS",
    "can_pass", "deck_left", "ended", "expedition_score", "hand_size", "holds", "lane_count",
    "lane_investments", "lane_of", "lane_sum", "observe", "observe_as", "pile_top_card",
    "seat_to_move", "side_score", "suit_of", "STATE_TYPE", "MEM_TYPE",
]
