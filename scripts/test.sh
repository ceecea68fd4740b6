#!/usr/bin/env bash
# The whole test suite: builds btfc, unpacks the corpus, runs every test
# (ctest), then the sanitizer build's tests and each fuzz target for a
# bounded time over its regression inputs. Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Assigned, then exported: `export X=$(...)` would hide a failure from set -e.
BTFC_CORPUS_DIR=$(scripts/unpack-corpus.sh)
export BTFC_CORPUS_DIR

# One build for the tests under the sanitizers and for the fuzz targets
# (libFuzzer needs clang): the code under test at -O1, for the fuzzers'
# speed, with assertions; the tests' own files at -O0 (tests/CMakeLists.txt).
# Line tables are all a sanitizer's report needs (-g1 rather than -g).
echo "== sanitizer build (clang, ASan+UBSan, with the fuzz targets): all tests but the slowest corpus ones"
BTFC_PGO=0 BUILD_DIR=build-san scripts/build.sh -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DBTFC_SANITIZE=ON -DBTFC_FUZZ=ON -DBTFC_BENCH=OFF
# The corpus tests left to the release build take 14-75 s each under the
# sanitizers (all 64 there: 280 s at -j2): the llvm-dwarfdump oracle's,
# vmlinux's layouts, its encodes with other flags than the default ones
# and a second time at other -j, the scaling replay (timed). The ones
# kept walk the same code on the same files: vmlinux with the default
# features, the modules split on it, in batch, damaged, from the cache.
slow='StatsCorpus|VmlinuxNamedTwiceInAGroup|ModulesMatchPahole124|BtfdiffCleanOnVmlinux|VmlinuxBtfdiffDwarfSide'
slow+='|VmlinuxBytesIndependentOfJobs|ModulesLegacyAndDefault|ScalingCorpus|SameGraphAsPahole131/(legacy|global_var)'
slow+='|LayoutCorpus.VmlinuxPlain|ClassNameOnlyDeclared'
(cd build-san && ctest -j"$jobs" -E "$slow" --output-on-failure --timeout 900)

# One fuzz target: its regression inputs, then FUZZ_SECONDS of fuzzing.
fuzz_one() {
  local f=$1 name=${1##*/fuzz_}
  local seeds=()
  mkdir -p "build-san/corpus-$name"
  [ -d "fuzz/seeds/$name" ] && seeds+=("fuzz/seeds/$name")
  if [ -d "fuzz/regressions/$name" ]; then
    "$f" fuzz/regressions/"$name"/* >/dev/null 2>&1 || { echo "fuzz regression failed: $name"; return 1; }
  fi
  "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 -print_final_stats=0 \
    "build-san/corpus-$name" "${seeds[@]}" > "build-san/$name.log" 2>&1 \
    || { tail -50 "build-san/$name.log"; echo "fuzz target $name found a crash"; return 1; }
  echo "fuzz_$name: $(grep -c '' "build-san/$name.log") log lines, no crash"
}

if [ -d fuzz ] && ls fuzz/*.cc >/dev/null 2>&1; then
  echo "== fuzz targets (libFuzzer, ${FUZZ_SECONDS:=30} s each, $jobs at a time)"
  # Each target runs on one thread: $jobs of them side by side, each
  # reporting into its own file, printed in order once all are done.
  targets=()
  for f in build-san/fuzz/fuzz_*; do
    [ -f "$f" ] && [ -x "$f" ] && targets+=("$f")
  done
  failed=0
  for ((i = 0; i < ${#targets[@]}; i += jobs)); do
    pids=() results=()
    for f in "${targets[@]:i:jobs}"; do
      results+=("build-san/${f##*/fuzz_}.result")
      fuzz_one "$f" > "${results[-1]}" 2>&1 &
      pids+=($!)
    done
    for ((k = 0; k < ${#pids[@]}; k++)); do
      wait "${pids[k]}" || failed=1
      cat "${results[k]}"
    done
  done
  [ "$failed" = 0 ] || exit 1
fi

echo "== release build (profile-guided, as scripts/setup.sh's): all tests"
BTFC_PGO=1 scripts/build.sh
cd build && ctest -j"$jobs" --output-on-failure --timeout 1800
