#!/usr/bin/env bash
# The install checks of `make test` (issue "Install it like users expect"):
#   test_install.sh CASE BUILD_DIR SOURCE_DIR
# CASE: tree | pkgconfig | cmake | symbols | pip | deb.  Each works in its
# own temporary directory, removed on exit; a failure prints what was wrong.
set -euo pipefail
case_name=$1 build=$(cd "$2" && pwd) src=$(cd "$3" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

install_tree() { cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"; }
libdir() { dirname "$(find "$prefix" -name libpto.so.0 -print -quit)"; }

case $case_name in
  tree) # the files an install puts under the prefix, and DESTDIR honoured
    install_tree
    lib=$(libdir)
    for f in include/pto/runtime.h include/pto/compile.h include/pto/run.h include/pto/version.h \
             bin/ptoc bin/pto-scope-stats; do
      [ -e "$prefix/$f" ] || fail "missing $f"
    done
    for f in libpto.so libpto.so.0 libpto.a pkgconfig/pto.pc cmake/pto/ptoConfig.cmake \
             cmake/pto/ptoConfigVersion.cmake cmake/pto/ptoTargets.cmake; do
      [ -e "$lib/$f" ] || fail "missing ${lib#$prefix/}/$f"
    done
    [ "$(readelf -d "$lib/libpto.so.0" | sed -n 's/.*soname: \[\(.*\)\]/\1/p')" = libpto.so.0 ] || fail "SONAME is not libpto.so.0"
    "$prefix/bin/ptoc" --version | grep -qx "ptoc $(sed -n 's/^#define PTO_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' "$src/include/pto/version.h" | paste -sd.)" \
      || fail "ptoc --version does not print version.h's version"
    [ "$("$prefix/bin/pto-scope-stats" --version)" = "pto-scope-stats $("$prefix/bin/ptoc" --version | cut -d' ' -f2)" ] \
      || fail "pto-scope-stats --version differs from ptoc's"
    DESTDIR=$tmp/stage cmake --install "$build" --prefix /opt/pto > /dev/null
    [ -e "$tmp/stage/opt/pto/include/pto/runtime.h" ] || fail "DESTDIR was not honoured"
    echo "install tree under $prefix: ok"
    ;;
  pkgconfig) # an out-of-tree program built with pkg-config --cflags --libs pto
    install_tree
    export PKG_CONFIG_PATH=$(libdir)/pkgconfig
    [ "$(pkg-config --modversion pto)" = "$("$prefix/bin/ptoc" --version | cut -d' ' -f2)" ] || fail "pto.pc version"
    # the README's Install section shows this very program
    sed -n '/^## Install/,/^## A 5-minute tour/p' "$src/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' > "$tmp/readme.c"
    diff -u "$tmp/readme.c" <(sed -n '/#include <pto\/runtime.h>/,$p' "$src/tests/install/consumer/hello.c") \
      || fail "README's program differs from tests/install/consumer/hello.c"
    # shellcheck disable=SC2046
    cc -std=c11 -o "$tmp/hello" "$src/tests/install/consumer/hello.c" $(pkg-config --cflags --libs pto)
    LD_LIBRARY_PATH=$(libdir) "$tmp/hello" | tee "$tmp/out"
    grep -q "hello from task one" "$tmp/out" && grep -q ": ok$" "$tmp/out" || fail "the program's output"
    ;;
  cmake) # an out-of-tree CMake project with find_package(pto CONFIG REQUIRED)
    install_tree
    cmake -S "$src/tests/install/consumer" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
    cmake --build "$tmp/b" > /dev/null
    "$tmp/b/hello" | tee "$tmp/out"
    grep -q "hello from task one" "$tmp/out" && grep -q ": ok$" "$tmp/out" || fail "the program's output"
    ;;
  symbols) # libpto.so exports exactly the functions the public headers declare (mpi.h is libpto_mpi's)
    nm -D --defined-only "$build/lib/libpto.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort > "$tmp/exported"
    headers=$(ls "$src"/include/pto/*.h | grep -v '/mpi\.h$')
    # the headers as the compiler sees them (no comments), every pto_ name before a "("
    for h in $headers; do echo "#include \"$h\""; done | cc -E -P -I "$src/include" - \
      | grep -oE '\bpto_[a-z0-9_]+\s*\(' | sed 's/\s*(//' | sort -u > "$tmp/named"
    # functions only: drop static inline helpers defined in the headers
    grep -ohE 'static inline [^(]*\bpto_[a-z0-9_]+\s*\(' $headers \
      | grep -oE 'pto_[a-z0-9_]+' | sort -u > "$tmp/inline"
    comm -23 "$tmp/named" "$tmp/inline" > "$tmp/declared"
    if ! diff -u "$tmp/declared" "$tmp/exported"; then fail "exported symbols differ from the public API (- declared only, + exported only)"; fi
    echo "$(wc -l < "$tmp/exported") symbols, all public"
    ;;
  pip) # pip install into a venv with the system's packages; the seed's scaled from elsewhere
    /usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
    (cd "$src" && "$tmp/venv/bin/pip" install --quiet --no-build-isolation --no-index .) > "$tmp/pip.log" 2>&1 \
      || { cat "$tmp/pip.log"; fail "pip install"; }
    mkdir "$tmp/elsewhere"
    cp "$src/tests/seed/seed_scaled.py" "$tmp/elsewhere/"
    cd "$tmp/elsewhere"
    want=$(sed -n 's/^#define PTO_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' "$src/include/pto/version.h" | paste -sd.)
    got=$(env -u PYTHONPATH "$tmp/venv/bin/python" -c 'import pypto; print(pypto.__version__, pypto.__file__)')
    case $got in "$want $tmp/venv/"*) ;; *) fail "pypto.__version__ / location: $got (want $want from the venv)";; esac
    env -u PYTHONPATH "$tmp/venv/bin/python" seed_scaled.py || fail "the seed's scaled example"
    echo "pypto $want from the venv ran the seed's scaled example in $tmp/elsewhere"
    ;;
  deb) # make deb's package and what it holds
    (cd "$build" && cpack -G DEB -B "$tmp/deb" > "$tmp/cpack.log") || { cat "$tmp/cpack.log"; fail "cpack"; }
    deb=$(find "$tmp/deb" -maxdepth 1 -name '*.deb' -print -quit)
    [ -n "$deb" ] || fail "no .deb was written"
    dpkg-deb --contents "$deb" > "$tmp/contents"
    for f in ./usr/include/pto/runtime.h ./usr/include/pto/compile.h libpto.so.0 libpto.a ./usr/bin/ptoc \
             ./usr/bin/pto-scope-stats pkgconfig/pto.pc cmake/pto/ptoConfig.cmake; do
      grep -q -- "$f" "$tmp/contents" || fail "$(basename "$deb") lacks $f"
    done
    dpkg-deb --field "$deb" Package Version Depends
    ;;
  *) fail "unknown case $case_name" ;;
esac
