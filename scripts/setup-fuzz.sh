#!/usr/bin/env bash
# Installs what `make fuzz` needs beyond scripts/setup.sh, if missing: clang
# with libFuzzer and the ASan/UBSan runtimes (Debian 12: clang 14, whose
# runtimes, libclang_rt.fuzzer*.a and libclang_rt.asan*.a, are in
# libclang-rt-14-dev). Run as root (or with sudo available). Idempotent.
set -euo pipefail

packages=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup-fuzz: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
