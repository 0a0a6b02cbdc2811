# carom — the two commands of README.md:
#   make run    set up, build, and run the embedded default scene into out/
#   make test   set up, build, and run the test suite, plain and under ASan+UBSan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all setup build build-asan run test test-plain test-asan bench bench-peers fuzz clean

all: build

# Debian packages, then the browser replay's npm packages as locked in
# web/package-lock.json: three.js and uPlot for carom export-web (bundled
# into the binary), playwright-core for its test.
setup:
	./scripts/setup.sh
	cd web && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund; }

build: setup
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build -j $(JOBS)

build-asan: setup
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCAROM_SANITIZE=ON -DCAROM_BENCH=OFF
	cmake --build build-asan -j $(JOBS)

run: build
	./build/carom run --out out

test-plain: build
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

test: test-plain test-asan

bench: build
	./build/bench/bench_ball_pit

# Side by side with ODE, Bullet, MuJoCo and LAMMPS (docs/benchmarks.md); the
# report also goes to bench/results/. Options: make bench-peers PEERS_ARGS="--sizes 1000,8000 --cap 20"
PEERS_ARGS ?=
bench-peers: setup
	./scripts/setup-peers.sh
	cmake -S . -B build-peers -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAROM_PEERS=ON -DCAROM_TESTS=OFF
	cmake --build build-peers -j $(JOBS)
	./build-peers/bench/peers/bench_peers --results bench/results $(PEERS_ARGS)

# libFuzzer targets under ASan+UBSan (fuzz/, docs/reliability.md): clang from
# scripts/setup-fuzz.sh, built into build-fuzz/, each target run FUZZ_SECONDS
# from its seed corpus. Fails when a target finds a crash, leak or timeout.
FUZZ_SECONDS ?= 60
fuzz: setup
	./scripts/setup-fuzz.sh
	CC=clang cmake -S . -B build-fuzz -DCAROM_FUZZ=ON -DCAROM_TESTS=OFF -DCAROM_BENCH=OFF -DCAROM_VIEWER=OFF \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g"
	cmake --build build-fuzz --target carom_fuzzers -j $(JOBS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz.sh

clean:
	rm -rf build build-asan out
