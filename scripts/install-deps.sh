#!/usr/bin/env bash
# Installs the Debian 12 packages btfc builds with and tests against.
# Needs root (or sudo); safe to run again.
set -euo pipefail
packages=(
  # build
  cmake ninja-build g++ clang-14 lld-14 llvm-14 pkg-config
  libtbb-dev zlib1g-dev libzstd-dev liblzma-dev libxxhash-dev libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # oracles and tools the tests and benchmarks compare with
  libbpf-dev bpftool dwarves elfutils zstd xz-utils binutils-multiarch gcc-multilib libclang-rt-14-dev
  clang llvm  # unversioned clang (cross-target fixtures), llvm-objcopy
  dwz  # dwz'd fixtures: DW_FORM_GNU_ref_alt, partial units
  python3  # bench/scaling.py and its tests
)
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
missing=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null | awk '!/ installed$/ {print $1}' || true)
if [ -n "$missing" ] || ! dpkg-query -W "${packages[@]}" >/dev/null 2>&1; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
