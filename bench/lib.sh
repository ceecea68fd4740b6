# shellcheck shell=bash
# What the bench scripts share; sourced by them, never run:
#   . "$(dirname "$0")/lib.sh"

# median: numbers on stdin, one a line -> their median (for an even count,
# the mean of the two in the middle). An empty input is an error.
median() {
  sort -g | awk '{a[NR] = $1}
    END {if (NR == 0) exit 1; print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# medians FILE: FILE of "wall cpu rss" lines, one a run -> "wall cpu rss",
# the median of each column on its own.
medians() {
  echo "$(cut -d' ' -f1 "$1" | median) $(cut -d' ' -f2 "$1" | median) $(cut -d' ' -f3 "$1" | median)"
}

# shared_dir ROOT: the workplace's shared folder (corpus, pahole 1.31's
# reference) beside the checkout ROOT, or /work/shared for a clone elsewhere.
shared_dir() {
  if [ -d "$1/../shared" ]; then echo "$1/../shared"; else echo /work/shared; fi
}
