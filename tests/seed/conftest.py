"""The seed page's examples (tests/seed/seed_*.py, verbatim blocks) and their rings."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
