"""The profiler's perf map: built from numba's object code, it names each JIT function at its runtime address."""
import shutil

import numba
import numpy as np
import pytest

from lostcards.run import profile

needs_binutils = pytest.mark.skipif(shutil.which("objdump") is None or shutil.which("c++filt") is None,
                                    reason="binutils (objdump, c++filt) not installed")

OBJDUMP_T = """
x.o:     file format elf64-x86-64

SYMBOL TABLE:
0000000000000000 l    df *ABS*	0000000000000000 x
0000000000000f70 l     O .rodata	000000000000001c .const.thing
0000000000000000 g     F .ltext	00000000000044d1 pkg::mod::play_chunk[abi:v1](Array<long long, 1, C>, long long)
0000000000005d40  w    F .ltext	000000000000000a NRT_incref
0000000000000010 g     F .text.other	0000000000000020 elsewhere
0000000000000100 g     F .ltext	0000000000000000 empty
"""


def test_symbols_are_the_functions_with_their_sections_offsets_and_sizes():
    syms = profile.parse_symbols(OBJDUMP_T)
    assert [(s.section, s.offset, s.size) for s in syms] == [(".ltext", 0, 0x44d1), (".ltext", 0x5d40, 10),
                                                              (".text.other", 0x10, 0x20)]
    assert profile.short_name(syms[0].name) == "pkg::mod::play_chunk"
    assert profile.short_name("NRT_incref") == "NRT_incref"


def test_one_runtime_address_places_the_entry_section_and_only_it():
    syms = profile.parse_symbols(OBJDUMP_T)
    placed = profile.place(syms, syms[0].name, 0x7f0000001000, "x.o")
    assert [(p.start, p.size) for p in placed] == [(0x7f0000001000, 0x44d1), (0x7f0000001000 + 0x5d40, 10)]
    assert profile.perf_map_lines(placed) == ["7f0000001000 44d1 pkg::mod::play_chunk",
                                              "7f0000006d40 a NRT_incref"]
    with pytest.raises(ValueError, match="not a function"):
        profile.place(syms, "missing", 0, "x.o")


def test_samples_go_to_their_function_and_instruction_and_the_rest_stays_outside():
    placed = [profile.Placed(0x1000, 0x100, "f(long)", "a.o", ".ltext", 0x40),
              profile.Placed(0x1100, 0x10, "g", "a.o", ".ltext", 0x140)]
    by_fn, by_ins, outside = profile.attribute([0x1000, 0x1004, 0x1004, 0x1105, 0x1110, 0x999], placed)
    assert by_fn == {"f(long)": 3, "g": 1}
    assert by_ins == {("a.o", ".ltext", 0x40): 1, ("a.o", ".ltext", 0x44): 2, ("a.o", ".ltext", 0x145): 1}
    assert outside == [4, 5]


@needs_binutils
def test_a_compiled_function_is_mapped_at_its_own_address(tmp_path):
    @numba.njit
    def total(a):
        s = 0
        for x in a:
            s += x * x
        return s
    assert total(np.arange(4, dtype=np.int64)) == 14
    cres = next(iter(total.overloads.values()))
    where, placed = profile.build_perf_map(tmp_path, pid=0)
    try:
        entry = cres.fndesc.llvm_func_name
        mine = [p for p in placed if profile.short_name(p.name).endswith("total")
                and not p.name.startswith(("cpython::", "cfunc."))]
        assert mine, "the function compiled here is in the map"
        assert mine[0].start == cres.library.get_pointer_to_function(entry)
        assert f"{mine[0].start:x} {mine[0].size:x} {profile.short_name(mine[0].name)}" in where.read_text()
        # the listing at that address is the function's code: it returns
        code = profile.disassembly(mine[0].obj, mine[0].section)
        inside = [t for o, t in code if mine[0].offset <= o < mine[0].offset + mine[0].size]
        assert any(t.startswith("ret") for t in inside)
    finally:
        where.unlink()


@pytest.mark.parametrize("args, words", [
    (["--profile", ""], "has an empty entry"),
    (["--profile", "random2,,"], "has an empty entry"),
    (["--profile", "nosuch"], "'all'"),
    (["--compile", "--profile", "random2"], "two different runs"),
    (["--profile-rounds", "5"], "goes with --profile"),
    (["--compile", "--rounds", "5000"], "--rounds does not go with --compile"),
    (["--profile", "random2", "--json", "x.json"], "--json does not go with --profile"),
])
def test_bench_refuses_an_empty_or_mixed_run_before_any_work(tmp_path, args, words):
    """`bench --profile ''` ran nothing and exited 0; --compile beside --profile, and options of the other
    runs, were silently ignored."""
    from safety_tools import cli, one_line
    code, out, err = cli("bench", *args, cwd=tmp_path)
    assert code in (1, 2) and not list(tmp_path.iterdir()), (code, err)
    one_line((code, out, err), code, words)


def test_bench_help_names_every_profile_workload():
    from click.testing import CliRunner

    from lostcards.cli import main
    text = " ".join(CliRunner().invoke(main, ["bench", "--help"]).output.split())
    assert all(w in text for w in profile.WORKLOADS)
