"""docs/memory.md as a doc test: every Python block of the page
runs, in order, each after the blocks before it (the first block is the setup the
others build on), from a real file so that kernels have their source."""
import importlib.util
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "memory.md").read_text(), re.S)


def test_memory_doc_has_its_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_memory_doc_block_runs(k, tmp_path):
    path = tmp_path / ("memory_doc_%d.py" % k)
    path.write_text("\n\n".join(BLOCKS[: k + 1]))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)  # asserts inside the blocks fail the test
