#!/usr/bin/env bash
# Side-by-side benchmark of btfc and pahole on the same input, in one run.
#
#   bench/compare.sh [-n RUNS] [-j "1 2"] [-f FLAGS] [-b BASE] [-B OTHER_BTFC] [FILE]
#
# FILE defaults to the corpus vmlinux; FLAGS to the flags Linux 6.1's build
# passes (`--btf_gen_floats --lang_exclude=rust`). PAHOLE names the pahole
# to compare with (default: Debian's `pahole`). -b BASE encodes FILE (a
# module) split on the BTF in BASE, for both tools. For every -j value the two
# tools run alternately RUNS times each (default 5; each btfc run right
# after a pahole run); the script prints the median wall time, CPU time
# (user+sys) and peak RSS of each and the ratios, the median of each
# round's own wall ratio (which a drift of the host's speed moves less)
# with its range, then which page size btfc's fresh memory took in a run
# right after pahole (`--stats`: the probe's choice and figures, and the
# check that turned huge pages off later if one did, base/allocator.h).
# -B names another btfc binary (an earlier build, say) that takes its turn
# in the same alternation: on a machine whose speed drifts, a before/after
# comparison means something only when measured in one run.
#
# Before timing anything it checks btfc's output: against pahole 1.31's
# reference with `btfc diff` when FILE is the corpus vmlinux and FLAGS have
# a reference, and in any case that -j1 and -jN outputs are byte-identical.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
btfc=${BTFC:-$root/build/btfc}
pahole=${PAHOLE:-pahole}
runs=5
jobs_list="1 2"
flags="--btf_gen_floats --lang_exclude=rust"
base=""
other=""
while getopts "n:j:f:b:B:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    j) jobs_list=$OPTARG ;;
    f) flags=$OPTARG ;;
    b) base=$OPTARG ;;
    B) other=$OPTARG ;;
    *) echo "usage: $0 [-n RUNS] [-j \"1 2\"] [-f FLAGS] [-b BASE] [-B OTHER_BTFC] [FILE]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ -z "$base" ] || flags="$flags --btf_base=$base"
corpus=$(BTFC_CORPUS_DIR=${BTFC_CORPUS_DIR:-} "$root/scripts/unpack-corpus.sh")
input=${1:-$corpus/vmlinux}
shared=$(shared_dir "$root")
ref_dir="$shared/reference/pahole-1.31"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Which reference matches FLAGS, if FILE is the corpus vmlinux.
ref=""
if [ "$(readlink -f "$input")" = "$(readlink -f "$corpus/vmlinux")" ]; then
  case "$flags" in
    "--btf_gen_floats --lang_exclude=rust") ref=$ref_dir/vmlinux.legacy-flags.btf ;;
    "--btf_features=default --lang_exclude=rust") ref=$ref_dir/vmlinux.features-default.btf ;;
    "--btf_features=default,global_var --lang_exclude=rust") ref=$ref_dir/vmlinux.features-default-global_var.btf ;;
  esac
fi

# shellcheck disable=SC2086
encode_btfc() { "$btfc" encode -J $flags -j"$1" --btf_encode_detached="$2" "$input"; }
# shellcheck disable=SC2086
encode_pahole() { "$pahole" -J $flags -j"$1" --btf_encode_detached="$2" "$input"; }

echo "== checking btfc's output before timing"
first=""
for j in $jobs_list; do
  encode_btfc "$j" "$tmp/btfc-j$j.btf"
  if [ -z "$first" ]; then
    first=$tmp/btfc-j$j.btf
  elif ! cmp -s "$first" "$tmp/btfc-j$j.btf"; then
    echo "FAIL: btfc output differs between -j settings ($first vs -j$j)" >&2
    exit 1
  fi
done
if [ -n "$ref" ]; then
  if ! "$btfc" diff "$first" "$ref" > "$tmp/diff.txt"; then
    tail -20 "$tmp/diff.txt" >&2
    echo "FAIL: btfc's output differs from $(basename "$ref")" >&2
    exit 1
  fi
  echo "btfc output equals $(basename "$ref") ($(tail -1 "$tmp/diff.txt"))"
else
  echo "no pahole 1.31 reference for this input and flags: only -j byte-identity checked"
fi
if [ -n "$other" ]; then
  # shellcheck disable=SC2086
  "$other" encode -J $flags -j1 --btf_encode_detached="$tmp/other.btf" "$input"
  if cmp -s "$first" "$tmp/other.btf"; then echo "-B $other: the same bytes"
  else echo "-B $other: other bytes than btfc's (timed all the same)"; fi
fi

# measure TOOL J -> "wall cpu rss_kb"
measure() {
  local cmd=("$btfc" encode)
  [ "$1" = pahole ] && cmd=("$pahole")
  [ "$1" = btfc-B ] && cmd=("$other" encode)
  # shellcheck disable=SC2206
  cmd+=(-J $flags -j"$2" --btf_encode_detached="$tmp/out-$1.btf" "$input")
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "${cmd[@]}" >/dev/null 2>"$tmp/err" \
    || { cat "$tmp/err" >&2; echo "FAIL: $1 -j$2 failed" >&2; exit 1; }
  awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$tmp/time"
}

printf '\n%s: %s, %s cores, %s runs each, flags: %s\n' "$(basename "$input")" "$("$pahole" --version)" "$(nproc)" "$runs" "$flags"
printf '%-4s %-8s %10s %10s %12s\n' "-j" "tool" "wall (s)" "cpu (s)" "peak RSS MB"
for j in $jobs_list; do
  tools="pahole btfc"
  [ -n "$other" ] && tools="$tools btfc-B"
  for tool in ${tools#pahole }; do : > "$tmp/$tool.txt" && : > "$tmp/pahole-before-$tool.txt"; done
  # Every btfc run comes right after a pahole run, in the same state: on
  # a virtual machine a run gets the memory the run before it freed, and
  # the ~450 MB pahole frees come back from the host cold (a btfc run
  # right after pahole takes about 0.1 s more than one after btfc). Turning
  # one order of three tools had put btfc after pahole in 5 of 7 runs and
  # -B in 2, which alone made the median of whichever came second in the
  # list 0.1 s faster. So each round is pahole, btfc (and with -B pahole
  # again, then the other build): pahole runs twice as often with -B.
  for ((r = 0; r < runs; r++)); do
    for tool in ${tools#pahole }; do
      measure pahole "$j" >> "$tmp/pahole-before-$tool.txt"
      measure "$tool" "$j" >> "$tmp/$tool.txt"
    done
  done
  cat "$tmp"/pahole-before-*.txt > "$tmp/pahole.txt"  # every pahole run
  for tool in $tools; do
    read -r w c m <<< "$(medians "$tmp/$tool.txt")"
    printf '%-4s %-8s %10.2f %10.2f %12.0f\n' "$j" "$tool" "$w" "$c" "$(awk -v m="$m" 'BEGIN {print m / 1024}')"
    eval "${tool//-/_}_w=$w ${tool//-/_}_c=$c ${tool//-/_}_m=$m"
  done
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print (b > 0) ? a / b : 0}'; }
  # The *_w, *_c and *_m values come from the eval above.
  # shellcheck disable=SC2154
  printf '%-4s %-8s %9.1fx %9.1fx %11.1fx\n' "$j" "ratio" "$(ratio "$pahole_w" "$btfc_w")" \
    "$(ratio "$pahole_c" "$btfc_c")" "$(ratio "$pahole_m" "$btfc_m")"
  # shellcheck disable=SC2154
  [ -z "$other" ] || printf '%-4s %-8s %9.1fx %9.1fx %11.1fx\n' "$j" "ratio-B" "$(ratio "$pahole_w" "$btfc_B_w")" \
    "$(ratio "$pahole_c" "$btfc_B_c")" "$(ratio "$pahole_m" "$btfc_B_m")"
  # Each round's own wall ratio, the pahole run against the run right
  # after it: a drift of the host's speed, which moves both runs of a
  # round alike, cancels out (on some hosts pahole's median moves by a
  # fifth between two runs of this script an hour apart).
  for tool in ${tools#pahole }; do
    paste -d' ' "$tmp/pahole-before-$tool.txt" "$tmp/$tool.txt" | awk '{print ($4 > 0) ? $1 / $4 : 0}' | sort -g \
      > "$tmp/paired.txt"
    printf '%-4s %-8s %9.1fx  (rounds %.1fx to %.1fx)\n' "$j" "paired${tool#btfc}" "$(median < "$tmp/paired.txt")" \
      "$(head -n1 "$tmp/paired.txt")" "$(tail -n1 "$tmp/paired.txt")"
  done
done
echo "(ratio = pahole / btfc: higher is better for btfc; ratio-B: the same for -B;"
echo " paired = the median of each round's pahole / btfc wall, and its range)"
# Which page size btfc's fresh memory took right after pahole, and why
# (base/allocator.h: it depends on the host; "no probe" for a small input).
j=${jobs_list##* }
measure pahole "$j" > /dev/null
# shellcheck disable=SC2086
"$btfc" encode --stats -J $flags -j"$j" --btf_encode_detached="$tmp/stats.btf" "$input" 2>&1 >/dev/null \
  | sed -n 's/^pages  *\(.*\)/btfc -j'"$j"' after pahole: \1/p'
