"""pypto.language's enums and names come from the compiler's tables
(pto/language.h, handed over by pypto._C): the parity of every Python enum
member with its C value, and every pl name the compiler knows being a
pypto.language name."""
import enum

import pypto.language as pl
import pypto.language.distributed as pld
from pypto import _C

ENUMS = {"DataType": pl.DataType, "Level": pl.Level, "ScopeMode": pl.ScopeMode, "CachePolicy": pl.CachePolicy,
         "FunctionType": pl.FunctionType, "MemorySpace": pl.MemorySpace, "Layout": pl.Layout,
         "PadValue": pl.PadValue, "SplitMode": pl.SplitMode, "AtomicType": pl.AtomicType,
         "MaskPattern": pl.MaskPattern, "Role": pl.Role}
PLD_ENUMS = {"NotifyOp": pld.NotifyOp, "WaitCmp": pld.WaitCmp, "ReduceOp": pld.ReduceOp}  # pypto.language.distributed's


def test_every_python_enum_member_equals_its_c_value():
    c = dict(_C.language_enums())
    assert set(c) == set(ENUMS) | set(PLD_ENUMS)
    assert {v for v in vars(pl).values() if isinstance(v, type) and issubclass(v, enum.Enum)} == set(ENUMS.values())
    assert {v for v in vars(pld).values() if isinstance(v, type) and issubclass(v, enum.Enum)} == \
        set(PLD_ENUMS.values()) | {pl.AtomicType}
    for name, py in list(ENUMS.items()) + list(PLD_ENUMS.items()):
        assert [(m, int(v)) for m, v in py.__members__.items()] == list(c[name]), name  # aliases included, in order
    assert pl.Level.L2CACHE is pl.Level.CHIP_DIE and pl.Mem is pl.MemorySpace and pl.ND is pl.Layout.ND
    for dt in pl.DataType:
        assert getattr(pl, dt.name) is dt
    # the public pto_dtype list (pto/compile.h) names pl dtypes; its first seven values are pl.DataType's
    # (INT64 and INT16 keep their pl.DataType values 10 and 9, the order of pto_dtype is positional)
    for value, name in enumerate(_C.pto_dtypes):
        assert name in pl.DataType.__members__ and (value > 6 or pl.DataType[name] == value)
    assert (pl.DataType.INT16, pl.DataType.INT64, pl.DataType.TASK_ID) == (9, 10, 7)


def test_every_compiler_pl_name_is_a_language_name():
    names = _C.language_names()
    assert len({n for n, _, _ in names}) == len(names)
    assert {s for _, s, _ in names} == {"supported", "later", "hardware"}
    for name, status, kind in names:
        assert hasattr(pl, name), (name, status, kind)
    for op in ("log", "rsqrt", "recip"):
        assert (op, "supported", "op") in names


def test_fuzz_dictionary_names_every_supported_pl_name():
    """tests/fuzz/dsl.dict gives the parser fuzzer every pl name the compiler supports."""
    from conftest import ROOT
    entries = set(line.strip().strip('"') for line in (ROOT / "tests" / "fuzz" / "dsl.dict").read_text().splitlines())
    missing = [n for n, status, _kind in _C.language_names()
               if status == "supported" and not ({n, "pl." + n, "pl." + n + "("} & entries)]
    assert not missing, "tests/fuzz/dsl.dict lacks %s" % ", ".join(missing)


def test_tile_namespace_holds_the_mask_pattern_enum():
    assert pl.tile.MaskPattern is pl.MaskPattern and pl.tile.MaskPattern.P0101 == 1 and pl.MaskPattern.P1111 == 7
