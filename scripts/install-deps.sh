#!/usr/bin/env bash
# Installs the Debian packages the project needs; idempotent and
# non-interactive.  Packages already installed cost one dpkg query each.
#   install-deps.sh          what build, test and demo need
#   install-deps.sh bench    plus the benchmark peers (make bench)
#   install-deps.sh coverage plus gcovr (make coverage)
#   install-deps.sh fuzz     plus clang and its libFuzzer runtime (make fuzz)
set -euo pipefail

packages=(
  build-essential cmake pkg-config   # toolchain
  libcmocka-dev                      # C unit tests
  libjansson-dev                     # JSON reading (scope-stats report)
  chromium                           # headless browser test of the report page
  libopenblas-dev                    # tile kernels: matmul (cblas_sgemm)
  python3-dev                        # the pypto._C extension (Debian's /usr/bin/python3)
  python3-numpy python3-torch python3-pytest  # the pypto package's tensors and its tests
  python3-venv python3-pip python3-setuptools  # pip install . (tests/install)
  openmpi-bin libopenmpi-dev         # distributed mode: mpirun, mpicc (libpto_mpi, pypto._C_mpi)
)
if [ "${1:-}" = bench ]; then
  packages+=(
    libstarpu-dev libtbb-dev g++     # StarPU, TBB flow graph (C++ adapter)
    libomp-dev clang                 # LLVM libomp (the clang-built OpenMP driver)
    libopenblas-dev liblapacke-dev   # tile kernels (B4) and the LAPACKE peer
    valgrind                         # callgrind instruction counts of the submit path
  )
fi
if [ "${1:-}" = fuzz ]; then
  packages+=(
    clang libclang-rt-dev            # libFuzzer, ASan, UBSan of the default clang
  )
fi

if [ "${1:-}" = coverage ]; then
  packages+=(gcovr)                  # line and branch coverage report
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
