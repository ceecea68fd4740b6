#!/usr/bin/env bash
# Benchmark of `btfc layout` against pahole on the whole-vmlinux layout from
# DWARF, in one run.
#
#   bench/layout.sh [-n RUNS] [-j JOBS] [FILE]
#
# FILE defaults to the corpus vmlinux. Both tools print every struct and
# union (pahole's default mode, `pahole FILE`); PAHOLE names the pahole to
# compare with (default Debian's /usr/bin/pahole, 1.24). The two run
# alternately RUNS times each (default 3), btfc with -j JOBS (default: all
# cores); the script prints the median wall time, CPU time and peak RSS of
# each and the speed-up. Before timing it checks that btfc's output is the
# pahole 1.31 reference for the corpus vmlinux, and that -j1 and -jN agree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
btfc=${BTFC:-$root/build/btfc}
pahole=${PAHOLE:-/usr/bin/pahole}
runs=3
jobs=0
while getopts "n:j:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-j JOBS] [FILE]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
corpus=$(BTFC_CORPUS_DIR=${BTFC_CORPUS_DIR:-} "$root/scripts/unpack-corpus.sh")
input=${1:-$corpus/vmlinux}
shared=$(shared_dir "$root")
ref="$shared/reference/pahole-1.31/vmlinux.layout-plain.txt.zst"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

jflag=()
[ "$jobs" != 0 ] && jflag=(-j"$jobs")
"$btfc" layout "${jflag[@]}" "$input" > "$tmp/btfc.txt"
"$btfc" layout -j1 "$input" > "$tmp/btfc1.txt"
cmp -s "$tmp/btfc.txt" "$tmp/btfc1.txt" || { echo "btfc layout: -j1 and -j$jobs differ" >&2; exit 1; }
if [ "$(readlink -f "$input")" = "$(readlink -f "$corpus/vmlinux")" ] && [ -f "$ref" ]; then
  zstd -dc "$ref" | cmp -s - "$tmp/btfc.txt" || { echo "btfc layout differs from pahole 1.31's reference" >&2; exit 1; }
  echo "checked: btfc layout output == pahole 1.31 reference (vmlinux.layout-plain.txt)"
fi

# One timed run: prints "wall cpu rss_kb".
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" > /dev/null 2>&1
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$tmp/t"
}
: > "$tmp/btfc.times"
: > "$tmp/pahole.times"
for ((i = 0; i < runs; i++)); do
  measure "$btfc" layout "${jflag[@]}" "$input" >> "$tmp/btfc.times"
  measure "$pahole" "$input" >> "$tmp/pahole.times"
done
read -r bw bc bm <<< "$(medians "$tmp/btfc.times")"
read -r pw pc pm <<< "$(medians "$tmp/pahole.times")"
printf "%-28s %10s %10s %12s\n" "layout of $(basename "$input")" "wall s" "cpu s" "peak RSS MB"
printf "%-28s %10s %10s %12d\n" "btfc layout (-j${jobs/#0/all})" "$bw" "$bc" $((bm / 1024))
printf "%-28s %10s %10s %12d\n" "$("$pahole" --version 2>/dev/null || echo pahole)" "$pw" "$pc" $((pm / 1024))
awk -v p="$pw" -v b="$bw" -v pc="$pc" -v bc="$bc" 'BEGIN {printf "speed-up: %.1fx wall, %.1fx cpu\n", p / b, pc / bc}'
