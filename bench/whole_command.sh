#!/usr/bin/env bash
# Whole-command times of two builds side by side, in one run on one machine:
# `swsearch search` with the 20 benchmark queries against the Swiss-Prot-like
# database (GPU), alternating the builds, three runs each; and, when both
# builds have makedb, the database build. A database of the older format is
# used when the older build cannot read the newer one.
# Usage: bench/whole_command.sh BUILD_A BUILD_B   (A: before, B: after)
. "$(dirname "$0")/lib.sh"
a=$1 b=$2
synthdb protein --plant "$queries" > "$work/sp.fa"

echo "== makedb, Swiss-Prot-like FASTA ($(du -m "$work/sp.fa" | cut -f1) MB): wall s, peak RSS kB"
for round in 1 2; do
  for build in "$a" "$b"; do
    rm -rf "$work/db-$round" && mkdir -p "$work/db-$round"
    printf '%-40s ' "$build"
    /usr/bin/time -f '%e s  %M kB' "$build/tools/makedb/makedb" -q "$work/sp.fa" "$work/db-$round/sp" 2>&1
  done
done
# The database of build A (the older format, if they differ) serves both.
"$a/tools/makedb/makedb" -q "$work/sp.fa" "$work/sp"
rm "$work/sp.fa"

echo "== swsearch search -q queries20.fasta -d sp -o hits.tsv: wall s, peak RSS kB"
for round in 1 2 3; do
  for build in "$a" "$b"; do
    printf '%-40s ' "$build"
    /usr/bin/time -f '%e s  %M kB' "$(swsearch_of "$build")" search -q "$queries" -d "$work/sp" \
      -o "$work/hits-$(basename "$build").tsv" 2>&1 | tail -1
  done
done
if cmp -s "$work/hits-$(basename "$a").tsv" "$work/hits-$(basename "$b").tsv"; then
  echo "hits identical"
else
  echo "HITS DIFFER"; exit 1
fi
