# Top-level entry points.  `make demo` and `make test` do all set-up on a
# fresh Debian machine (make deps installs the packages).
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-dist demo-dist test-asan test-tsan soak coverage mutate fuzz fuzz-build demo bench bench-quick bench-build bench-dist bench-dist-quick install deb clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B build $(CMAKE_FLAGS) >/dev/null
	@cmake --build build -j $(JOBS)

test: build
	cd build && ctest --output-on-failure -j $(JOBS)

# Only the distributed tests (tests/dist, DISTRIBUTED-SPEC §6); exit 2 when mpirun is absent.
test-dist: build
	/usr/bin/python3 tests/dist/run.py --strict --bin build/bin --ext-dir python/pypto

# Upstream's distributed examples and manual blocks (DISTRIBUTED-SPEC §5): make accept-dist UPSTREAM=<dir>.
include tests/dist/accept.mk

# Our distributed demos (demo/dist, DISTRIBUTED-SPEC §4.5): hello ranks, ring shift by put and
# get (2 and 4 ranks), host allreduce; each prints its check, time per call, comm stats per rank.
demo-dist: build
	demo/dist/run.sh

test-asan: deps
	@cmake -S . -B build-asan -DPTO_SANITIZE=address -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

# setarch -R: TSan needs the classic address-space layout.
test-tsan: deps
	@cmake -S . -B build-tsan -DPTO_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		setarch -R ctest --output-on-failure -j $(JOBS)

# Soak (tests/soak, tests/python/test_random_dsl.py): 10 M tasks through
# 4-slot windows at constant memory, random task graphs for SOAK_SECONDS
# against a serial run, SOAK_PROGRAMS random DSL programs against numpy.
# make test runs a short version of each.
SOAK_TASKS ?= 10000000
SOAK_SECONDS ?= 300
SOAK_PROGRAMS ?= 5000
soak: build
	./build/bin/soak_window --tasks $(SOAK_TASKS) --seconds 1800
	./build/bin/soak_dag --seconds $(SOAK_SECONDS)
	PTO_SOAK_PROGRAMS=$(SOAK_PROGRAMS) $(PY) -m pytest -q -s -p no:cacheprovider tests/python/test_random_dsl.py

# The seed page's examples run from Python as the page runs them (rings
# from their scope stats, the report of one), compiled with ptoc (the
# program after every pass) and run from C (run_dsl: out == a * 2 + 1 checked; manual_placement with
# scope stats and their report), then the C API example with its report.
SEED_SHAPES = --shape a=256x128:fp32 --shape out=256x128:fp32
PY = PYTHONPATH=python /usr/bin/python3
demo: build
	$(PY) examples/python/memory_page.py build/demo-python
	$(PY) -m pypto.tools.scope_stats_plot build/demo-python/manual_placement/dfx_outputs/scope_stats/scope_stats.jsonl
	./build/bin/ptoc lower examples/python/memory_page.py --func manual_placement $(SEED_SHAPES)
	./build/bin/ptoc lower examples/python/memory_page.py --func scaled $(SEED_SHAPES)
	./build/bin/ptoc lower examples/dsl/orch_program.py --func Before $(SEED_SHAPES)
	./build/bin/run_dsl examples/python/memory_page.py scaled
	./build/bin/run_dsl examples/python/memory_page.py manual_placement build/demo-dsl
	./build/bin/pto-scope-stats build/demo-dsl/scope_stats/scope_stats.jsonl --html build/demo-dsl/scope_stats.html
	./build/bin/two_phase build/demo
	./build/bin/pto-scope-stats build/demo/scope_stats/scope_stats.jsonl --html build/demo/scope_stats.html

# Benchmarks against OpenMP, StarPU and TBB (docs/performance.md); installs the
# peers' Debian packages, builds Release drivers, prints the table and
# writes bench/results/latest.json.
bench-build:
	@scripts/install-deps.sh bench
	@cmake -S . -B build-bench -DPTO_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build build-bench -j $(JOBS)

bench: bench-build
	bench/run.sh full build-bench/bin

bench-quick: bench-build
	bench/run.sh quick build-bench/bin

# Distributed mode against raw Open MPI (DISTRIBUTED-SPEC §7, docs/performance.md): R1-R4b
# under mpirun, one table, bench/results/dist-latest.json.  The quick set: one size per row.
bench-dist: build
	bench/dist/run.sh full build/lib

bench-dist-quick: build
	bench/dist/run.sh quick build/lib

# libFuzzer harnesses (tests/fuzz/README.md): a clang build in build-fuzz,
# then each harness runs FUZZ_SECONDS with its dictionary, its seeds and a
# persistent corpus under build-fuzz/fuzz-corpus; a crash fails the target.
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES ?= compile config stats api
fuzz-build:
	@scripts/install-deps.sh fuzz
	@cmake -S . -B build-fuzz -DPTO_FUZZ=ON -DCMAKE_C_COMPILER=clang >/dev/null
	@cmake --build build-fuzz -j $(JOBS)

fuzz: fuzz-build
	tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# Line and branch coverage of the whole suite (gcc --coverage, -O0) per
# layer with gcovr, HTML in build-cov/coverage/index.html.
coverage: deps
	@scripts/install-deps.sh coverage
	scripts/coverage.sh build-cov $(JOBS)

# Mutation pass over the capacity checks and ordering rules: each mutant of
# scripts/mutants.tsv is built in a copy of the tree (build-mut/) and the
# tests it names are run; prints mutant, file:line, killed-by.
mutate: deps
	scripts/mutate.sh build-mut $(JOBS)

# Installs the headers, libpto.a and libpto.so.0, ptoc and pto-scope-stats,
# pto.pc and the CMake package (find_package(pto)) under PREFIX; DESTDIR is
# honoured.  make deb writes build/deb/pto_<version>_<arch>.deb.
PREFIX ?= /usr/local
install: build
	cmake --install build --prefix $(PREFIX)

deb: build
	cd build && cpack -G DEB

clean:
	rm -rf build build-asan build-tsan build-bench build-pip build-cov build-mut build-fuzz
