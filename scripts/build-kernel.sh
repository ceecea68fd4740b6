#!/usr/bin/env bash
# Builds a small Linux 6.1 (Debian's linux-source-6.1; x86-64 unless KARCH) and a few
# modules whose BTF is made by btfc in pahole mode, then proves that BTF:
# bpftool dumps it, the running kernel loads vmlinux's through libbpf, and
# `btfc diff` compares each with what Debian's pahole 1.24 makes of the
# same pre-BTF vmlinux and modules.
#
# The kernel build itself is the real test: link-vmlinux.sh calls
# `$PAHOLE --version`, then `$PAHOLE -J <flags> .tmp_vmlinux.btf` and
# expects .BTF inside that file, objcopies it out and runs resolve_btfids
# on the result; Makefile.modfinal runs `$PAHOLE -J <flags> --btf_base
# vmlinux M.ko` on each module, which must add .BTF to the .ko in place
# (split BTF on vmlinux's), then resolve_btfids on it. btfc answers as
# pahole only when argv[0] is `pahole`, so PAHOLE is a symlink named
# pahole next to the btfc binary.
#
# Config: tinyconfig (small and quick on 2 cores; BASECONFIG=defconfig
# starts from the architecture's defconfig instead: SMP, per-cpu variables,
# networking and file systems, in another tree) plus 64BIT, BPF_SYSCALL,
# DEBUG_KERNEL, DEBUG_INFO_DWARF5, DEBUG_INFO_BTF, MODULES and
# DEBUG_INFO_BTF_MODULES, and as modules: configfs (several units in one
# module), binfmt_misc and the crc7/crc8/crc-itu-t libraries; each is
# checked in the final .config, because olddefconfig silently drops an
# option whose dependencies are unmet (e.g. a PAHOLE_VERSION it finds too
# old). The split BTF of a module built here is not loaded into the
# running kernel: the kernel takes split BTF only on its own vmlinux's.
#
# Idempotent: the source is extracted once, the object tree is reused
# (make only redoes what changed), and vmlinux is relinked when btfc is
# newer than it so the BTF always comes from the current btfc.
#
# LLVM=1 builds with clang and ld.lld instead (the kernel's own switch),
# in its own object tree: clang's DWARF 5, and ld.lld's .tmp_vmlinux.btf,
# which keeps the linker script's .BTF as an empty allocated section for
# pahole to fill (GNU ld drops it, so pahole adds one; btfc turns the
# filled placeholder into such a non-loaded section). LLVM=1 LTO=1 adds
# CONFIG_LTO_CLANG_THIN (another tree again): units refer to each other's
# types (DW_FORM_ref_addr), and static functions get .llvm.<hash> names.
#
# Environment: BTFC_KBUILD_DIR (default /var/tmp/btfc-kbuild), BUILD_DIR
# (btfc's build folder, default build), JOBS (default nproc), LLVM, LTO,
# DWARF (5, the default, or 4: CONFIG_DEBUG_INFO_DWARF4, another tree),
# KARCH (another tree each; BTF is the same on any architecture, so the
# running kernel still checks vmlinux's): x86_64, the default; arm64, which
# needs LLVM=1 (clang cross-compiles): aarch64 relocations in the modules'
# debug sections, AArch64's parameter registers; riscv, with LLVM=1 too:
# RISC-V's paired ADD/SUB and SET6/SUB6 relocations in the modules' debug
# sections (linker relaxation leaves code distances to the linker); i386 (gcc -m32 or clang):
# 32-bit ELF, 4-byte pointers and longs, and SHT_REL relocations (no
# addend in the entry: it is in the section's bytes) in the modules; s390
# (Debian's s390x-linux-gnu cross gcc, not LLVM): big-endian ELF, DWARF and
# BTF, s390 relocations and parameter registers; powerpc (Debian's
# powerpc64-linux-gnu cross gcc: a big-endian ppc64 kernel of the ELFv1
# ABI, whose function symbols are descriptors in .opd, not code addresses).
# COMPRESSED=1 adds DEBUG_INFO_COMPRESSED (another tree): every debug
# section SHF_COMPRESSED with zlib, in the modules under their relocations.
# Not part of CI: it needs root for apt-get and for loading BTF.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BTFC_KBUILD_DIR:-/var/tmp/btfc-kbuild}
build=$(realpath -m "${BUILD_DIR:-build}")
jobs=${JOBS:-$(nproc)}
tarball=/usr/src/linux-source-6.1.tar.xz
src=$work/linux-source-6.1
llvm=${LLVM:-}
lto=${LTO:-}
dwarf=${DWARF:-5}
karch=${KARCH:-x86_64}
baseconfig=${BASECONFIG:-tinyconfig}
compressed=${COMPRESSED:-}
cross_compile=""
case $karch in
  x86_64 | i386) ;;
  arm64 | riscv) [ -n "$llvm" ] || { echo "KARCH=$karch needs LLVM=1 (clang cross-compiles)" >&2; exit 2; } ;;
  s390) [ -z "$llvm" ] || { echo "KARCH=s390 builds with gcc (ld.lld 14 has no s390x), not LLVM=1" >&2; exit 2; }
        cross_compile=s390x-linux-gnu- ;;
  powerpc) [ -z "$llvm" ] || { echo "KARCH=powerpc builds with gcc, not LLVM=1" >&2; exit 2; }
        cross_compile=powerpc64-linux-gnu- ;;
  *) echo "KARCH must be x86_64, i386, arm64, riscv, s390 or powerpc, not '$karch'" >&2; exit 2 ;;
esac
# 64BIT: x86 and riscv choose it (ARCH=i386 defaults it off), powerpc
# derives it from PPC64 (its tinyconfig is 32-bit); arm64 and s390 are 64-bit.
bits_option=64BIT
arch_option=""
[ "$karch" != i386 ] || bits_option=
[ "$karch" != powerpc ] || arch_option=PPC64
[ -z "$compressed" ] || [ "$compressed" = 1 ] || { echo "COMPRESSED must be 1 or unset, not '$compressed'" >&2; exit 2; }
[ "$baseconfig" = tinyconfig ] || [ "$baseconfig" = defconfig ] ||
  { echo "BASECONFIG must be tinyconfig or defconfig, not '$baseconfig'" >&2; exit 2; }
[ "$dwarf" = 5 ] || [ "$dwarf" = 4 ] || { echo "DWARF must be 4 or 5, not '$dwarf'" >&2; exit 2; }
[ -z "$llvm" ] || [ "$llvm" = 1 ] || { echo "LLVM must be 1 or unset, not '$llvm'" >&2; exit 2; }
[ -z "$lto" ] || { [ "$lto" = 1 ] && [ -n "$llvm" ]; } || { echo "LTO=1 needs LLVM=1 (clang's ThinLTO)" >&2; exit 2; }
variant=${llvm:+-llvm}${lto:+-lto}
[ "$dwarf" = 5 ] || variant=$variant-dwarf$dwarf
[ "$karch" = x86_64 ] || variant=$variant-$karch
[ "$baseconfig" = tinyconfig ] || variant=$variant-$baseconfig
[ -z "$compressed" ] || variant=$variant-compressed
out=$work/out$variant  # kernel object tree (make O=), keeps the source pristine
cmp=$work/compare$variant  # the BTF comparison's files
log=$work/build$variant.log
t_start=$(date +%s)

say() { printf '\n== %s\n' "$*"; }
die() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }
since() { echo "$(( $(date +%s) - $1 ))s"; }
now_ms() { echo "$(( $(date +%s%N) / 1000000 ))"; }
# (grep reads all of readelf's output: grep -q would stop early, and the
# SIGPIPE readelf then gets fails the pipeline under pipefail.)
has_btf() { readelf -S -W "$1" | grep ' \.BTF ' >/dev/null; }

# 1. Packages: kernel build dependencies, plus the checks' tools.
packages=(
  linux-source-6.1 make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio
  python3 perl kmod xz-utils rsync
  libbpf-dev pkg-config bpftool dwarves binutils
)
[ -z "$llvm" ] || packages+=(clang lld llvm)
[ "$karch" != s390 ] || packages+=(gcc-s390x-linux-gnu binutils-s390x-linux-gnu)
[ "$karch" != powerpc ] || packages+=(gcc-powerpc64-linux-gnu binutils-powerpc64-linux-gnu)
if ! dpkg-query -W -f='${Status}\n' "${packages[@]}" 2>/dev/null | grep -qv ' installed$' &&
   dpkg-query -W "${packages[@]}" >/dev/null 2>&1; then
  say "packages: all ${#packages[@]} installed"
else
  say "packages: installing ${packages[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# 2. btfc, and the `pahole` name the kernel build calls it by.
if [ ! -x "$build/btfc" ]; then
  say "btfc: not built yet, building it (scripts/build.sh)"
  BUILD_DIR=$build scripts/build.sh
fi
pahole=$build/pahole
if [ -e "$pahole" ] || [ -L "$pahole" ]; then
  [ "$(readlink -f "$pahole")" = "$(readlink -f "$build/btfc")" ] ||
    die "$pahole exists and is not a link to $build/btfc"
else
  ln -s btfc "$pahole"
fi
say "btfc: $pahole -> $(readlink "$pahole"); '$pahole --version' says $("$pahole" --version)"

# 3. Source, extracted once (the marker is written only after tar succeeded).
mkdir -p "$work"
if [ ! -e "$src/.btfc-extracted" ]; then
  say "source: extracting $tarball into $work"
  rm -rf "$src"
  t=$(date +%s)
  tar -xJf "$tarball" -C "$work"
  touch "$src/.btfc-extracted"
  echo "extracted in $(since "$t")"
else
  say "source: $src (already extracted)"
fi

# PAHOLE goes to every make call: Kconfig reads PAHOLE_VERSION from it too.
kmake() { make -C "$src" O="$out" ARCH="$karch" PAHOLE="$pahole" ${llvm:+LLVM=1} ${cross_compile:+CROSS_COMPILE=$cross_compile} "$@"; }
# Built as modules: tristates that tinyconfig's options allow.
module_options=(CONFIGFS_FS BINFMT_MISC CRC7 CRC8 CRC_ITU_T)

# 4. Configuration.
say "config: $baseconfig + ${bits_option:-32-bit} BPF_SYSCALL DEBUG_KERNEL DEBUG_INFO_DWARF$dwarf DEBUG_INFO_BTF MODULES DEBUG_INFO_BTF_MODULES, modules ${module_options[*]}"
mkdir -p "$out"
kmake -s "$baseconfig" >"$work/config$variant.log" 2>&1 || { cat "$work/config$variant.log" >&2; die "make $baseconfig failed"; }
"$src/scripts/config" --file "$out/.config" \
  ${bits_option:+-e $bits_option} ${arch_option:+-e $arch_option} -e BPF_SYSCALL -e DEBUG_KERNEL \
  -d DEBUG_INFO_NONE -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF$((9 - dwarf)) \
  -e DEBUG_INFO_DWARF$dwarf -e DEBUG_INFO_BTF \
  -d DEBUG_INFO_REDUCED -d DEBUG_INFO_SPLIT \
  -e MODULES -e DEBUG_INFO_BTF_MODULES
[ -z "$lto" ] || "$src/scripts/config" --file "$out/.config" -d LTO_NONE -e LTO_CLANG_THIN
[ -z "$compressed" ] || "$src/scripts/config" --file "$out/.config" -e DEBUG_INFO_COMPRESSED
for opt in "${module_options[@]}"; do "$src/scripts/config" --file "$out/.config" -m "$opt"; done
kmake -s olddefconfig >>"$work/config$variant.log" 2>&1 || { cat "$work/config$variant.log" >&2; die "make olddefconfig failed"; }
[ "$karch" != i386 ] || ! grep -qx 'CONFIG_64BIT=y' "$out/.config" || die "KARCH=i386 but CONFIG_64BIT is set"
for opt in $bits_option $arch_option BPF_SYSCALL DEBUG_KERNEL DEBUG_INFO DEBUG_INFO_DWARF$dwarf DEBUG_INFO_BTF MODULES DEBUG_INFO_BTF_MODULES ${lto:+LTO_CLANG_THIN} ${compressed:+DEBUG_INFO_COMPRESSED}; do
  grep -qx "CONFIG_$opt=y" "$out/.config" ||
    die "CONFIG_$opt is not set in $out/.config after olddefconfig (unmet dependency?); PAHOLE_VERSION there: $(grep PAHOLE_VERSION "$out/.config" || echo none)"
done
for opt in "${module_options[@]}"; do
  grep -qx "CONFIG_$opt=m" "$out/.config" || die "CONFIG_$opt is not a module in $out/.config after olddefconfig"
done
echo "$(grep -E '^CONFIG_(64BIT|BPF_SYSCALL|DEBUG_INFO_DWARF[45]|DEBUG_INFO_BTF|DEBUG_INFO_BTF_MODULES|DEBUG_INFO_COMPRESSED|MODULES|PAHOLE_VERSION|LTO_CLANG_THIN)=' "$out/.config" | tr '\n' ' ')"

# 5. Build. btfc newer than vmlinux: relink, so link-vmlinux.sh reruns it.
if [ -e "$out/vmlinux" ] && [ "$build/btfc" -nt "$out/vmlinux" ]; then
  echo "btfc is newer than vmlinux: removing vmlinux to relink it"
  rm -f "$out/vmlinux"
fi
# (A module's .ko depends on vmlinux with DEBUG_INFO_BTF_MODULES: relinking
# vmlinux has modfinal make every .ko, and its BTF, again.)
say "build: make -j$jobs vmlinux modules PAHOLE=$pahole (log: $log)"
t=$(date +%s)
if ! kmake -j"$jobs" vmlinux modules >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  die "kernel build failed (full log: $log)"
fi
build_time=$(since "$t")
grep -E '^ *(BTF|BTFIDS|LD|PAHOLE) ' "$log" | grep -E 'vmlinux|BTF' | sed 's/^/  /' || true
echo "build done in $build_time"
[ -s "$out/vmlinux" ] || die "no vmlinux"

# 6. vmlinux carries DWARF $dwarf and a .BTF section.
say "check: vmlinux has DWARF $dwarf and .BTF"
# awk reads to the end: an early exit would SIGPIPE readelf and trip pipefail.
dwarf_version=$(readelf --debug-dump=info "$out/vmlinux" 2>/dev/null |
  awk '/^ *Version: / {v[$2]++} END {for (k in v) printf "%s%s", (n++ ? "," : ""), k}')
[ "$dwarf_version" = "$dwarf" ] || die "the units' DWARF versions are '$dwarf_version', not just $dwarf"
has_btf "$out/vmlinux" || die "vmlinux has no .BTF section"
if [ -n "$compressed" ]; then
  # readelf's flag C: SHF_COMPRESSED (zlib), which btfc inflated to read.
  for f in "$out/.tmp_vmlinux.btf" "$(find "$out" -name '*.ko' | sort | head -n 1)"; do
    readelf -S -W "$f" | awk '/ \.debug_info / && /[[:space:]][A-Za-z]*C[A-Za-z]*[[:space:]]+[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9]+$/ {c = 1} END {exit !c}' ||
      die "$f: .debug_info is not compressed (SHF_COMPRESSED) with DEBUG_INFO_COMPRESSED"
  done
  echo "DEBUG_INFO_COMPRESSED: .tmp_vmlinux.btf's and the modules' .debug_info are SHF_COMPRESSED (zlib)"
fi
mkdir -p "$cmp"
objcopy --dump-section .BTF="$cmp/vmlinux.btf" "$out/vmlinux" "$cmp/objcopy.junk" && rm -f "$cmp/objcopy.junk"
echo "vmlinux: $(stat -c %s "$out/vmlinux") bytes, DWARF $dwarf_version, .BTF $(stat -c %s "$cmp/vmlinux.btf") bytes"

# 7. bpftool reads it.
say "check: bpftool btf dump file vmlinux"
bpftool btf dump file "$out/vmlinux" >"$cmp/vmlinux.bpftool.txt" || die "bpftool cannot dump vmlinux's BTF"
head -n 8 "$cmp/vmlinux.bpftool.txt"
ntypes=$(grep -c '^\[' "$cmp/vmlinux.bpftool.txt")
echo "... $ntypes types"
bpftool btf dump file "$out/vmlinux" format c >"$cmp/vmlinux.h" || die "bpftool cannot dump vmlinux's BTF as C"
if gcc -fsyntax-only -x c "$cmp/vmlinux.h" 2>"$cmp/vmlinux.h.log"; then
  echo "bpftool's vmlinux.h ($(wc -l <"$cmp/vmlinux.h") lines) compiles with gcc"
else
  echo "WARNING: bpftool's vmlinux.h does not compile: $(head -n 3 "$cmp/vmlinux.h.log")"
fi

# 8. The running kernel loads it (libbpf: btf__parse + btf__load_into_kernel).
say "check: the running kernel loads vmlinux's .BTF through libbpf"
cat >"$cmp/btf-load.c" <<'EOF'
/* Loads the BTF of an ELF's .BTF (or a raw BTF file) into the running
 * kernel, which verifies every type; prints the kernel's BTF id. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 2; }
  struct btf *btf = btf__parse(argv[1], NULL);
  if (!btf) { fprintf(stderr, "libbpf cannot parse %s: %s\n", argv[1], strerror(errno)); return 1; }
  int err = btf__load_into_kernel(btf);
  if (err) { fprintf(stderr, "the kernel refused %s: %s\n", argv[1], strerror(-err)); return 1; }
  struct bpf_btf_info info;
  __u32 len = sizeof(info);
  memset(&info, 0, len);
  if (bpf_obj_get_info_by_fd(btf__fd(btf), &info, &len)) { perror("bpf_obj_get_info_by_fd"); return 1; }
  printf("loaded: %u types, kernel BTF id %u, %u bytes\n", btf__type_cnt(btf) - 1, info.id, info.btf_size);
  btf__free(btf);
  return 0;
}
EOF
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
gcc -O1 -Wall -o "$cmp/btf-load" "$cmp/btf-load.c" $(pkg-config --cflags --libs libbpf) ||
  die "cannot compile the libbpf loader"
# A 64-bit kernel sizes every pointer member as its own 8 bytes, so it
# refuses any 32-bit BTF ("Member exceeds struct_size" at the first
# pointer in a struct): for KARCH=i386 the refusal is expected, said
# loudly, and proven the kernel's by pahole 1.24's BTF of the same link
# being refused the same way (step 9).
kernel_refusal=""
if [ "$karch" != i386 ]; then
  "$cmp/btf-load" "$out/vmlinux" || die "the running kernel did not load vmlinux's BTF"
elif "$cmp/btf-load" "$out/vmlinux" >"$cmp/btf-load.log" 2>&1; then
  die "the running kernel loaded a 32-bit vmlinux BTF: this check's premise is wrong, revisit it"
else
  kernel_refusal=$(grep -o 'Member exceeds struct_size' "$cmp/btf-load.log" | head -n 1) ||
    { tail -n 5 "$cmp/btf-load.log" >&2; die "the running kernel refused vmlinux's 32-bit BTF for another reason than its pointer size"; }
  echo "SKIPPED: a 64-bit kernel cannot load 32-bit BTF (it refused it: $kernel_refusal at $(grep -B1 "$kernel_refusal" "$cmp/btf-load.log" | head -n 1 | sed 's/^[[:space:]]*//')); pahole 1.24's is checked for the same refusal below"
fi

# 9. btfc against pahole 1.24 on the same pre-BTF link. The build ran btfc
# with the flags pahole-flags.sh gives a pahole 1.31; run again so, btfc
# must give the bytes of vmlinux's .BTF. Then both tools with the flags it
# gives 1.24 (which lacks the 1.25 ones: --skip_encoding_btf_inconsistent_proto
# drops functions 1.24 has no rule for), each timed once, so the comparison
# is of the tools and not of the flags. Outputs in $cmp/btfc/ and
# $cmp/pahole-1.24/, btfc diff's reports in $cmp/diffs/ (sorted into kinds
# in step 11).
say "compare: btfc (pahole mode) and Debian's pahole $(pahole --version) on .tmp_vmlinux.btf"
tmp_vmlinux=$out/.tmp_vmlinux.btf
[ -e "$tmp_vmlinux" ] || die "$tmp_vmlinux is gone, cannot compare"
flags_btfc=$(PAHOLE=$pahole "$src/scripts/pahole-flags.sh")
flags_124=$(PAHOLE=$(command -v pahole) "$src/scripts/pahole-flags.sh")
# (pahole 1.24 opens its detached output without O_TRUNC: a longer file
# left by an earlier run would keep its tail after the new BTF.)
rm -rf "$cmp/btfc" "$cmp/pahole-1.24" "$cmp/diffs" "$cmp/ko"
mkdir -p "$cmp/btfc" "$cmp/pahole-1.24" "$cmp/diffs" "$cmp/ko"

# compare_with_pahole NAME FILE BUILT [BASE]: encodes FILE (split on BASE,
# the built vmlinux, if given) with the build's flags, which must give
# BUILT's bytes (the .BTF the build wrote) again; then with 1.24's flags
# by btfc and by pahole 1.24 into btfc/NAME.btf and pahole-1.24/NAME.btf,
# each timed once (ms_btfc, ms_124); btfc diff's report of the two goes to
# diffs/NAME.txt (diff_status: 0 equivalent, 1 they differ).
compare_with_pahole() {
  local name=$1 file=$2 built=$3 encode_base=() diff_base=() t
  if [ $# -gt 3 ]; then encode_base=(--btf_base "$4"); diff_base=(--base "$4"); fi
  "$pahole" -J $flags_btfc "${encode_base[@]}" --btf_encode_detached="$cmp/$name.again.btf" "$file"
  cmp -s "$cmp/$name.again.btf" "$built" ||
    die "$name: btfc -J $flags_btfc gives other bytes than the .BTF that the build wrote (the same input)"
  t=$(now_ms)
  "$pahole" -J $flags_124 "${encode_base[@]}" --btf_encode_detached="$cmp/btfc/$name.btf" "$file"
  ms_btfc=$(( $(now_ms) - t ))
  t=$(now_ms)
  pahole -J $flags_124 "${encode_base[@]}" --btf_encode_detached="$cmp/pahole-1.24/$name.btf" "$file"
  ms_124=$(( $(now_ms) - t ))
  diff_status=0
  "$build/btfc" diff "${diff_base[@]}" "$cmp/btfc/$name.btf" "$cmp/pahole-1.24/$name.btf" >"$cmp/diffs/$name.txt" ||
    diff_status=$?
  [ "$diff_status" -le 1 ] || die "btfc diff failed on $name (status $diff_status)"
}

compare_with_pahole vmlinux "$tmp_vmlinux" "$cmp/vmlinux.btf"
if [ -n "$kernel_refusal" ]; then
  ! "$cmp/btf-load" "$cmp/pahole-1.24/vmlinux.btf" >"$cmp/btf-load-pahole.log" 2>&1 &&
    grep -q "$kernel_refusal" "$cmp/btf-load-pahole.log" ||
    die "the running kernel does not refuse pahole 1.24's 32-bit vmlinux BTF as it refused btfc's ($kernel_refusal)"
  echo "the running kernel refuses pahole 1.24's 32-bit vmlinux BTF the same way: $kernel_refusal"
fi
echo "btfc -J $flags_btfc again: the bytes of vmlinux's .BTF"
echo "-J $flags_124: btfc ${ms_btfc} ms, $(stat -c %s "$cmp/btfc/vmlinux.btf") bytes; pahole 1.24 ${ms_124} ms, $(stat -c %s "$cmp/pahole-1.24/vmlinux.btf") bytes"
if [ "$diff_status" = 0 ]; then
  echo "btfc diff: equivalent"
else
  echo "btfc diff: they differ ($cmp/diffs/vmlinux.txt, $(grep -c '^  [A-Z]' "$cmp/diffs/vmlinux.txt") items)"
fi

# 10. Modules: Makefile.modfinal put split BTF into each .ko. bpftool reads
# it on vmlinux's. From a copy without .BTF (what modfinal had before its
# BTF step), btfc with the build's flags must give the .ko's bytes again;
# then btfc and pahole 1.24 encode it with 1.24's flags, and btfc diff
# compares the two on the built vmlinux's BTF as the base.
say "check: modules (Makefile.modfinal's BTF [M] step ran btfc)"
mapfile -t modules < <(find "$out" -name '*.ko' | sort)
[ "${#modules[@]}" -ge "${#module_options[@]}" ] ||
  die "${#modules[@]} modules built, expected at least ${#module_options[@]}: ${modules[*]}"
grep -E '^ *BTF \[M\] ' "$log" | sed 's/^/  /' || true
module_types=0
module_diffs=0
t_btfc_m=0
t_124_m=0
for ko in "${modules[@]}"; do
  name=$(basename "$ko" .ko)
  has_btf "$ko" || die "$ko has no .BTF section"
  bpftool -B "$out/vmlinux" btf dump file "$ko" >"$cmp/$name.bpftool.txt" ||
    die "bpftool cannot dump $ko's BTF on vmlinux's"
  n=$(grep -c '^\[' "$cmp/$name.bpftool.txt")
  module_types=$((module_types + n))
  objcopy --dump-section .BTF="$cmp/$name.btf" "$ko" "$cmp/objcopy.junk" && rm -f "$cmp/objcopy.junk"
  objcopy --remove-section=.BTF "$ko" "$cmp/ko/$name.ko"
  compare_with_pahole "$name" "$cmp/ko/$name.ko" "$cmp/$name.btf" "$out/vmlinux"
  t_btfc_m=$((t_btfc_m + ms_btfc))
  t_124_m=$((t_124_m + ms_124))
  if [ "$diff_status" = 0 ]; then
    echo "$name.ko: $n split BTF types, bpftool reads them, btfc gives them again; against pahole 1.24: equivalent"
  else
    module_diffs=$((module_diffs + 1))
    echo "$name.ko: $n split BTF types, bpftool reads them, btfc gives them again; against pahole 1.24: they differ ($cmp/diffs/$name.txt)"
  fi
done
echo "modules: ${#modules[@]}, $module_types split BTF types; -J $flags_124, one by one: btfc ${t_btfc_m} ms, pahole 1.24 ${t_124_m} ms in all; $module_diffs differ from pahole 1.24"

# 11. Every difference from pahole 1.24, vmlinux's and the modules', must be
# one that a known rule of pahole 1.31 (which btfc follows) explains.
say "check: the differences from pahole 1.24 (bench/classify-diff.py)"
python3 bench/classify-diff.py "$cmp/diffs" "$out" | tee "$cmp/classes.txt"
! grep -q unexplained "$cmp/classes.txt" || die "btfc's BTF differs from pahole 1.24's in a way no known rule explains"

say "RESULT: OK — vmlinux and ${#modules[@]} modules built with btfc as pahole (build $build_time, total $(since "$t_start")), $ntypes vmlinux BTF types read by bpftool and ${kernel_refusal:+not }loaded by the kernel, $module_types module types read by bpftool"
