#!/usr/bin/env bash
# One of Debian's kernels as packaged, any architecture: btfc against pahole
# on its vmlinux and module tree, checked before anything is timed.
#
#   bench/debian-kernel.sh [-a ARCH] [-k EVERY] [-n RUNS] [-F] [-w DIR] PACKAGE
#
#   bench/debian-kernel.sh -a s390x linux-image-6.1.0-50-s390x-dbg
#   bench/debian-kernel.sh -a i386 -k 20 linux-image-6.1.0-50-686-pae-dbg
#
# PACKAGE is a -dbg kernel package of Debian 12 (`apt-cache search
# 'linux-image-.*-dbg'`); ARCH its Debian architecture (default the
# host's: a foreign one is added with `dpkg --add-architecture`, as root).
# DIR (default /var/tmp/debian-kernel/PACKAGE) keeps the unpacked package
# (downloaded once) and every output. PAHOLE names the pahole (default
# Debian's, 1.24); both tools get Linux 6.1's flags
# (`--btf_gen_floats --lang_exclude=rust`).
#
# Checks (any failure stops the script, exit 1):
# 1. vmlinux: `btfc diff` against pahole's, every difference explained by
#    a rule of pahole 1.31 (bench/classify-diff.py prints no "unexplained");
#    `btfc btfdiff` clean.
# 2. The whole module tree in btfc's batch mode (timed, one run): every
#    module encoded.
# 3. pahole on a sample (every EVERY-th module in path order, default 10)
#    or with -F on the whole tree; each pair compared and classified as in
#    1; `btfc btfdiff` of every sampled module clean.
# 4. The running kernel loads vmlinux's BTF and every module's glued on it
#    (build/bench/bench_kernel_load, as root; other-endian BTF is swapped
#    by libbpf first). A 64-bit kernel refuses 32-bit BTF (it takes
#    pointers as 8 bytes): for a 32-bit target the script says so and
#    checks instead that libbpf reads every file (bench_kernel_load -p).
# Debian 12's pahole 1.24 reads mips64el modules wrongly: its libdw
# (elfutils 0.188) does not apply their relocations, so every name is the
# string at offset 0 ("DW_TAG_compile_unit ... expected got member"). Check
# 3's comparison then fails on pahole's side; name a newer pahole.
# Timings (on an idle machine, printed last): vmlinux with
# bench/compare.sh -n RUNS -j "1 2"; the sample in batch mode against
# `xargs -P2 pahole`, RUNS alternating runs each (default 3), medians.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/bench/lib.sh"
btfc=${BTFC:-$root/build/btfc}
load=${BTFC_KERNEL_LOAD:-$root/build/bench/bench_kernel_load}
pahole=${PAHOLE:-pahole}
arch=$(dpkg --print-architecture)
every=10
runs=3
full=0
work=""
while getopts "a:k:n:Fw:" opt; do
  case $opt in
    a) arch=$OPTARG ;;
    k) every=$OPTARG ;;
    n) runs=$OPTARG ;;
    F) full=1 ;;
    w) work=$OPTARG ;;
    *) echo "usage: $0 [-a ARCH] [-k EVERY] [-n RUNS] [-F] [-w DIR] PACKAGE" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-a ARCH] [-k EVERY] [-n RUNS] [-F] [-w DIR] PACKAGE" >&2; exit 2; }
package=$1
work=${work:-/var/tmp/debian-kernel/$package}
flags="--btf_gen_floats --lang_exclude=rust"
die() { echo "FAILED: $*" >&2; exit 1; }
say() { echo "== $*"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
for tool in "$btfc" "$load"; do [ -x "$tool" ] || die "$tool is not built (cmake --build build)"; done

# --- the package ---------------------------------------------------------
mkdir -p "$work"
if [ ! -d "$work/root" ]; then
  if [ "$arch" != "$(dpkg --print-architecture)" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    say "adding the architecture $arch"
    dpkg --add-architecture "$arch"
    apt-get update -qq || true  # a mirror mid-sync fails one index; the package's may still be there
  fi
  say "downloading $package:$arch"
  (cd "$work" && apt-get download "$package:$arch" >/dev/null)
  dpkg-deb -x "$work"/*.deb "$work/root.tmp" && mv "$work/root.tmp" "$work/root" && rm -f "$work"/*.deb
fi
vmlinux=$(ls "$work"/root/usr/lib/debug/boot/vmlinux-* | head -1)
moddir=$(ls -d "$work"/root/usr/lib/debug/lib/modules/* | head -1)
[ -f "$vmlinux" ] && [ -d "$moddir" ] || die "no vmlinux or modules in $package"
# classify-diff.py looks for vmlinux's symbols as MODDIR/vmlinux
[ -e "$moddir/vmlinux" ] || ln -s "$vmlinux" "$moddir/vmlinux"
find "$moddir" -name '*.ko' | sort > "$work/all.txt"
awk -v k="$every" 'NR % k == 0' "$work/all.txt" > "$work/sample.txt"
[ $full = 1 ] && compared="$work/all.txt" || compared="$work/sample.txt"
class=$(od -An -tx1 -j4 -N1 "$vmlinux" | tr -d ' ')  # EI_CLASS: 01 32-bit, 02 64-bit
echo "$package ($arch): $(basename "$vmlinux"), $(wc -l < "$work/all.txt") modules; $($pahole --version); $(nproc) cores"

# --- 1. vmlinux ------------------------------------------------------------
b="$work/btfc" p="$work/pahole" d="$work/diffs"
rm -rf "$b" "$p" "$d" && mkdir -p "$b/mods" "$p" "$d"
"$btfc" encode -j2 $flags --btf_encode_detached="$b/vmlinux.btf" "$vmlinux"
"$pahole" -J -j2 $flags --btf_encode_detached="$p/vmlinux.btf" "$vmlinux"
say "check: vmlinux against pahole, and btfdiff"
(cd "$work" && "$btfc" diff btfc/vmlinux.btf pahole/vmlinux.btf > diffs/vmlinux.txt) || true
"$btfc" btfdiff "$vmlinux" "$b/vmlinux.btf" > "$work/btfdiff-vmlinux.txt" || die "btfdiff of vmlinux: $work/btfdiff-vmlinux.txt"

# --- 2. the whole tree in batch mode ---------------------------------------
say "btfc, batch mode, the whole tree"
t=$(now)
"$btfc" encode -j2 $flags --btf_base="$b/vmlinux.btf" --output-dir="$b/mods" "$moddir"
echo "$(wc -l < "$work/all.txt") modules in $(since "$t") s"
[ "$(ls "$b/mods" | wc -l)" = "$(wc -l < "$work/all.txt")" ] || die "not every module was written"

# --- 3. pahole on the sample (or the tree), compared and classified ----------
say "pahole, once per module (xargs -P2) on $(wc -l < "$compared") modules; btfdiff of the sample"
mkdir -p "$p/mods"
t=$(now)
xargs -P2 -I{} sh -c "$pahole -J $flags --btf_base=$p/vmlinux.btf --btf_encode_detached=$p/mods/\$(basename {} .ko).btf {}" < "$compared"
echo "pahole: $(since "$t") s (not a measurement: see the timings below)"
while read -r ko; do
  n=$(basename "$ko" .ko)
  (cd "$work" && "$btfc" diff --base-a btfc/vmlinux.btf --base-b pahole/vmlinux.btf "btfc/mods/$n.btf" "pahole/mods/$n.btf" |
     sed 's#btfc/mods/#btfc/#; s#pahole/mods/#pahole/#' > "diffs/$n.txt") || true
done < "$compared"
while read -r ko; do
  n=$(basename "$ko" .ko)
  "$btfc" btfdiff --base "$b/vmlinux.btf" "$ko" "$b/mods/$n.btf" > "$work/btfdiff.txt" ||
    die "btfdiff of $n: $work/btfdiff.txt"
done < "$work/sample.txt"
python3 "$root/bench/classify-diff.py" "$d" "$moddir" | tee "$work/classes.txt"
! grep -q unexplained "$work/classes.txt" || die "btfc differs from pahole in a way no known rule explains"

# --- 4. the kernel -----------------------------------------------------------
say "check: the running kernel loads the BTF"
if [ "$class" = 01 ]; then
  echo "*** 32-bit target: a 64-bit kernel takes pointers as 8 bytes and refuses this BTF; NOT LOADED ***"
  echo "*** instead: libbpf reads vmlinux's BTF and every module's on it ***"
  "$load" -p "$b/vmlinux.btf" "$b"/mods/*.btf | tail -3 || die "libbpf cannot read some BTF"
else
  set +e
  "$load" "$b/vmlinux.btf" "$b"/mods/*.btf | tail -3
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" = 77 ] && echo "*** the kernel lets this process load no BTF (not root?): NOT CHECKED ***"
  [ "$status" = 0 ] || [ "$status" = 77 ] || die "the kernel refused some BTF"
fi

# --- timings ---------------------------------------------------------------
say "timing: vmlinux"
"$root/bench/compare.sh" -n "$runs" -j "1 2" "$vmlinux" | tail -9
say "timing: the sample of $(wc -l < "$work/sample.txt") modules, batch mode against xargs -P2 $pahole, $runs runs each"
tb=() tp=()
for r in $(seq "$runs"); do
  rm -rf "$work/sb" "$work/sp" && mkdir -p "$work/sb" "$work/sp"
  t=$(now)
  "$btfc" encode -j2 $flags --btf_base="$b/vmlinux.btf" --output-dir="$work/sb" $(cat "$work/sample.txt")
  tb+=("$(since "$t")")
  t=$(now)
  xargs -P2 -I{} sh -c "$pahole -J $flags --btf_base=$p/vmlinux.btf --btf_encode_detached=$work/sp/\$(basename {} .ko).btf {}" < "$work/sample.txt"
  tp+=("$(since "$t")")
done
for f in "$work"/sb/*.btf; do cmp -s "$f" "$b/mods/$(basename "$f")" || die "$f differs from the tree's"; done
mb=$(printf '%s\n' "${tb[@]}" | median) mp=$(printf '%s\n' "${tp[@]}" | median)
echo "btfc batch: ${tb[*]} s; pahole: ${tp[*]} s; medians $mb vs $mp s: $(echo "scale=1; $mp / $mb" | bc)x"
rm -rf "$work/sb" "$work/sp"
