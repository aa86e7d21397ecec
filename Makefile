# Top-level entry points.  `make demo` and `make test` do all set-up on a
# fresh Debian machine (make deps installs the packages).
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build test test-asan test-tsan demo clean

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

demo: build
	./build/bin/two_phase

clean:
	rm -rf build build-asan build-tsan
