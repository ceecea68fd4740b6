#!/usr/bin/env bash
# A kernel's whole module tree: btfc's batch mode against pahole run once per
# module, both split on the same vmlinux BTF, with the same parallelism.
#
#   bench/modules.sh [-j N] [-s SAMPLE] [-n RUNS] [-F] [-o DIR] [MODDIR]
#
# MODDIR defaults to Debian's 6.1.0-57 debug modules (the kernel build of the
# corpus vmlinux). The base is what btfc encodes from the corpus vmlinux with
# the legacy flags, first checked against pahole 1.31's reference.
#
# 1. btfc encodes the WHOLE tree in one process (`btfc encode -jN
#    --output-dir DIR MODDIR`); every module must encode without error.
# 2. On a sample (every k-th module in path order so that SAMPLE modules
#    are taken, plus amdgpu.ko, the largest) btfc's batch mode and pahole
#    (`xargs -PN pahole -J ...`, one process per module) run alternately,
#    RUNS times each (default 3); the script prints the median wall, CPU
#    and peak RSS (pahole: the largest single process) and the ratio. -F times pahole on the whole tree instead
#    (slow: about 25 minutes per run for pahole 1.24 on 2 cores; use -n 1).
#    btfc also runs once per module the way pahole does (`xargs -PN btfc
#    encode ... MODULE`), which is how a kernel build calls it (`make
#    PAHOLE=...`): every module reads and indexes the base again; and
#    once more so with the base cache (BTFC_BASE_CACHE, emptied before
#    each run: the first module stores the base's indexes, the others
#    read them).
#    Then the running kernel loads every module's BTF of that run (glued
#    onto the base; build/bench/bench_kernel_load, as root): a refusal
#    fails the script, a kernel that lets no BTF in says so and goes on.
# 3. Every sampled module's two outputs are compared with `btfc diff`;
#    bench/classify-diff.py then sorts the differences into kinds. btfc's
#    batch and one-per-module outputs (with and without the cache) must
#    have the same bytes.
#
# PAHOLE names the pahole (default Debian's, 1.24); BASE_BTF=F reuses a base
# btfc encoded before (it is still checked against the reference). Outputs stay in DIR
# (default a temporary folder, removed at exit) when -o is given.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
btfc=${BTFC:-$root/build/btfc}
pahole=${PAHOLE:-pahole}
jobs=2
sample=400
runs=3
full_pahole=0
keep=""
flags="--btf_gen_floats --lang_exclude=rust"
while getopts "j:s:n:Fo:" opt; do
  case $opt in
    j) jobs=$OPTARG ;;
    s) sample=$OPTARG ;;
    n) runs=$OPTARG ;;
    F) full_pahole=1 ;;
    o) keep=$OPTARG ;;
    *) echo "usage: $0 [-j N] [-s SAMPLE] [-n RUNS] [-F] [-o DIR] [MODDIR]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
moddir=${1:-/var/tmp/kernel-dbg/root/usr/lib/debug/lib/modules/6.1.0-57-amd64}
corpus=$(BTFC_CORPUS_DIR=${BTFC_CORPUS_DIR:-} "$root/scripts/unpack-corpus.sh")
shared=$(shared_dir "$root")
ref=$shared/reference/pahole-1.31/vmlinux.legacy-flags.btf
if [ -n "$keep" ]; then
  tmp=$keep
  rm -rf "$tmp"
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

# shellcheck disable=SC2086
echo "== base: btfc encode $flags $corpus/vmlinux"
[ -f "${BASE_BTF:-}" ] && cp "$BASE_BTF" "$tmp/vmlinux.btf" || "$btfc" encode -J $flags -j"$jobs" --btf_encode_detached="$tmp/vmlinux.btf" "$corpus/vmlinux"
"$btfc" diff "$tmp/vmlinux.btf" "$ref" > "$tmp/base-diff.txt" \
  || { tail -20 "$tmp/base-diff.txt" >&2; echo "FAIL: base differs from pahole 1.31's" >&2; exit 1; }
echo "base equals $(basename "$ref")"

find "$moddir" -name '*.ko' -type f | sort > "$tmp/all.txt"
total=$(wc -l < "$tmp/all.txt")
step=$(( total / sample ))
[ "$step" -ge 1 ] || step=1
{ awk -v s="$step" 'NR % s == 1 || s == 1' "$tmp/all.txt"; grep '/amdgpu\.ko$' "$tmp/all.txt" || true; } | sort -u > "$tmp/sample.txt"
nsample=$(wc -l < "$tmp/sample.txt")

# time_cmd OUT_FILE CMD... -> "wall cpu maxrss_kb" of CMD (all its children)
time_cmd() {
  local out=$1
  shift
  # shell functions run through bash (exported below); time covers children
  /usr/bin/time -f "%e %U %S %M" -o "$out.time" bash -c '"$@"' _ "$@" > "$out.log" 2>&1 \
    || { tail -20 "$out.log" >&2; echo "FAIL: $*" >&2; return 1; }
  awk '{printf "%s %.1f %s\n", $1, $2 + $3, $4}' "$out.time"
}

# shellcheck disable=SC2086
btfc_batch() { "$btfc" encode -J $flags -j"$jobs" --btf_base="$tmp/vmlinux.btf" --output-dir="$1" "${@:2}"; }
pahole_one() {
  local ko=$1 out=$2
  local name
  name=$(basename "$ko" .ko)
  # shellcheck disable=SC2086
  "$pahole" -J $flags --btf_base="$tmp/vmlinux.btf" --btf_encode_detached="$out/$name.btf" "$ko"
}
btfc_one() {
  local ko=$1 out=$2
  local name
  name=$(basename "$ko" .ko)
  # shellcheck disable=SC2086
  "$btfc" encode -J $flags -j1 --btf_base="$tmp/vmlinux.btf" --btf_encode_detached="$out/$name.btf" "$ko"
}
btfc_one_cached() { BTFC_BASE_CACHE="$tmp/base-cache" btfc_one "$@"; }
export -f pahole_one btfc_one btfc_one_cached btfc_batch
export pahole btfc flags tmp jobs

per_module() {  # ONE_FN LIST OUTDIR: ONE_FN (pahole_one, btfc_one...) once per module, -P jobs at a time
  mkdir -p "$3"
  xargs -P"$jobs" -I{} bash -c '"$0" "$1" "$2"' "$1" {} "$3" < "$2"
}
export -f per_module

report() {  # NAME "wall cpu rss"
  read -r w c m <<< "$2"
  printf '%-26s %10.1f %10.1f %12.0f\n' "$1" "$w" "$c" "$(awk -v m="$m" 'BEGIN {print m / 1024}')"
}

printf '\n%s modules in %s; %s cores; -j%s / xargs -P%s; %s; flags: %s\n' "$total" "$moddir" "$(nproc)" \
  "$jobs" "$jobs" "$("$pahole" --version)" "$flags"
printf '%-26s %10s %10s %12s\n' "run" "wall (s)" "cpu (s)" "peak RSS MB"

# 1. The whole tree, btfc.
all=$(time_cmd "$tmp/btfc-all" btfc_batch "$tmp/btfc-all" "$moddir")
report "btfc batch, all $total" "$all"
mapfile -t outputs < <(find "$tmp/btfc-all" -name '*.btf' | sort)
echo "  ${#outputs[@]} of $total modules have BTF (the others have no types to encode)"
loader=$root/build/bench/bench_kernel_load
if [ -x "$loader" ]; then
  status=0
  "$loader" "$tmp/vmlinux.btf" "${outputs[@]}" > "$tmp/kernel-load.txt" || status=$?
  tail -1 "$tmp/kernel-load.txt" | sed 's/^/  /'
  case $status in
    0 | 77) ;;  # 77: the loader said loudly that nothing was checked
    *) head -20 "$tmp/kernel-load.txt" >&2; echo "FAIL: the kernel refused some modules' BTF" >&2; exit 1 ;;
  esac
else
  echo "  *** $loader not built: the kernel did NOT check the modules' BTF ***"
fi

# 2. The sample (or the whole tree with -F), alternating.
if [ "$full_pahole" = 1 ]; then
  cp "$tmp/all.txt" "$tmp/sample.txt"
  nsample=$total
fi
: > "$tmp/btfc-sample.runs"
: > "$tmp/btfc-one-sample.runs"
: > "$tmp/btfc-cached-sample.runs"
: > "$tmp/pahole-sample.runs"
for ((r = 0; r < runs; r++)); do
  rm -rf "$tmp/btfc-sample" "$tmp/btfc-one-sample" "$tmp/btfc-cached-sample" "$tmp/pahole-sample" "$tmp/base-cache"
  time_cmd "$tmp/pahole-sample" per_module pahole_one "$tmp/sample.txt" "$tmp/pahole-sample" >> "$tmp/pahole-sample.runs"
  # shellcheck disable=SC2046  # one argument per sampled module (paths without spaces)
  time_cmd "$tmp/btfc-sample" btfc_batch "$tmp/btfc-sample" $(cat "$tmp/sample.txt") >> "$tmp/btfc-sample.runs"
  time_cmd "$tmp/btfc-one-sample" per_module btfc_one "$tmp/sample.txt" "$tmp/btfc-one-sample" >> "$tmp/btfc-one-sample.runs"
  time_cmd "$tmp/btfc-cached-sample" per_module btfc_one_cached "$tmp/sample.txt" "$tmp/btfc-cached-sample" \
    >> "$tmp/btfc-cached-sample.runs"
done
b=$(medians "$tmp/btfc-sample.runs")
o=$(medians "$tmp/btfc-one-sample.runs")
cached=$(medians "$tmp/btfc-cached-sample.runs")
p=$(medians "$tmp/pahole-sample.runs")
ratio() {  # "wall cpu rss" of pahole, of btfc -> the two ratios
  printf '%9.1fx %9.1fx' "$(awk -v a="${1%% *}" -v b="${2%% *}" 'BEGIN {print a / b}')" \
    "$(awk -v a="$(cut -d' ' -f2 <<< "$1")" -v b="$(cut -d' ' -f2 <<< "$2")" 'BEGIN {print a / b}')"
}
report "btfc batch, $nsample (median of $runs)" "$b"
report "btfc xargs -P$jobs, $nsample" "$o"
report "  with the base cache" "$cached"
report "pahole xargs -P$jobs, $nsample" "$p"
printf '%-26s %s\n' "ratio pahole / btfc batch" "$(ratio "$p" "$b")"
printf '%-26s %s\n' "ratio pahole / btfc xargs" "$(ratio "$p" "$o")"
printf '%-26s %s\n' "  with the base cache" "$(ratio "$p" "$cached")"

# 3. Every sampled module: btfc (batch) vs pahole.
echo
echo "== btfc diff, btfc vs $("$pahole" --version), $nsample modules"
same=0 differ=0 missing=0
mkdir -p "$tmp/diffs"
while read -r ko; do
  name=$(basename "$ko" .ko)
  a=$tmp/btfc-sample/$name.btf
  b=$tmp/pahole-sample/$name.btf
  # The batch output must be the bytes of a one-module run (or both none).
  for one in "$tmp/btfc-one-sample/$name.btf" "$tmp/btfc-cached-sample/$name.btf"; do
    if [ -f "$a" ] || [ -f "$one" ]; then
      cmp -s "$a" "$one" || { echo "FAIL: $name: btfc's batch output differs from its one-module run $one" >&2; exit 1; }
    fi
  done
  if [ ! -f "$a" ] || [ ! -f "$b" ]; then
    [ -f "$a" ] || [ -f "$b" ] && { missing=$((missing + 1)); echo "$name: only one tool wrote BTF"; }
    continue
  fi
  # shellcheck disable=SC2015
  "$btfc" diff "$a" "$b" --base "$tmp/vmlinux.btf" > "$tmp/diffs/$name.txt" && same=$((same + 1)) || differ=$((differ + 1))
done < "$tmp/sample.txt"
echo "equivalent: $same, different: $differ, one side missing: $missing"
echo "(reports in $tmp/diffs; bench/classify-diff.py $tmp/diffs $moddir sorts them into kinds)"
