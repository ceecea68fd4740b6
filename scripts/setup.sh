#!/usr/bin/env bash
# The first command for a new user on Debian 12: installs the dependencies,
# builds btfc, unpacks the test corpus and runs btfc's main job on the
# bundled default input (samples/sample.c, compiled here), printing what it
# found.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/unpack-corpus.sh >/dev/null
mkdir -p build/sample
gcc -g -gdwarf-5 -c samples/sample.c -o build/sample/sample.o
echo "== btfc stats build/sample/sample.o"
build/btfc stats build/sample/sample.o
