#!/usr/bin/env bash
# Builds a small x86-64 Linux 6.1 (Debian's linux-source-6.1) whose BTF is
# made by btfc in pahole mode, then proves that BTF: bpftool dumps it, the
# running kernel loads it through libbpf, and `btfc diff` compares it with
# what Debian's pahole 1.24 makes of the same pre-BTF vmlinux.
#
# The kernel build itself is the real test: link-vmlinux.sh calls
# `$PAHOLE --version`, then `$PAHOLE -J <flags> .tmp_vmlinux.btf` and
# expects .BTF inside that file, objcopies it out and runs resolve_btfids
# on the result. btfc answers as pahole only when argv[0] is `pahole`, so
# PAHOLE is a symlink named pahole next to the btfc binary.
#
# Config: tinyconfig (small and quick on 2 cores) plus 64BIT, BPF_SYSCALL,
# DEBUG_KERNEL, DEBUG_INFO_DWARF5 and DEBUG_INFO_BTF; each is checked in
# the final .config, because olddefconfig silently drops an option whose
# dependencies are unmet (e.g. a PAHOLE_VERSION it finds too old).
#
# Idempotent: the source is extracted once, the object tree is reused
# (make only redoes what changed), and vmlinux is relinked when btfc is
# newer than it so the BTF always comes from the current btfc.
#
# Environment: BTFC_KBUILD_DIR (default /var/tmp/btfc-kbuild), BUILD_DIR
# (btfc's build folder, default build), JOBS (default nproc).
# Not part of CI: it needs root for apt-get and for loading BTF.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BTFC_KBUILD_DIR:-/var/tmp/btfc-kbuild}
build=$(realpath -m "${BUILD_DIR:-build}")
jobs=${JOBS:-$(nproc)}
tarball=/usr/src/linux-source-6.1.tar.xz
src=$work/linux-source-6.1
out=$work/out          # kernel object tree (make O=), keeps the source pristine
cmp=$work/compare      # the BTF comparison's files
t_start=$(date +%s)

say() { printf '\n== %s\n' "$*"; }
die() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }
since() { echo "$(( $(date +%s) - $1 ))s"; }

# 1. Packages: kernel build dependencies, plus the checks' tools.
packages=(
  linux-source-6.1 make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio
  python3 perl kmod xz-utils rsync
  libbpf-dev pkg-config bpftool dwarves binutils
)
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
kmake() { make -C "$src" O="$out" ARCH=x86_64 PAHOLE="$pahole" "$@"; }

# 4. Configuration.
say "config: tinyconfig + 64BIT BPF_SYSCALL DEBUG_KERNEL DEBUG_INFO_DWARF5 DEBUG_INFO_BTF"
mkdir -p "$out"
kmake -s tinyconfig >"$work/config.log" 2>&1 || { cat "$work/config.log" >&2; die "make tinyconfig failed"; }
"$src/scripts/config" --file "$out/.config" \
  -e 64BIT -e BPF_SYSCALL -e DEBUG_KERNEL \
  -d DEBUG_INFO_NONE -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 \
  -e DEBUG_INFO_DWARF5 -e DEBUG_INFO_BTF \
  -d DEBUG_INFO_REDUCED -d DEBUG_INFO_SPLIT
kmake -s olddefconfig >>"$work/config.log" 2>&1 || { cat "$work/config.log" >&2; die "make olddefconfig failed"; }
for opt in 64BIT BPF_SYSCALL DEBUG_KERNEL DEBUG_INFO DEBUG_INFO_DWARF5 DEBUG_INFO_BTF; do
  grep -qx "CONFIG_$opt=y" "$out/.config" ||
    die "CONFIG_$opt is not set in $out/.config after olddefconfig (unmet dependency?); PAHOLE_VERSION there: $(grep PAHOLE_VERSION "$out/.config" || echo none)"
done
echo "$(grep -E '^CONFIG_(64BIT|BPF_SYSCALL|DEBUG_INFO_DWARF5|DEBUG_INFO_BTF|PAHOLE_VERSION)=' "$out/.config" | tr '\n' ' ')"

# 5. Build. btfc newer than vmlinux: relink, so link-vmlinux.sh reruns it.
if [ -e "$out/vmlinux" ] && [ "$build/btfc" -nt "$out/vmlinux" ]; then
  echo "btfc is newer than vmlinux: removing vmlinux to relink it"
  rm -f "$out/vmlinux"
fi
say "build: make -j$jobs vmlinux PAHOLE=$pahole (log: $work/build.log)"
t=$(date +%s)
if ! kmake -j"$jobs" vmlinux >"$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  die "kernel build failed (full log: $work/build.log)"
fi
build_time=$(since "$t")
grep -E '^ *(BTF|BTFIDS|LD|PAHOLE) ' "$work/build.log" | grep -E 'vmlinux|BTF' | sed 's/^/  /' || true
echo "build done in $build_time"
[ -s "$out/vmlinux" ] || die "no vmlinux"

# 6. vmlinux carries DWARF 5 and a .BTF section.
say "check: vmlinux has DWARF 5 and .BTF"
# awk reads to the end: an early exit would SIGPIPE readelf and trip pipefail.
dwarf_version=$(readelf --debug-dump=info "$out/vmlinux" 2>/dev/null |
  awk '/^ *Version: / {v[$2]++} END {for (k in v) printf "%s%s", (n++ ? "," : ""), k}')
[ "$dwarf_version" = 5 ] || die "the units' DWARF versions are '$dwarf_version', not just 5"
readelf -S -W "$out/vmlinux" | grep -q ' \.BTF ' || die "vmlinux has no .BTF section"
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
"$cmp/btf-load" "$out/vmlinux" || die "the running kernel did not load vmlinux's BTF"

# 9. btfc against pahole 1.24 on the same pre-BTF link, each timed once;
# flags as pahole-flags.sh gives each version (1.24 lacks the 1.25 ones).
say "compare: btfc (pahole mode) and Debian's pahole $(pahole --version) on .tmp_vmlinux.btf"
tmp_vmlinux=$out/.tmp_vmlinux.btf
[ -e "$tmp_vmlinux" ] || die "$tmp_vmlinux is gone, cannot compare"
flags_btfc=$(PAHOLE=$pahole "$src/scripts/pahole-flags.sh")
flags_124=$(PAHOLE=$(command -v pahole) "$src/scripts/pahole-flags.sh")
t=$(date +%s%N)
"$pahole" -J $flags_btfc --btf_encode_detached="$cmp/btfc.btf" "$tmp_vmlinux"
t_btfc=$(( ($(date +%s%N) - t) / 1000000 ))
t=$(date +%s%N)
# pahole 1.24 opens its detached output without O_TRUNC: a longer file left
# by an earlier run keeps its tail after the new BTF.
rm -f "$cmp/pahole-1.24.btf"
pahole -J $flags_124 --btf_encode_detached="$cmp/pahole-1.24.btf" "$tmp_vmlinux"
t_124=$(( ($(date +%s%N) - t) / 1000000 ))
echo "btfc       -J $flags_btfc: ${t_btfc} ms, $(stat -c %s "$cmp/btfc.btf") bytes"
echo "pahole 1.24 -J $flags_124: ${t_124} ms, $(stat -c %s "$cmp/pahole-1.24.btf") bytes"
if cmp -s "$cmp/btfc.btf" "$cmp/vmlinux.btf"; then
  echo "btfc's detached output is byte-identical to vmlinux's .BTF (same input, same bytes)"
else
  echo "NOTE: btfc's detached output differs from vmlinux's .BTF (vmlinux's .BTF was made from the same file during the build)"
fi
diff_status=0
"$build/btfc" diff "$cmp/vmlinux.btf" "$cmp/pahole-1.24.btf" >"$cmp/diff-btfc-vs-pahole-1.24.txt" || diff_status=$?
[ "$diff_status" -le 1 ] || die "btfc diff failed (status $diff_status)"
if [ "$diff_status" = 0 ]; then
  echo "btfc diff: equivalent"
else
  echo "btfc diff: they differ ($(wc -l <"$cmp/diff-btfc-vs-pahole-1.24.txt") lines in $cmp/diff-btfc-vs-pahole-1.24.txt); first lines:"
  head -n 40 "$cmp/diff-btfc-vs-pahole-1.24.txt" | sed 's/^/  /'
fi

say "RESULT: OK — vmlinux built with btfc as pahole (build $build_time, total $(since "$t_start")), $ntypes BTF types, loaded by bpftool and the kernel"
