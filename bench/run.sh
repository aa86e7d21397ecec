#!/usr/bin/env bash
# Runs the benchmarks and prints the table (bench_report).
#   bench/run.sh [full|quick] BIN_DIR
#     full:  B0-B7 and B2t as docs/performance.md describes (under 10 minutes here)
#     quick: a reduced set (under 2 minutes); B7 at its realistic sizes, in the
#            first repetition only
#   BENCH_PYTHON  the interpreter with torch and numpy for B5's and B7's peers
#                 (B7: also torch's reference results, computed before any timing)
#                 (default /usr/bin/python3, where the Debian packages go)
#   BENCH_REPS=N  repetitions (default 3)
#
# Noise: each repetition runs B0, then every case once on every system, one
# process at a time, the systems in an order rotated by repetition and case;
# so a cell's samples are spread over the whole run and no system always
# follows the same one.  The report gives each cell's median and spread.
#
# One pinning policy for every runtime: none.  OMP_PROC_BIND, OMP_PLACES,
# GOMP_CPU_AFFINITY and KMP_AFFINITY are unset, StarPU gets
# STARPU_WORKERS_NOBIND=1; ours, TBB and OpenBLAS do not pin.  Wait
# policies are each runtime's default; the extra rows omp-gcc-passive and
# omp-clang-active set OMP_WAIT_POLICY.
set -euo pipefail
mode=${1:-full}
bin=${2:-build-bench/bin}
reps=${BENCH_REPS:-3}
here=$(cd "$(dirname "$0")" && pwd)
python=${BENCH_PYTHON:-/usr/bin/python3}
out="$here/results"
mkdir -p "$out"
rows="$out/rows.jsonl" configs="$out/configs.jsonl" failures="$out/failures.txt"
: > "$rows"; : > "$configs"; : > "$failures"
start=$SECONDS

unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY OMP_WAIT_POLICY GOMP_SPINCOUNT KMP_BLOCKTIME
export OPENBLAS_NUM_THREADS=1 STARPU_WORKERS_NOBIND=1 STARPU_SILENT=1
STARPU_HOME=$(mktemp -d)
export STARPU_HOME
trap 'rm -rf "$STARPU_HOME"' EXIT

# system -> command
run() {
  local sys=$1; shift
  case $sys in
    ours)             "$bin/bench_ours" "$@" ;;
    ours-sized)       PTO_BENCH_SIZED=1 BENCH_SYSTEM_NAME=ours-sized "$bin/bench_ours" "$@" ;;
    omp-gcc)          "$bin/bench_omp_gcc" "$@" ;;
    omp-gcc-passive)  OMP_WAIT_POLICY=passive BENCH_SYSTEM_NAME=omp-gcc-passive "$bin/bench_omp_gcc" "$@" ;;
    omp-clang)        "$bin/bench_omp_clang" "$@" ;;
    omp-clang-active) OMP_WAIT_POLICY=active BENCH_SYSTEM_NAME=omp-clang-active "$bin/bench_omp_clang" "$@" ;;
    starpu)           "$bin/bench_starpu" "$@" ;;
    tbb)              "$bin/bench_tbb" "$@" ;;
    lapacke-mt)       env -u OPENBLAS_NUM_THREADS "$bin/bench_lapacke_mt" "$@" ;;
    dsl)              "$bin/bench_dsl" "$@" ;;
    c-loop)           BENCH_SYSTEM_NAME=c-loop "$bin/bench_dsl" "$@" ;;
    py)               "$python" "$here/systems/b5_torch.py" "$@" ;;
    b7)               "$bin/bench_b7" "$@" ;;
    b2c)              "$bin/bench_b2c" "$@" ;;
    b2c-checked)      BENCH_SYSTEM_NAME=ours-checked "$bin/bench_b2c" "$@" ;;
    b7nz)             PTO_BENCH_NO_ZERO_FILL=1 "$bin/bench_b7" "$@" ;;
    py7)              "$python" "$here/systems/b7_torch.py" "$@" ;;
  esac
}
have() {
  case $1 in
    ours*) [ -x "$bin/bench_ours" ] ;;
    omp-gcc*) [ -x "$bin/bench_omp_gcc" ] ;;
    omp-clang*) [ -x "$bin/bench_omp_clang" ] ;;
    lapacke-mt) [ -x "$bin/bench_lapacke_mt" ] ;;
    dsl|c-loop) [ -x "$bin/bench_dsl" ] ;;
    b7nz) [ -x "$bin/bench_b7" ] ;;
    b2c*) [ -x "$bin/bench_b2c" ] ;;
    py|py7) "$python" -c 'import torch, numpy' 2>/dev/null ;;
    *) [ -x "$bin/bench_$1" ] ;;
  esac
}
# The systems of a benchmark (a driver prints nothing for a benchmark its
# system does not take part in).  The extra rows run in full mode only:
# ours-sized where tasks allocate ring memory (B3), omp-gcc-passive
# everywhere but B1, where a passive libgomp needs minutes per pattern.
# B5 and B6 (the DSL) have their own systems: dsl (bench_dsl, rows
# "ours"), the C loop and the Python peers (torch, numpy: one process);
# B7 bench_b7 (rows "ours") and its Python peers.  B2c ("B2 trusted": B2's
# graphs from a compiled program) bench_b2c, through the executor's trusted
# submit and through the public one (rows "ours" and ours-checked).
systems_of() {
  local all="ours omp-gcc omp-clang omp-clang-active starpu tbb lapacke-mt"
  case $1 in
    b5) echo "dsl c-loop py"; return ;;
    b6) echo "dsl"; return ;;
    b7) echo "b7 b7nz py7"; return ;;
    b2c) echo "b2c b2c-checked"; return ;;
  esac
  if [ "$mode" = quick ]; then echo "$all"; return; fi
  case $1 in
    b1) echo "$all" ;;
    b3) echo "$all ours-sized omp-gcc-passive" ;;
    *)  echo "$all omp-gcc-passive" ;;
  esac
}

# B3's 256 x 256 inputs: at least 4x the last-level cache, so they stream
# from DRAM like the B0 triad they are read against.
llc=$("$bin/bench_calib" llc)
[ "$llc" -gt 0 ] || llc=$((32 << 20))
b3_inputs() { # STREAMS TILE -> M
  local k=$1 t=$2 tile_pair=$((2 * $2 * $2 * 4))
  if [ "$t" -ge 256 ]; then echo $(( (4 * llc + k * tile_pair - 1) / (k * tile_pair) )); else echo 32; fi
}

cases=()
if [ "$mode" = quick ]; then
  cases+=("b1 stencil 2 quick" "b1 trivial 8 quick")
  cases+=("b2 50000 0" "b2 50000 3" "b2c 50000 0" "b2c 50000 3")
  cases+=("b2t slices 64 20000" "b2t slices 8192 24576")
  cases+=("b3 2 64 300 $(b3_inputs 2 64)" "b3 2 256 100 $(b3_inputs 2 256)")
  cases+=("b4 1024 64" "b4 1024 256")
  cases+=("b5 256 128" "b5 4096 1024")
  cases+=("b6 tasks 4096 1024" "b6 call" "b6 rss" "b6 spmd 64 128")
  b7_sizes=(real)
else
  for c in "stencil 2" "stencil 8" "nearest3 8" "nearest5 8" "trivial 8"; do cases+=("b1 $c"); done
  for d in 0 1 3 5; do cases+=("b2 100000 $d"); done
  for d in 0 1 3 5; do cases+=("b2c 100000 $d"); done
  for s in slices rows cols; do cases+=("b2t $s 64 100000" "b2t $s 1000 100000" "b2t $s 8192 24576"); done
  for k in 2 8; do cases+=("b3 $k 64 1000 $(b3_inputs $k 64)" "b3 $k 256 250 $(b3_inputs $k 256)"); done
  for b in 64 128 256; do cases+=("b4 2048 $b"); done
  for s in "256 128" "4096 1024" "16384 1024"; do cases+=("b5 $s"); done
  cases+=("b6 tasks 4096 1024" "b6 call" "b6 rss" "b6 spmd 64 128")
  b7_sizes=(small real)
fi
# B7: each kernel at upstream's example size (small) and a realistic one.
for z in "${b7_sizes[@]}"; do
  if [ "$z" = small ]; then cases+=("b7 softmax 64 64" "b7 rmsnorm 32 64" "b7 ffn 64 64 64" "b7 attention 64 128")
  else cases+=("b7 softmax 4096 1024" "b7 rmsnorm 4096 1024" "b7 ffn 1024 1024 1024" "b7 attention 1024 128"); fi
done

"$bin/bench_calib" info >> "$configs"
policy="$mode; $reps repetitions, systems interleaved round-robin (order rotated by repetition and case)"
policy+="; no runtime pinned (OMP_PROC_BIND/OMP_PLACES unset, STARPU_WORKERS_NOBIND=1; ours, TBB, OpenBLAS unpinned)"
policy+="; each runtime its default wait policy; OpenBLAS 1 thread inside tasks"
printf '{"system": "run", "config": "%s"}\n' "$policy" >> "$configs"
used=" " # every system some case runs, once
for c in "${cases[@]}"; do
  for s in $(systems_of "${c%% *}"); do [[ $used == *" $s "* ]] || used+="$s "; done
done
for s in $used; do have "$s" && run "$s" info >> "$configs"; done

# B7's reference: torch's result of every B7 case, once, before any timing;
# every system's every run is checked against it.
export BENCH_B7_REFS="$out/b7_refs"
mkdir -p "$BENCH_B7_REFS"
for c in "${cases[@]}"; do
  read -r -a args <<< "$c"
  [ "${args[0]}" = b7 ] || continue
  have py7 && run py7 ref "$BENCH_B7_REFS" "${args[@]:1}" || echo "FAILED: torch reference of $c" >> "$failures"
done

examples="$here/../examples/dsl"
for ((r = 0; r < reps; r++)); do
  echo "[$((SECONDS - start))s] repetition $((r + 1))/$reps: B0" >&2
  "$bin/bench_calib" >> "$rows"
  echo "[$((SECONDS - start))s] repetition $((r + 1))/$reps: C1 compile time" >&2
  "$bin/bench_compile" "$here/../examples/python/memory_page.py" manual_placement \
    "$here/../examples/python/memory_page.py" scaled \
    "$examples/orch_program.py" Before "$here/programs/unroll.py" unroll_100 "$here/programs/unroll.py" unroll_1000 \
    "$here/programs/unroll.py" unroll_4096 >> "$rows" || echo "FAILED: C1 compile time" >> "$failures"
  for ((i = 0; i < ${#cases[@]}; i++)); do
    read -r -a args <<< "${cases[i]}"
    [ "$mode" = quick ] && [ "${args[0]}" = b7 ] && [ "$r" -gt 0 ] && continue
    sys=()
    for s in $(systems_of "${args[0]}"); do have "$s" && sys+=("$s"); done
    n=${#sys[@]}
    echo "[$((SECONDS - start))s] repetition $((r + 1))/$reps: ${cases[i]}" >&2
    for ((j = 0; j < n; j++)); do
      s=${sys[(j + r + i) % n]}
      run "$s" "${args[@]}" >> "$rows" || echo "FAILED: $s ${cases[i]}" >> "$failures"
    done
  done
done

echo "[$((SECONDS - start))s] instruction counts (callgrind)" >&2
"$here/instructions.sh" "$mode" "$bin" >> "$rows" || echo "FAILED: instruction counts" >> "$failures"
"$bin/bench_report" "$rows" "$configs" "$out/latest.json"
echo "elapsed: $((SECONDS - start)) s ($mode, $reps repetitions)"
if [ -s "$failures" ]; then
  echo "Failed runs (their rows are missing above):"
  cat "$failures"
  exit 1
fi
