#!/usr/bin/env bash
# Installs those of the given Debian packages that are missing, for
# scripts/setup.sh, setup-fuzz.sh and setup-peers.sh: nothing when all are
# installed; otherwise apt-get install, and if that fails apt-get update and
# install again. Run as root (or with sudo available).
#
#   apt-missing.sh [--lock-timeout SECONDS] LABEL PACKAGE...
#     LABEL                   the caller's name in the "installing" line
#     --lock-timeout SECONDS  wait that long for dpkg's lock (setup-peers.sh)
set -euo pipefail

apt=(apt-get)
if [ "${1:-}" = --lock-timeout ]; then
    apt+=(-o "DPkg::Lock::Timeout=$2")
    shift 2
fi
label=$1
shift

missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "$label: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO "${apt[@]}" install -y --no-install-recommends "${missing[@]}"; then
    $SUDO "${apt[@]}" update
    $SUDO "${apt[@]}" install -y --no-install-recommends "${missing[@]}"
fi
