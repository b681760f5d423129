"""Pinned values: the random streams and a few deals, as literal numbers and card texts.

A change to the generator, its seeding, the shuffle or the deal order changes
every seeded result; these tests say so at once.  The literals were taken once
from ``lostcards.rules.streams`` and are checked here against an independent
transcription of the published algorithms (splitmix64 and xoshiro256** from
Blackman and Vigna's reference C code, Lemire's bounded integers), which must
reproduce the published test vectors first.
"""
import engine_adapter as ea
import numpy as np
import pytest

from lostcards.engine import rng as numba_rng
from lostcards.reference.round import Round, deal_record
from lostcards.rules.cards import format_card
from lostcards.rules.ruleset import rules
from lostcards.rules.streams import Stream
from lostcards.run.runner import play_records

M64 = (1 << 64) - 1


# ---------------------------------------------------------------------------
# The published algorithms, transcribed independently
# ---------------------------------------------------------------------------

def splitmix64(state: int):
    """splitmix64.c: add the golden gamma, then mix; one output per call."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def xoshiro256starstar(words):
    """xoshiro256starstar.c: the output is rotl(s1 * 5, 7) * 9, then the state steps."""
    s = list(words)

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    while True:
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        yield result


def first(gen):
    return next(gen)


def stream_words(seed: int, round_index: int, stream: int) -> list:
    """The project's keying, in words: key = splitmix64's first output from `seed`; then the first
    output from key xor round; then from that xor stream; the four xoshiro words are splitmix64's
    outputs 2 to 5 from the key."""
    key = first(splitmix64(first(splitmix64(first(splitmix64(seed)) ^ round_index)) ^ stream))
    outs = splitmix64(key)
    next(outs)
    return [next(outs) for _ in range(4)]


def bounded(gen, n: int) -> int:
    """Lemire's nearly divisionless method on the high 32 bits of each output, with rejection."""
    m = (next(gen) >> 32) * n
    if (m & 0xFFFFFFFF) < n:
        t = ((1 << 32) - n) % n
        while (m & 0xFFFFFFFF) < t:
            m = (next(gen) >> 32) * n
    return m >> 32


def test_the_transcriptions_give_the_published_vectors():
    assert [next(g) for g in [splitmix64(1234567)] for _ in range(5)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431,
        16408922859458223821]
    g = xoshiro256starstar([1, 2, 3, 4])
    assert [next(g) for _ in range(10)] == [
        11520, 0, 1509978240, 1215971899390074240, 1216172134540287360, 607988272756665600,
        16172922978634559625, 8476171486693032832, 10595114339597558777, 2904607092377533576]


def test_both_generators_step_like_the_published_one():
    py = Stream(0, 0, 0)
    py.s = [1, 2, 3, 4]
    nb = np.array([1, 2, 3, 4], np.uint64)
    want = [11520, 0, 1509978240, 1215971899390074240, 1216172134540287360]
    assert [py.next64() for _ in want] == want
    assert [int(numba_rng.next64(nb)) for _ in want] == want


# ---------------------------------------------------------------------------
# Known answers of the project's streams
# ---------------------------------------------------------------------------

FIRST_8 = [7488424536269927768, 16753341444895653885, 12643700214055858025, 1115028120695380831,
           14829167477625560071, 5388218154819621485, 7137854355819859927, 2827057079031159708]
BELOW_N = (1, 2, 3, 10, 52, 60, 75, 1000, 2**31 + 1, 2**32 - 1)
BELOW = [0, 1, 2, 0, 41, 17, 29, 153, 65589456, 2051065650]
# 3 * 2**30 rejects a quarter of the outputs: the first 8 draws take 10 outputs
BELOW_3G = [2925518453, 2207880644, 194709536, 940906725, 1246433417, 493669139, 98384184, 1538299238]


def test_the_first_outputs_of_stream_1_0_0():
    s = Stream(1, 0, 0)
    assert [s.next64() for _ in range(8)] == FIRST_8
    g = xoshiro256starstar(stream_words(1, 0, 0))
    assert [next(g) for _ in range(8)] == FIRST_8
    nb = np.zeros(4, np.uint64)
    numba_rng.seed_stream(nb, 1, 0, 0)
    assert [int(numba_rng.next64(nb)) for _ in range(8)] == FIRST_8


@pytest.mark.parametrize("ns,want", [(BELOW_N, BELOW), ((3 << 30,) * 8, BELOW_3G)], ids=["mixed", "rejecting"])
def test_bounded_integers_of_stream_1_0_0(ns, want):
    s = Stream(1, 0, 0)
    assert [s.below(n) for n in ns] == want
    g = xoshiro256starstar(stream_words(1, 0, 0))
    assert [bounded(g, n) for n in ns] == want
    nb = np.zeros(4, np.uint64)
    numba_rng.seed_stream(nb, 1, 0, 0)
    assert [int(numba_rng.below(nb, n)) for n in ns] == want
    numba_rng.seed_stream(nb, 1, 0, 0)
    held = tuple(nb)                     # the same stream held in four values
    got = []
    for n in ns:
        v, *held = numba_rng.below_held(n, *(np.uint64(w) for w in held))
        got.append(int(v))
    assert got == want


def test_other_streams_follow_the_same_keying():
    for key in [(0, 0, 0), (7, 3, 2), (2**40 + 5, 123456, 4), (M64, M64, 1)]:
        s = Stream(*key)
        g = xoshiro256starstar(stream_words(*key))
        assert [s.next64() for _ in range(3)] == [next(g) for _ in range(3)], key


# ---------------------------------------------------------------------------
# Golden deals
# ---------------------------------------------------------------------------

GOLDEN = [
    # (preset, players, seed, round): hands as dealt, the deck's first 12 cards, its size, (solitaire) the aside's
    (("expeditions", 2, 1, 0),
     ["8C 5H JC 2D 2C 3H", "9S QH JH 4D 2S 2H"], "8D 10C 10D 4C 10S 7C KD 7H 6C QS KH 8S", 36, None),
    (("lost-cities", 4, 2, 5),
     ["4R 2G 3B 4R 7W QR 2W 4Y", "4G 2W 3G 4G 9W 5B 6Y 4B", "3R 10R 6B 3R 2G 4W 8Y 3Y",
      "9Y 7G 2Y 3Y 3W QG 2R QW"], "8G 3W KR 8B 5Y 6W 2R 6R QB QY JW 5R", 43, None),
    (("expeditions", 1, 3, 7),
     ["6S 5H 4S KD 2C 6C"], "7C 3H 9C 2H JD 5C 10D JS 2S 4C QC 8S", 18,
     "6D KC 8C 2D QD 3S 10C 4D JH KH 7H 8H"),
]


@pytest.mark.parametrize("key,hands,deck,deck_size,aside", GOLDEN,
                         ids=["-".join(map(str, g[0])) for g in GOLDEN])
def test_golden_deals(key, hands, deck, deck_size, aside):
    preset, players, seed, round_index = key
    r = rules(preset, players=players)
    rec = deal_record(Round.dealt(r, seed, round_index))
    assert [" ".join(h) for h in rec["hands"]] == hands
    assert " ".join(rec["deck"][:12]) == deck and len(rec["deck"]) == deck_size
    if aside:
        assert " ".join(rec["aside"][:12]) == aside
    # the numba engine deals the same: the batch loop's record, and each seat's hand in the adapter
    engine = play_records(r, "random", "random", [round_index], seed=seed)[0]
    assert [engine[k] for k in ("hands", "deck")] == [rec["hands"], rec["deck"]]
    e = ea.deal(r, seed, round_index)
    for seat, hand in enumerate(hands):
        assert sorted(format_card(c, r.letters) for c in ea.observe(e, seat).hand) == sorted(hand.split())
