#!/bin/sh
# make bench-dist / bench-dist-quick (DISTRIBUTED-SPEC §7): bench_dist.py under mpirun,
# then its report (one table, bench/results/dist-latest.json).
#   bench/dist/run.sh [full|quick] LIB_DIR     LIB_DIR holds libbench_dist_peer.so
#   BENCH_REPS=N  repetitions (default 5)
# R1-R3 and R4b run in one 2-rank mpirun, every repetition inside it; R1 again on am
# over shared memory and over TCP loopback (raw MPI then takes the same path).  R4 compares two
# worlds, so each repetition is one 2-rank and one 4-rank mpirun, their order swapped
# every repetition.  Every mpirun runs under timeout; without mpirun: one line, exit 2.
set -e
mode=${1:-full}
lib=${2:-build/lib}/libbench_dist_peer.so
reps=${BENCH_REPS:-5}
cd "$(dirname "$0")/../.."
if ! command -v mpirun >/dev/null 2>&1 || [ ! -f "$lib" ]; then
    echo "bench-dist: needs mpirun and $lib (make deps installs Open MPI, then make build)"
    exit 2
fi
mkdir -p bench/results
rows=bench/results/dist-rows.jsonl
: > "$rows"
export BENCH_DIST_REP=0
ranks() { # np rows reps
    PYTHONPATH=python timeout -k 5 300 mpirun --allow-run-as-root --oversubscribe -np "$1" \
        -x OPENBLAS_NUM_THREADS=1 -x BENCH_DIST_REP /usr/bin/python3 bench/dist/bench_dist.py \
        measure "$mode" "$2" "$3" "$rows" "$lib"
}
ranks 2 R1,R2,R3,R4b "$reps"
(export PTO_COMM_BACKEND=am; ranks 2 R1 "$reps")                             # am over shared memory
(export PTO_COMM_BACKEND=am OMPI_MCA_btl=tcp,self; ranks 2 R1 "$reps")        # am over TCP loopback
rep=0
while [ $rep -lt "$reps" ]; do
    export BENCH_DIST_REP=$rep
    if [ $((rep % 2)) -eq 0 ]; then ranks 2 R4 1; ranks 4 R4 1; else ranks 4 R4 1; ranks 2 R4 1; fi
    rep=$((rep + 1))
done
/usr/bin/python3 bench/dist/bench_dist.py report "$mode" "$rows" bench/results/dist-latest.json
