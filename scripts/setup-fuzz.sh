#!/usr/bin/env bash
# Installs what `make fuzz` needs beyond scripts/setup.sh, if missing: clang
# with libFuzzer and the ASan/UBSan runtimes (Debian 12: clang 14, whose
# runtimes, libclang_rt.fuzzer*.a and libclang_rt.asan*.a, are in
# libclang-rt-14-dev). Run as root (or with sudo available). Idempotent.
set -euo pipefail

packages=(clang libclang-rt-14-dev)

exec "$(dirname "$0")/apt-missing.sh" setup-fuzz "${packages[@]}"
