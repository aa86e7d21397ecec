"""Kernels from other modules (docs/dsl.md, "Kernels from other modules"):
a kernel an entry's code reaches through a Python import is compiled from
its own file, with that file's names and spans; two same-named kernels of
two files get distinct program names; the cache key holds every file's
hash.  The fixture modules are xmod_fixtures/."""
import importlib
import sys
import textwrap

import pytest
import torch

from conftest import line_of
from pypto.language.parser.diagnostics import UndefinedVariableError
from xmod_fixtures import bad_entry, entries, kernels, other_kernels


def _rand(seed):
    return torch.randn(8, 16, generator=torch.Generator().manual_seed(seed))


def test_an_entry_runs_inline_and_incore_kernels_of_another_module():
    a, b, out = _rand(1), _rand(2), torch.zeros(8, 16)
    entries.inline_and_incore(a, b, out)
    torch.testing.assert_close(out, (a + b) * 3.0)  # kernels.py's SCALE


def test_each_module_reads_its_own_constants():
    a = _rand(3)
    x2, x3, x5 = torch.zeros(8, 16), torch.zeros(8, 16), torch.zeros(8, 16)
    entries.shadowed(a, x2, x3, x5)
    torch.testing.assert_close(x2, a * 2.0)  # the entry's SCALE (config.py's)
    torch.testing.assert_close(x3, a * 3.0)  # kernels.py's own SCALE
    torch.testing.assert_close(x5, a * 5.0)  # other_kernels.py's own SCALE


def test_same_named_kernels_of_two_modules_get_distinct_program_names():
    text = entries.shadowed.lower(_rand(3), torch.zeros(8, 16), torch.zeros(8, 16), torch.zeros(8, 16))
    assert "def scale_rows(self" in text and "def scale_rows_other_kernels(self" in text
    assert "x3 = self.scale_rows(a, x3)" in text and "x5 = self.scale_rows_other_kernels(a, x5)" in text


def test_a_kernel_imported_under_an_alias():
    a, out = _rand(4), torch.zeros(8, 16)
    entries.aliased(a, out)
    torch.testing.assert_close(out, a * 3.0)
    assert "self.scale_rows(a, out)" in entries.aliased.lower(a, out)  # the def's own name


def test_a_standalone_function_of_another_module_in_a_jit_entry():
    a, out = _rand(5), torch.zeros(8, 16)
    entries.calls_standalone(a, out)
    torch.testing.assert_close(out, a * -3.0)


def test_a_standalone_function_of_another_module_in_a_program():
    a, out = _rand(6), torch.zeros(8, 16)
    entries.Negated(a, out)
    torch.testing.assert_close(out, a * -3.0)


def test_an_error_in_an_imported_kernel_names_its_file_line_and_column():
    with pytest.raises(UndefinedVariableError) as e:
        bad_entry.calls_broken(_rand(7), torch.zeros(8, 16))
    path = sys.modules["xmod_fixtures.bad_kernels"].__file__
    line, col = line_of(path, "not_defined_anywhere")
    assert str(e.value).startswith("%s:%d:%d: error: name 'not_defined_anywhere' is not defined" % (path, line, col))
    assert e.value.span["filename"] == path and (e.value.span["line"], e.value.span["column"]) == (line, col)


def test_the_cache_key_holds_every_file_hash():
    _, key = entries.shadowed._constants()
    for k in (kernels.scale_rows, other_kernels.scale_rows):
        assert (k._src.filename, k._src.hash) in key


PKG_KERNEL = '''
import pypto.language as pl

SCALE = %s


@pl.jit.incore
def scale(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    pl.store(pl.mul(pl.load(a, [0, 0], [8, 16]), SCALE), [0, 0], out)
    return out
'''

PKG_ENTRY = '''
import pypto.language as pl

from .k import scale


@pl.jit
def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = scale(a, out)
    return out
'''


def test_an_edited_imported_file_compiles_again(tmp_path, monkeypatch):
    pkg = tmp_path / "xmod_edit_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "k.py").write_text(PKG_KERNEL % "2.0")
    (pkg / "e.py").write_text(textwrap.dedent(PKG_ENTRY))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    e = importlib.import_module("xmod_edit_pkg.e")
    a, out = _rand(8), torch.zeros(8, 16)
    e.entry(a, out)
    torch.testing.assert_close(out, a * 2.0)
    (pkg / "k.py").write_text(PKG_KERNEL % "7.25")
    k = importlib.reload(importlib.import_module("xmod_edit_pkg.k"))
    e.scale = k.scale  # what re-running `from .k import scale` binds
    e.entry(a, out)
    torch.testing.assert_close(out, a * 7.25)
    assert e.entry.cache_info()[1:] == (2, 2)


def test_a_kernel_a_function_of_another_file_makes_runs(load):
    maker, _ = load("""
        def make():
            @pl.jit.incore
            def inner(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)
                return out
            return inner
        """)
    user, _ = load("""
        @pl.jit
        def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = inner(a, out)
            return out
        """)
    user.inner = maker.make()
    a, out = _rand(9), torch.zeros(8, 16)
    user.entry(a, out)
    torch.testing.assert_close(out, a)


def test_dynvars_of_two_modules_are_distinct_symbols():
    from xmod_fixtures import dyn_entries
    for rows, heads in ((8, 24), (32, 8)):
        x, y, out = torch.randn(rows, 16), torch.randn(heads, 16), torch.zeros(rows, 16)
        dyn_entries.two_files(x, y, out)
        torch.testing.assert_close(out[:8], x[:8] + y[heads - 8:] + rows)
    assert dyn_entries.two_files.cache_info()[1] == 1


def test_a_run_time_error_in_an_imported_kernel_cites_its_file():
    from pypto.runtime import PTORuntimeError
    from xmod_fixtures import dyn_entries, dyn_kernels
    with pytest.raises(PTORuntimeError) as e:  # K = 4: y's rows K - 8 on are a negative offset
        dyn_entries.two_files(torch.randn(8, 16), torch.randn(4, 16), torch.zeros(8, 16))
    line, col = line_of(dyn_kernels.__file__, "pl.load(y, [K - 8, 0], [8, 16])")
    assert "pl.load: offset 0 is negative (-4) (at %s:%d:%d)" % (dyn_kernels.__file__, line, col) in str(e.value)
