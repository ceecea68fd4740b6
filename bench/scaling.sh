#!/usr/bin/env bash
# How btfc would scale past this machine's cores (issue 6, target 2): takes
# RUNS traces of btfc at -j1 and at -jJ (alternately, default 5 and 2),
# checks that the outputs are the same bytes, and has bench/scaling.py
# replay the -j1 run's task graph on 1 to 16 simulated threads, with the
# -jJ runs' real times beside the replay at J (its check).
#
#   bench/scaling.sh [-n RUNS] [-j J] [-f FLAGS] [-b BASE] [FILE|MODDIR]
#
# FILE defaults to the corpus vmlinux, FLAGS to Linux 6.1's
# (`--btf_gen_floats --lang_exclude=rust`); -b BASE encodes FILE (a module)
# split on BASE, and a folder MODDIR with -b BASE is a module tree encoded
# in batch mode (every `*.ko` under it, one process). The replay's figures
# are a model's, not a measurement: scaling.py's header says what it sees
# and what it cannot.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
btfc=${BTFC:-$root/build/btfc}
runs=5
jobs=2
flags="--btf_gen_floats --lang_exclude=rust"
while getopts "n:j:f:b:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    f) flags=$OPTARG ;;
    b) flags="$flags --btf_base=$OPTARG" ;;
    *) echo "usage: $0 [-n RUNS] [-j J] [-f FLAGS] [-b BASE] [FILE|MODDIR]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  corpus=$(BTFC_CORPUS_DIR=${BTFC_CORPUS_DIR:-} "$root/scripts/unpack-corpus.sh")
  set -- "$corpus/vmlinux"
fi
input=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== $(nproc) cores; $runs traced runs of btfc at -j1 and at -j$jobs, alternately, on $input"
for ((i = 0; i < runs; i++)); do
  for j in 1 "$jobs"; do
    if [ -d "$input" ]; then  # a module tree: batch mode, one output per module
      rm -rf "$tmp/j$j.out"
      mkdir "$tmp/j$j.out"
      # shellcheck disable=SC2086
      BTFC_TRACE=$tmp/j$j.$i.trace "$btfc" encode -J $flags -j"$j" --output-dir="$tmp/j$j.out" "$input"
    else
      # shellcheck disable=SC2086
      BTFC_TRACE=$tmp/j$j.$i.trace "$btfc" encode -J $flags -j"$j" --btf_encode_detached="$tmp/j$j.out" "$input"
    fi
  done
  if ! diff -rq "$tmp/j1.out" "$tmp/j$jobs.out" > /dev/null; then
    echo "FAIL: btfc's output differs between -j1 and -j$jobs" >&2
    exit 1
  fi
done
python3 "$root/bench/scaling.py" "$tmp"/j1.*.trace --check "$tmp/j$jobs".*.trace
