"""Packaging glue for `pip install .`: the version from include/pto/version.h,
and pypto._C built by the project's own CMake (target pypto_C), so the
extension is compiled exactly as `make build` compiles it; the report tool
pto-scope-stats goes in as pypto/_bin/ for pypto.tools.scope_stats_plot."""
import pathlib
import re
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def version():
    text = (ROOT / "include" / "pto" / "version.h").read_text()
    return ".".join(re.search(r"^#define PTO_VERSION_%s (\d+)$" % part, text, re.M).group(1)
                    for part in ("MAJOR", "MINOR", "PATCH"))


class CMakeExtension(build_ext):
    def build_extension(self, ext):
        tree = pathlib.Path(self.build_temp).resolve() / "cmake"
        out = tree / "ext"
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
                               "-DPYPTO_EXT_OUTPUT_DIR=" + str(out)], stdout=subprocess.DEVNULL)
        subprocess.check_call(["cmake", "--build", str(tree), "--target", "pypto_C", "pto-scope-stats", "-j"])
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        (dest.parent / "_bin").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(next(out.glob("_C*.so")), dest)
        shutil.copy2(tree / "bin" / "pto-scope-stats", dest.parent / "_bin" / "pto-scope-stats")


setup(version=version(),
      ext_modules=[Extension("pypto._C", sources=[])],
      cmdclass={"build_ext": CMakeExtension})
