# Top-level entry points.  `make demo` and `make test` do all set-up on a
# fresh Debian machine (make deps installs the packages).
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-asan test-tsan demo bench bench-quick bench-build fuzz fuzz-build clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B build $(CMAKE_FLAGS) >/dev/null
	@cmake --build build -j $(JOBS)

test: build
	cd build && ctest --output-on-failure -j $(JOBS)

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

# Benchmarks against OpenMP, StarPU and TBB (BENCHMARKS.md); installs the
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

clean:
	rm -rf build build-asan build-tsan build-bench build-fuzz
