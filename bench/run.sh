#!/usr/bin/env bash
# Runs the benchmarks back to back, one runtime at a time, and prints the
# table (bench_report).  bench/run.sh [full|quick] BIN_DIR
#   full:  B0-B4 as BENCHMARKS.md describes (well under 10 minutes)
#   quick: a reduced set (under 2 minutes)
set -euo pipefail
mode=${1:-full}
bin=${2:-build-bench/bin}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/results"
mkdir -p "$out"
rows="$out/rows.jsonl" configs="$out/configs.jsonl"
: > "$rows"; : > "$configs"

# Peers' environment: serial BLAS inside tasks, pinned OpenMP threads, a
# private, quiet StarPU.
export OPENBLAS_NUM_THREADS=1 OMP_PROC_BIND=true OMP_PLACES=cores
export STARPU_SILENT=1 STARPU_HOME=$(mktemp -d)
trap 'rm -rf "$STARPU_HOME"' EXIT

# system -> command
run() {
  local sys=$1; shift
  case $sys in
    ours)             "$bin/bench_ours" "$@" ;;
    omp-gcc)          OMP_WAIT_POLICY=passive "$bin/bench_omp_gcc" "$@" ;;
    omp-clang)        "$bin/bench_omp_clang" "$@" ;;
    omp-clang-active) OMP_WAIT_POLICY=active BENCH_SYSTEM_NAME=omp-clang-active "$bin/bench_omp_clang" "$@" ;;
    starpu)           "$bin/bench_starpu" "$@" ;;
    tbb)              "$bin/bench_tbb" "$@" ;;
    lapacke-mt)       env -u OPENBLAS_NUM_THREADS "$bin/bench_lapacke_mt" "$@" ;;
  esac
}
have() {
  case $1 in
    omp-clang*) [ -x "$bin/bench_omp_clang" ] ;;
    omp-gcc) [ -x "$bin/bench_omp_gcc" ] ;;
    lapacke-mt) [ -x "$bin/bench_lapacke_mt" ] ;;
    *) [ -x "$bin/bench_$1" ] ;;
  esac
}
all="ours omp-gcc omp-clang omp-clang-active starpu tbb lapacke-mt"
# each runtime is shut down (its process ends) before the next one starts
each() { local b=$1; shift; for s in $all; do have "$s" || continue; run "$s" "$b" "$@" >> "$rows"; done; }

for s in $all; do have "$s" && run "$s" info >> "$configs"; done
"$bin/bench_calib" >> "$rows"

if [ "$mode" = quick ]; then
  each b1 stencil 2 quick
  each b1 trivial 8 quick
  each b2 100000 0
  each b2 100000 3
  each b3 2 64 300 32
  each b3 2 256 100 32
  each b4 1024 128
else
  for c in "stencil 2" "stencil 8" "nearest3 8" "nearest5 8" "trivial 8"; do each b1 $c; done
  for d in 0 1 3 5; do each b2 100000 $d; done
  for k in 2 8; do each b3 $k 64 1000 32; each b3 $k 256 250 32; done
  for b in 64 128 256; do each b4 2048 $b; done
fi
"$bin/bench_report" "$rows" "$configs" "$out/latest.json"
