"""Shared helpers: kernels written to a file and imported (so spans point
into a real file), the ptoc driver, and the seed's tensors."""
import importlib.util
import itertools
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "examples" / "python"))  # memory_page: the page's script

HEADER = "import pypto.language as pl\nfrom pypto.runtime import RunConfig\n"
_count = itertools.count()


@pytest.fixture
def load(tmp_path):
    """load(body) -> (module, path): body (dedented) after HEADER, as a module file."""
    def _load(body, header=HEADER):
        path = tmp_path / ("kmod_%d.py" % next(_count))
        path.write_text(header + textwrap.dedent(body))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = mod
        spec.loader.exec_module(mod)
        return mod, str(path)
    return _load


def docs_example(load, head):
    """The docs/dsl.md ```python block that starts with head, loaded with load (the fixture)."""
    doc = (ROOT / "docs" / "dsl.md").read_text()
    start = doc.index("```python\n" + head)
    code = doc[start + len("```python\n"):doc.index("```", start + 3)]
    return load(code, header="import pypto.language as pl\n")[0]


def line_of(path, needle, nth=0):
    """1-based line of the nth line containing needle, and the 1-based column of needle."""
    hits = [(i + 1, line.index(needle) + 1) for i, line in enumerate(open(path).read().splitlines())
            if needle in line]
    return hits[nth]


def ptoc():
    exe = os.environ.get("PTOC") or str(ROOT / "build" / "bin" / "ptoc")
    if not os.path.exists(exe):
        pytest.skip("ptoc is not built")
    return exe


def ptoc_lower(path, func, *extra):
    r = subprocess.run([ptoc(), "lower", str(path), "--func", func, *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


_internal_errors = []


def _record_internal_error(self, *args):
    _internal_errors.append(args)
    RuntimeError.__init__(self, *args)


def _compiled_leaving_nothing(compiled):
    """KernelBase._compiled, asserting that a failed compile leaves the cache
    and the work directory as they were (DSL-V2-SPEC §12, "nothing half-written")."""
    def wrapper(self, *args, **kwargs):
        before = (self.cache_info(), self.last_work_dir, dict(self._work_dirs))
        try:
            return compiled(self, *args, **kwargs)
        except Exception:
            assert (self.cache_info(), self.last_work_dir, dict(self._work_dirs)) == before, "a failed compile changed the cache"
            raise
    wrapper.checked = True
    return wrapper


@pytest.fixture(autouse=True)
def no_internal_error():
    """DSL-V2-SPEC §12: no test may produce an InternalError, raised or caught,
    and no failed compile may leave anything behind."""
    import pypto
    from pypto._kernel import KernelBase
    pypto.InternalError.__init__ = _record_internal_error
    if not getattr(KernelBase._compiled, "checked", False):
        KernelBase._compiled = _compiled_leaving_nothing(KernelBase._compiled)
    before = len(_internal_errors)
    yield
    assert len(_internal_errors) == before, "an InternalError was created: %r" % (_internal_errors[before:],)
