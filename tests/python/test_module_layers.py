"""The pypto package's modules import one another without a cycle: what
@pl.jit functions (_jit.py) and @pl.program classes (_program.py) share is
_kernel.py's, which imports neither; _program.py does not import _jit.py.
(Read from the import statements; subpackages such as pypto.language are
outside this graph.)"""
import ast
import pathlib

PKG = pathlib.Path(__file__).resolve().parents[2] / "python" / "pypto"


def _imports():
    """module -> the package's sibling modules it imports (relative imports)."""
    mods = {p.stem for p in PKG.glob("*.py")}
    graph = {}
    for m in mods:
        deps = set()
        for node in ast.walk(ast.parse((PKG / (m + ".py")).read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    deps.add(node.module.split(".")[0])
                else:
                    deps.update(a.name for a in node.names)
        graph[m] = deps & mods
    return graph


def test_the_package_modules_import_one_another_without_a_cycle():
    graph = _imports()
    assert "_jit" not in graph["_kernel"] and "_program" not in graph["_kernel"]
    assert "_jit" not in graph["_program"] and "_kernel" in graph["_program"] and "_kernel" in graph["_jit"]
    done, active = set(), []

    def visit(m):
        assert m not in active, "import cycle: " + " -> ".join(active[active.index(m):] + [m])
        if m in done:
            return
        active.append(m)
        for d in sorted(graph[m]):
            visit(d)
        active.pop()
        done.add(m)

    for m in sorted(graph):
        visit(m)
