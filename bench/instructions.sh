#!/usr/bin/env bash
# Instruction counts of ours' submit path under callgrind, which counts the
# same for the same binary and input whatever the machine is doing: the
# number to read when timings swing (docs/performance.md: hot paths get an
# instruction count next to the timing).  One row per case on stdout:
#   {"bench": "B2t", "case": "slices_s64", "system": "ours", "metric": "submit_instr", "value": N}
# N = instructions executed inside pto_task_submit per call, back-pressure waits
# (and the tasks the orchestrator runs while it waits) excluded.
#   bench/instructions.sh full|quick BIN_DIR >> rows.jsonl
set -euo pipefail
mode=$1
bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs DRIVER ARGS... under callgrind counting inside TOGGLE only, and prints the row for
# its first result row's bench and case: the instructions, less those inside each function
# named in EXCLUDED (inclusive: what it calls too), per one of CALLS.
#   count DRIVER TOGGLE "EXCLUDED..." CALLS ARGS...
count() {
  local driver=$1 toggle=$2 excluded=$3 calls=$4 out=$tmp/cg
  shift 4
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$toggle" \
    "$bin/$driver" "$@" > "$tmp/rows" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  local bench cas total left inclusive
  bench=$(sed -n '1s/.*"bench": "\([^"]*\)".*/\1/p' "$tmp/rows")
  cas=$(sed -n '1s/.*"case": "\([^"]*\)".*/\1/p' "$tmp/rows")
  total=$(callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  inclusive=$(callgrind_annotate --inclusive=yes "$out")
  left=$total
  for f in $excluded; do
    left=$(awk -v l="$left" -v f=":$f " 'index($0, f) {gsub(",", "", $1); l -= $1; exit} END {print l}' <<< "$inclusive")
  done
  [ "$calls" = submits ] && calls=$(callgrind_annotate --tree=caller "$out" |
    awk '/< .*:pto_task_submit \(/ {gsub(/[(,x]/, "", $(NF-1)); print $(NF-1); exit}')
  awk -v b="$bench" -v c="$cas" -v t="$left" -v n="$calls" 'BEGIN {
    printf "{\"bench\": \"%s\", \"case\": \"%s\", \"system\": \"ours\", \"metric\": \"submit_instr\", \"value\": %.0f}\n",
           b, c, t / n }'
}

cases=("b2 20000 3" "b2t slices 64 16384" "b2t slices 8192 16384")
if [ "$mode" = full ]; then
  cases+=("b2 20000 0" "b2t rows 64 16384" "b2t rows 8192 16384" "b2t cols 64 16384" "b2t cols 8192 16384")
fi
for c in "${cases[@]}"; do
  read -r -a args <<< "$c"
  count bench_ours pto_task_submit "rt_wait_step" submits "${args[@]}"
done

# B2 trusted (bench_b2c): the orchestration of a compiled program, every instruction the
# executor and the runtime run for it (the loop, its views, the submits), back-pressure
# waits and pto_runtime_finish (which runs the tasks left) excluded, per task: a warm-up
# and a timed run of DEPS + whole chunks of 1,024 tasks each (b2_compiled.c).
b2c=("b2c 20000 3")
[ "$mode" = full ] && b2c+=("b2c 20000 0")
for c in "${b2c[@]}"; do
  read -r -a args <<< "$c"
  count bench_b2c ex_orch_run_with "rt_wait_step pto_runtime_finish" $(( 2 * (args[2] + (args[1] - args[2]) / 1024 * 1024) )) "${args[@]}"
done
