#!/usr/bin/env bash
# The first command for a new user on Debian 12: installs the dependencies,
# builds btfc (profile-guided, trained on the test corpus: scripts/build.sh),
# unpacks the test corpus and runs btfc's main job on the bundled default
# input (samples/sample.c, compiled here): encode its DWARF as BTF and print
# the BTF as bpftool would.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BTFC_PGO=1 scripts/build.sh
scripts/unpack-corpus.sh >/dev/null
mkdir -p build/sample
gcc -g -gdwarf-5 -c samples/sample.c -o build/sample/sample.o
echo "== btfc encode --btf_encode_detached=build/sample/sample.btf build/sample/sample.o"
build/btfc encode --btf_encode_detached=build/sample/sample.btf build/sample/sample.o
echo "== btfc dump build/sample/sample.btf"
build/btfc dump build/sample/sample.btf
