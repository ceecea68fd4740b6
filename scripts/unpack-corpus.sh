#!/usr/bin/env bash
# Unpacks ../shared/corpus (vmlinux and nine modules) into a cache folder,
# once: $BTFC_CORPUS_DIR, default /var/tmp/btfc-corpus. Prints the folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="$root/../shared/corpus"
[ -d "$shared" ] || shared=/work/shared/corpus  # a clone elsewhere (/tmp/x): the workplace's
dir=${BTFC_CORPUS_DIR:-/var/tmp/btfc-corpus}
mkdir -p "$dir"
if [ ! -s "$dir/vmlinux" ]; then
  zstd -q -dc "$shared"/vmlinux-*.zst > "$dir/vmlinux.tmp"
  mv "$dir/vmlinux.tmp" "$dir/vmlinux"
fi
if [ ! -d "$dir/mods" ]; then
  rm -rf "$dir/mods.tmp" && mkdir -p "$dir/mods.tmp"
  zstd -q -dc "$shared"/modules-*.tar.zst | tar -x -C "$dir/mods.tmp"
  if [ -d "$dir/mods.tmp/mods" ]; then mv "$dir/mods.tmp/mods" "$dir/mods" && rmdir "$dir/mods.tmp"; else mv "$dir/mods.tmp" "$dir/mods"; fi
fi
echo "$dir"
