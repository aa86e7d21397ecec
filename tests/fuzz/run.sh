#!/usr/bin/env bash
# run.sh BUILD SECONDS [HARNESS...] - the fuzz campaign of `make fuzz`.
# Writes the seed corpora (fuzz_seeds, regenerated each time, never
# committed), then runs each harness (default: all four) one after the other
# for SECONDS with its dictionary, its committed regression inputs and seeds
# as extra corpora, and the persistent corpus BUILD/fuzz-corpus/HARNESS.
# Prints executions, exec/s and coverage per harness; full logs go to
# BUILD/fuzz-logs/, crashes, hangs and leaks to BUILD/fuzz-artifacts/HARNESS/.
# Exit 1 when any harness found something.
set -uo pipefail
build=${1:?usage: run.sh BUILD SECONDS [HARNESS...]}
secs=${2:?usage: run.sh BUILD SECONDS [HARNESS...]}
shift 2
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(compile config stats api)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

seeds=$build/fuzz-seeds
rm -rf "$seeds"
"$build/bin/fuzz_seeds" "$seeds" "$root/examples/python/memory_page.py" "$root/examples/dsl/orch_program.py" \
  "$root"/tests/seed/*.py || exit 1

failed=0
for h in "${harnesses[@]}"; do
  corpus=$build/fuzz-corpus/$h
  artifacts=$build/fuzz-artifacts/$h
  log=$build/fuzz-logs/$h.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  dict=()
  case $h in
    compile) dict=(-dict="$here/dsl.dict") ;;
    stats) dict=(-dict="$here/stats.dict") ;;
  esac
  extra=()
  [ -d "$seeds/$h" ] && extra+=("$seeds/$h")
  [ -d "$here/regressions/$h" ] && extra+=("$here/regressions/$h")
  "$build/bin/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dict[@]}" "$corpus" "${extra[@]}" >"$log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1 ft \2/p' <<<"$last")
  echo "fuzz_$h: ${runs:-?} executions, ${rate:-?} exec/s, ${cov:-no coverage line} (log: $log)"
  if [ $rc -ne 0 ]; then
    failed=1
    echo "fuzz_$h FAILED (exit $rc); the end of its log:"
    tail -n 40 "$log"
    ls -l "$artifacts"
  fi
done
exit $failed
