# carom — the two commands of README.md:
#   make run    set up, build, and run the embedded default scene into out/
#   make test   set up, build, and run the test suite, plain and under ASan+UBSan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all setup build build-asan run test test-plain test-asan bench bench-peers clean

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

clean:
	rm -rf build build-asan out
