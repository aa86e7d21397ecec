#!/usr/bin/env bash
# Line and branch coverage of the whole test suite (make coverage).
#   coverage.sh [BUILD_DIR] [JOBS]
# Builds BUILD_DIR (default build-cov) with gcc --coverage at -O0
# (PTO_COVERAGE; the Python extension lands in BUILD_DIR, so the Python
# tests run the instrumented C too), clears old counters, runs every ctest
# test, then prints line and branch coverage per layer and writes the HTML
# report BUILD_DIR/coverage/index.html.  tests/, bench/ and examples/ are
# not counted.  Exits non-zero when a test failed, after the report.
set -uo pipefail

build=${1:-build-cov}
jobs=${2:-$(nproc)}
cd "$(dirname "$0")/.."

cmake -S . -B "$build" -DPTO_COVERAGE=ON >/dev/null || exit 1
cmake --build "$build" -j "$jobs" || exit 1
find "$build" -name '*.gcda' -delete

(cd "$build" && ctest -j "$jobs" --output-on-failure >ctest.log 2>&1)
tests_rc=$?
tail -n 3 "$build/ctest.log"
[ $tests_rc -eq 0 ] || grep -E '\*\*\*|Failed|Timeout' "$build/ctest.log" | head -n 20

mkdir -p "$build/coverage"
gcovr --root . --object-directory "$build" -j "$jobs" \
      --filter 'src/' --filter 'tools/' --filter 'python/pypto/' \
      --exclude-unreachable-branches \
      --html-details "$build/coverage/index.html" \
      --json-summary "$build/coverage/summary.json" || exit 1
/usr/bin/python3 scripts/coverage_layers.py "$build/coverage/summary.json"
echo "HTML report: $build/coverage/index.html"
exit $tests_rc
