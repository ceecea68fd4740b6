#!/usr/bin/env bash
# Configures and builds btfc into build/ (or $BUILD_DIR) with Ninja.
# Extra arguments go to cmake, e.g. scripts/build.sh -DBTFC_SANITIZE=ON.
#
# BTFC_PGO=1 builds with profile-guided optimisation (GCC): an instrumented
# btfc first, trained on the test corpus (scripts/pgo-train.sh), then the
# whole build with that profile (CMake's BTFC_PGO). Without the corpus the
# build goes on without a profile, and says so. BTFC_PGO=0 builds without
# one; unset, the build directory keeps what it was configured with. A
# later `ninja -C build` keeps the profile; run this again after editing
# the encoder to train on the new code.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
pgo=()
case "${BTFC_PGO:-}" in
  1)
    if corpus=$(scripts/unpack-corpus.sh 2>/dev/null) && [ -s "$corpus/vmlinux" ]; then
      echo "== profile-guided build: an instrumented btfc, trained on $corpus"
      cmake -S . -B "$build" -G Ninja "$@" -DBTFC_PGO=generate >/dev/null
      find "$build" -name '*.gcda' -delete
      ninja -C "$build" ${NINJA_FLAGS:-} btfc
      scripts/pgo-train.sh "$build/btfc" "$corpus"
      pgo=(-DBTFC_PGO=use)
    else
      echo "== no test corpus to train on (scripts/unpack-corpus.sh): building without a profile"
      pgo=(-DBTFC_PGO=)
    fi
    ;;
  0) pgo=(-DBTFC_PGO=) ;;
  "") ;;
  *) echo "BTFC_PGO must be 1 or 0" >&2; exit 2 ;;
esac
cmake -S . -B "$build" -G Ninja "$@" "${pgo[@]}" >/dev/null
ninja -C "$build" ${NINJA_FLAGS:-}
