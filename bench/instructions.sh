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

cases=("b2 20000 3" "b2t slices 64 16384" "b2t slices 8192 16384")
if [ "$mode" = full ]; then
  cases+=("b2 20000 0" "b2t rows 64 16384" "b2t rows 8192 16384" "b2t cols 64 16384" "b2t cols 8192 16384")
fi

for c in "${cases[@]}"; do
  read -r -a args <<< "$c"
  out=$tmp/cg
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=pto_task_submit \
    "$bin/bench_ours" "${args[@]}" > "$tmp/rows" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  bench=$(sed -n '1s/.*"bench": "\([^"]*\)".*/\1/p' "$tmp/rows")
  cas=$(sed -n '1s/.*"case": "\([^"]*\)".*/\1/p' "$tmp/rows")
  total=$(callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  waits=$(callgrind_annotate --inclusive=yes "$out" | awk '/:rt_wait_step / {gsub(",", "", $1); print $1}')
  calls=$(callgrind_annotate --tree=caller "$out" | awk '/< .*:pto_task_submit \(/ {gsub(/[(,x]/, "", $(NF-1)); print $(NF-1); exit}')
  awk -v b="$bench" -v c="$cas" -v t="$total" -v w="${waits:-0}" -v n="$calls" 'BEGIN {
    printf "{\"bench\": \"%s\", \"case\": \"%s\", \"system\": \"ours\", \"metric\": \"submit_instr\", \"value\": %.0f}\n",
           b, c, (t - w) / n }'
done

# B2 trusted (bench_b2c): the orchestration of a compiled program, every instruction the
# executor and the runtime run for it (the loop, its views, the submits), back-pressure
# waits and pto_runtime_finish (which runs the tasks left) excluded, per task.
b2c=("b2c 20000 3")
[ "$mode" = full ] && b2c+=("b2c 20000 0")
for c in "${b2c[@]}"; do
  read -r -a args <<< "$c"
  out=$tmp/cg
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=ex_orch_run_with \
    "$bin/bench_b2c" "${args[@]}" > "$tmp/rows" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  cas=$(sed -n '1s/.*"case": "\([^"]*\)".*/\1/p' "$tmp/rows")
  total=$(callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  inclusive=$(callgrind_annotate --inclusive=yes "$out")
  waits=$(awk '/:rt_wait_step / {gsub(",", "", $1); print $1}' <<< "$inclusive")
  finish=$(awk '/:pto_runtime_finish / {gsub(",", "", $1); print $1}' <<< "$inclusive")
  # tasks: a warm-up and a timed run of DEPS + whole chunks of 1,024 (b2_compiled.c)
  calls=$(( 2 * (args[2] + (args[1] - args[2]) / 1024 * 1024) ))
  awk -v c="$cas" -v t="$total" -v w="${waits:-0}" -v f="${finish:-0}" -v n="$calls" 'BEGIN {
    printf "{\"bench\": \"B2c\", \"case\": \"%s\", \"system\": \"ours\", \"metric\": \"submit_instr\", \"value\": %.0f}\n",
           c, (t - w - f) / n }'
done
