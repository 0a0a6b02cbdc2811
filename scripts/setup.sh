#!/usr/bin/env bash
# Installs the Debian packages carom needs to build and test, if missing.
# Run as root (or with sudo available). Idempotent: does nothing when all
# packages are present.
set -euo pipefail

packages=(build-essential cmake pkg-config libcjson-dev libcmocka-dev)
# The documents' check (scripts/check_docs.py, ctest docs_match_code) and
# the fuzz seeds' maker (fuzz/seed_corpus.py).
packages+=(python3)
# Pictures (issue 6, docs/viewer.md): the window (GLFW, OpenGL), headless
# rendering without a display (EGL with Mesa's software driver), PNG and the
# overlay font (stb), plots (gnuplot), and the browser replay's build and
# test (Node.js, npm, Chromium).
packages+=(libglfw3-dev libgl-dev libegl-dev libegl-mesa0 libgl1-mesa-dri libpng-dev libstb-dev gnuplot-nox chromium)
# Node.js may come from elsewhere (NodeSource ships npm inside nodejs): only
# ask Debian for what no package provides yet.
command -v node > /dev/null || packages+=(nodejs)
command -v npm > /dev/null || packages+=(npm)

exec "$(dirname "$0")/apt-missing.sh" setup "${packages[@]}"
