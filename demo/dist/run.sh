#!/bin/sh
# make demo-dist (DISTRIBUTED-SPEC §4.5): each demo of demo/dist under mpirun with the
# §4.1 test flags, the ring at 2 and at 4 ranks.  Without mpirun: one line, exit 2.
set -e
cd "$(dirname "$0")/../.."
if ! command -v mpirun >/dev/null 2>&1; then
    echo "demo-dist: mpirun not found; run make deps (installs openmpi-bin and libopenmpi-dev), then make build"
    exit 2
fi
demo() { # np script args...
    np=$1
    shift
    echo "== mpirun -np $np $*"
    PYTHONPATH=python timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --tag-output -np "$np" \
        -x OPENBLAS_NUM_THREADS=1 /usr/bin/python3 "$@"
}
demo 2 demo/dist/hello.py
demo 2 demo/dist/ring.py put
demo 2 demo/dist/ring.py get
demo 4 demo/dist/ring.py put
demo 4 demo/dist/ring.py get
demo 2 demo/dist/allreduce.py
