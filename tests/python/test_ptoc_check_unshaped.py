"""`ptoc check FILE` on entries whose tensor parameters have no shapes (no
annotation, no --shape): every check that needs no shapes still runs (the
placement of runtime scopes and pl.at, in the entry and the functions it
calls), and a broken one is an error with exit status 1; a sound file
exits 0 with the note."""
import subprocess

from conftest import ptoc


def _check(tmp_path, body):
    path = tmp_path / "unshaped.py"
    path.write_text("import pypto.language as pl\n\n" + body)
    r = subprocess.run([ptoc(), "check", str(path)], capture_output=True, text=True)
    return r.returncode, r.stderr, str(path)


KERNEL = """@pl.jit.incore
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
    return out

"""


def test_ptoc_check_without_shapes_reports_the_rules_that_need_none_and_exits_1(tmp_path):
    rc, err, path = _check(tmp_path, KERNEL + """@pl.jit.opaque
def helper(a, out):
    with pl.manual_scope():
        with pl.manual_scope():
            out = k(a, out)
    return out

@pl.jit
def f(a, out):
    with pl.scope():
        out = k(a, out)
    with pl.at(level=pl.Level.CORE_GROUP):
        with pl.scope():
            pass
    out = helper(a, out)
    return out
""")
    assert rc == 1, err
    assert "ptoc: note: 'f' checked without shapes (pass --shape)" in err
    assert "missing a required argument" not in err
    assert ("%s:17:10: error: a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False)" % path) in err
    assert ("%s:20:14: error: a runtime scope is not allowed in kernel code "
            "(inside a pl.at(level=pl.Level.CORE_GROUP) body)" % path) in err
    assert ("%s:11:14: error: a manual scope may not be nested inside another manual scope" % path) in err


def test_ptoc_check_without_shapes_of_a_sound_file_exits_0_with_the_note(tmp_path):
    rc, err, _ = _check(tmp_path, KERNEL + """@pl.jit(auto_scope=False)
def f(a, out):
    with pl.scope():
        out = k(a, out)
    return out
""")
    assert rc == 0, err
    assert err == "ptoc: note: 'f' checked without shapes (pass --shape)\n"
