#!/usr/bin/env bash
# The training run of a profile-guided build (scripts/build.sh, BTFC_PGO=1):
# an instrumented btfc encodes what the benchmarks time, from the test
# corpus: vmlinux as Linux 6.1's build asks, then its nine modules split on
# that BTF, in one batch and one by one; and vmlinux once more with the
# features newer kernels ask for (--btf_features=default).
#
#   scripts/pgo-train.sh BTFC CORPUS_DIR
set -euo pipefail
btfc=$1
corpus=$2
flags=(--btf_gen_floats --lang_exclude=rust)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$btfc" encode -J "${flags[@]}" -j2 --btf_encode_detached="$tmp/vmlinux.btf" "$corpus/vmlinux"
"$btfc" encode -J "${flags[@]}" -j2 --btf_base="$tmp/vmlinux.btf" --output-dir="$tmp" "$corpus"/mods/*.ko
modules=("$corpus"/mods/*.ko)
for ko in "${modules[@]}"; do
  "$btfc" encode -J "${flags[@]}" -j2 --btf_base="$tmp/vmlinux.btf" --btf_encode_detached="$tmp/one.btf" "$ko"
done
"$btfc" encode -J --btf_features=default --lang_exclude=rust -j2 --btf_encode_detached="$tmp/features.btf" "$corpus/vmlinux"
echo "pgo-train: vmlinux twice and ${#modules[@]} modules encoded in ${SECONDS} s"
