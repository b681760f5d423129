"""Issue 11, findings 3, 5, 6 and 15 (which field differs): reading a batch checks what its manifest promises."""
from __future__ import annotations

import json
import shutil

import pytest
from safety_tools import cli, one_line

import lostcards
from lostcards.errors import BatchError, LostcardsError
from lostcards.run.load import iter_shards, load, table_hash, verify

BATCH = ["simulate", "--rounds", 450, "--shard-size", 100, "--seed", 5, "--no-progress"]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    out = tmp_path_factory.mktemp("reading") / "s1"
    assert cli(*BATCH, "--out", out)[0] == 0
    return out


@pytest.fixture
def copy(batch, tmp_path):
    out = tmp_path / "s"
    shutil.copytree(batch, out)
    return out


READERS = {
    "load": lambda d: load(d),
    "lostcards.load": lambda d: lostcards.load(d, tables=["rounds"]),
    "iter_shards": lambda d: list(iter_shards(d, "rounds", ["score_a"])),
    "table_hash": lambda d: table_hash(d),
}


@pytest.mark.parametrize("reader", READERS)
def test_finding_3_a_listed_shard_that_is_missing_is_named_not_skipped(copy, reader):
    """Finding 3: summary and load used to skip it (4,000 rounds beside 10,000 seats, exit 0)."""
    (copy / "rounds" / "part-00002.parquet").unlink()
    with pytest.raises(BatchError, match=r"rounds/part-00002.parquet is missing\); run the same simulate command"):
        READERS[reader](copy)
    one_line(cli("summary", copy), 1, "rounds/part-00002.parquet is missing")


def test_finding_3_a_shard_with_the_wrong_rows_is_named_and_verify_checks_checksums(copy):
    """Finding 3: row counts on every read, checksums with verify."""
    shutil.copy(copy / "seats" / "part-00000.parquet", copy / "seats" / "part-00004.parquet")   # 200 rows, not 100
    one_line(cli("summary", copy), 1, "seats/part-00004.parquet has 200 rows, not 100")
    assert 4 in verify(copy)
    shutil.copy(copy / "seats" / "part-00003.parquet", copy / "seats" / "part-00004.parquet")   # rows 200, wrong one
    assert "checksum" in verify(copy)[4] or "bytes" in verify(copy)[4]


def test_finding_3_a_whole_batch_reads_and_its_parts_agree(batch):
    t = load(batch)
    assert len(t["rounds"]) == 450 and len(t["seats"]) == 900 and verify(batch) == {}


def test_finding_5_a_double_encoded_record_is_malformed(tmp_path):
    """Finding 5: a JSON string holding a record was replayed as `ok: true`."""
    rec = lostcards.play_records(lostcards.rules(), "random", round_indices=[0])[0]
    f = tmp_path / "double.json"
    f.write_text(json.dumps(json.dumps(rec)))
    one_line(cli("replay", f), 2, "a record must be a JSON object, got a string")
    g = tmp_path / "lines.jsonl"
    g.write_text(json.dumps(rec) + "\n" + json.dumps(json.dumps(rec)) + "\n[1, 2]\n")
    code, out, _ = cli("replay", "--json", g)
    verdicts = [json.loads(ln) for ln in out.splitlines()]
    assert code == 2 and [v["ok"] for v in verdicts] == [True, False, False]
    assert verdicts[1]["turn"] is None and "JSON object" in verdicts[2]["error"]


@pytest.mark.parametrize("rank", ["\u00b2", "7" * 4301])
def test_a_card_of_unicode_or_endless_digits_is_a_malformed_record_not_a_traceback(tmp_path, rank):
    """A rank of a superscript digit (str.isdigit takes it) or of over 4,300 digits (int() refuses it)
    raised ValueError out of replay, analyze and play."""
    rec = lostcards.play_records(lostcards.rules(), "random", round_indices=[0])[0]
    bad = dict(rec, hands=[[rank + "C"] + rec["hands"][0][1:]] + rec["hands"][1:])
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps(bad) + "\n" + json.dumps(rec) + "\n")
    code, out, err = cli("replay", "--json", f)
    verdicts = [json.loads(ln) for ln in out.splitlines()]
    assert code == 2 and [v["ok"] for v in verdicts] == [False, True] and "Traceback" not in err
    assert "unknown card" in verdicts[0]["error"] and len(verdicts[0]["error"]) < 300
    g = tmp_path / "bad.json"
    g.write_text(json.dumps(bad))
    one_line(cli("analyze", "--samples", "2", g), 1, "unknown card")


@pytest.mark.parametrize("manifest, words", [
    ({}, "not a lostcards batch manifest"),
    ([1, 2], "not a lostcards batch manifest (a JSON list)"),
    (None, "not a lostcards batch manifest (a JSON null)"),
    ({"batch": {"rules": "expeditions"}}, "no players, policies, seed"),
    ({"kind": "tournament", "command": "lostcards tournament"}, "holds a tournament output, not a simulate batch"),
])
def test_finding_6_summary_of_something_that_is_no_batch_is_one_line(tmp_path, manifest, words):
    """Finding 6: `None players` with exit 0, or a traceback for `[1,2]`."""
    d = tmp_path / "m"
    d.mkdir()
    (d / "manifest.json").write_text(json.dumps(manifest))
    one_line(cli("summary", d), 1, words)
    with pytest.raises(LostcardsError):
        load(d)


def test_finding_6_summary_of_a_real_tournament_directory(tmp_path):
    out = tmp_path / "t"
    assert cli("tournament", "--policies", "random,greedy", "--rounds", 20, "--block", 20, "--bootstrap", 0,
               "--out", out)[0] == 0
    one_line(cli("summary", out), 1, "holds a tournament output")


def test_finding_15_a_different_batch_says_which_fields_differ(batch):
    """Finding 15: "different batch" without saying which field differs."""
    msg = one_line(cli("simulate", "--rounds", 500, "--shard-size", 100, "--seed", 6, "--no-progress",
                       "--out", batch), 1, "different batch")
    assert "seed 5 there, 6 here" in msg and "rounds 450 there, 500 here" in msg


def test_summary_labels_its_intervals(batch):
    """Finding 20: summary's ± is labelled as a 95% interval."""
    code, out, _ = cli("summary", batch)
    assert code == 0 and "95% interval" in out and " ± " in out


def test_the_table_names_that_readers_know_are_the_tables_that_are_written():
    """run/shards.py names the tables without importing the engine (so `summary` needs no numba)."""
    from lostcards.run import shards, tables
    assert shards.BATCH_TABLES == tuple(tables.TABLES) and shards.ALL_TABLES == tables.ALL_TABLES


@pytest.mark.parametrize("field, value, words", [
    ("shards_done", ["x"], "lists its finished shards as ['x']"),
    ("shards_done", [None], "lists its finished shards"),
    ("shards_done", [0, "0"], "lists its finished shards"),
    ("shards_done", [0, 0], "distinct shard numbers"),
    ("shard_files", {"0": "x"}, "describes shard 0's files"),
    ("shard_files", {"0": {"rounds": {"rows": "x"}}}, "describes shard 0's files"),
])
def test_a_damaged_shard_list_is_one_line_not_a_raw_error_or_doubled_rows(copy, field, value, words):
    """shards_done ["x"] raised ValueError from a format; [0, 0] read the shard twice (rows doubled)."""
    m = json.loads((copy / "manifest.json").read_text())
    m[field] = value
    (copy / "manifest.json").write_text(json.dumps(m))
    for read in READERS.values():
        with pytest.raises(BatchError, match=words.replace("[", "\\[").replace("]", "\\]")):
            read(copy)
