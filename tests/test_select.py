"""The select (kth_bit): PDEP and broadword give the same bit, the pile table agrees, and the choice is explained."""
import numpy as np
import pytest

from lostcards.engine import bits
from lostcards.errors import BadArgument
from lostcards.numba_cache import jit


@jit
def _selects(masks, ks, out):
    for i in range(masks.shape[0]):
        out[i, 0] = bits.kth_bit_pdep(masks[i], ks[i])
        out[i, 1] = bits.kth_bit_broadword(masks[i], ks[i])
        out[i, 2] = bits.kth_bit(masks[i], ks[i])
        out[i, 3] = bits.kth_of_six(masks[i] & 63, ks[i] & 7)
        out[i, 4] = bits.kth_of_six_table(masks[i] & 63, ks[i] & 7)


def _words():
    rng = np.random.default_rng(11)
    n = 20_000
    masks = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    masks[::3] &= rng.integers(0, 2**63 - 1, n, dtype=np.int64)[::3]      # sparser words
    masks[::4] &= 63                                                      # pile masks
    masks[::5] = 0
    masks[1::7] = -1
    masks[2::9] = np.int64(-2**63)                                        # bit 63 alone
    return masks, rng.integers(0, 64, n, dtype=np.int64)


@pytest.mark.skipif(not bits.HAS_PDEP, reason="no BMI2: PDEP cannot run here")
def test_pdep_broadword_and_the_pile_table_give_the_python_answer():
    masks, ks = _words()
    out = np.zeros((len(masks), 5), np.int64)
    _selects(masks, ks, out)
    want = np.array([bits.kth_bit(int(m), int(k)) for m, k in zip(masks, ks)])
    assert (out[:, 0] == want).all() and (out[:, 1] == want).all() and (out[:, 2] == want).all()
    six = np.array([bits.kth_bit(int(m) & 63, int(k) & 7) for m, k in zip(masks, ks)])
    assert (out[:, 3] == six).all() and (out[:, 4] == six).all()
    assert set(want) >= {0, 63, 64}         # the edges were reached


def test_the_python_select():
    assert bits.kth_bit(0b10110, 0) == 1 and bits.kth_bit(0b10110, 2) == 4 and bits.kth_bit(0b10110, 3) == 64
    assert bits.kth_bit(-1, 63) == 63 and bits.kth_bit(0, 0) == 64


def test_the_select_override_is_checked(monkeypatch):
    monkeypatch.setenv("LOSTCARDS_SELECT", "broadword")
    assert bits.select_kind() == "broadword"
    monkeypatch.setenv("LOSTCARDS_SELECT", "fast")
    with pytest.raises(BadArgument, match="LOSTCARDS_SELECT='fast' is not allowed: one of pdep, broadword"):
        bits.select_kind()


def test_the_probe_is_kept_per_machine(monkeypatch, tmp_path):
    monkeypatch.delenv("LOSTCARDS_SELECT", raising=False)
    monkeypatch.setattr(bits, "cache_folder", lambda: tmp_path)
    monkeypatch.setattr(bits, "HAS_PDEP", True)
    calls = []

    def probe():
        calls.append(1)
        return {"pdep": 9.0, "broadword": 3.0}
    monkeypatch.setattr(bits, "probe_selects", probe)
    assert bits.select_kind() == "broadword" and bits.select_kind() == "broadword"
    assert calls == [1]                      # timed once, then read back
    assert bits.select_probe() == {"select": "broadword", "ns": {"pdep": 9.0, "broadword": 3.0}}
