#!/usr/bin/env bash
# Configures and builds btfc into build/ (or $BUILD_DIR) with Ninja.
# Extra arguments go to cmake, e.g. scripts/build.sh -DBTFC_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja "$@" >/dev/null
ninja -C "$build" ${NINJA_FLAGS:-}
