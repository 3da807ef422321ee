#!/usr/bin/env bash
# Merging two halves of real multiple alignments: SCOPe families of the
# ASTRAL 40% set (the largest with a family number, 20 domains or more),
# each aligned whole by Clustal Omega, its rows split into two halves
# (alternately), each half stripped of its gap-only columns; then the halves
# merged by swsearch profile, by `clustalo --profile1 --profile2` and by
# `mafft --merge`. Prints each merge's time and sum-of-pairs score
# (bench/sp_score.c, BLOSUM62 11/1; higher is better).
# Needs clustalo and mafft (Debian packages clustalo, mafft).
# PROFILE_ARGS: more options for swsearch profile (for example "-w henikoff").
# Usage: bench/profile_merge.sh BUILD [FAMILIES]   (default 8)
. "$(dirname "$0")/lib.sh"
families=${2:-8}
sp="$build/bench/sp_score"
for tool in clustalo mafft; do command -v $tool > /dev/null || { echo "$tool not found" >&2; exit 1; }; done
db=$(scope_fasta)
# Keeps the rows of an aligned FASTA file whose index (0-based) has parity
# $2, and drops the columns that are then gaps only.
half() {
  awk -v want="$2" '/^>/ { n++; keep = (n - 1) % 2 == want; if (keep) { name[++k] = $0; seq[k] = "" } next }
    keep { seq[k] = seq[k] $0 }
    END { len = length(seq[1]); for (c = 1; c <= len; c++) { used[c] = 0
            for (r = 1; r <= k; r++) if (substr(seq[r], c, 1) != "-") { used[c] = 1; break } }
          for (r = 1; r <= k; r++) { out = ""; for (c = 1; c <= len; c++) if (used[c]) out = out substr(seq[r], c, 1)
            print name[r]; print out } }' "$1"
}

printf '%-10s %5s %5s | %12s %8s | %12s %8s | %12s %8s\n' family rows cols "swsearch SP" "s" "clustalo SP" "s" "mafft SP" "s"
grep '^>' "$db" | awk '{ print $2 }' | grep -v '\.0$' | sort | uniq -c | sort -k1,1nr -k2 | awk '$1 >= 20 { print $2 }' |
  head -n "$families" | while read -r fam; do
  awk -v f="$fam" '/^>/ { keep = ($2 == f); if (keep) print $1; next } keep' "$db" > "$work/fam.fa"
  clustalo -i "$work/fam.fa" -o "$work/fam.afa" --outfmt=fa --force --threads=2 2> /dev/null
  half "$work/fam.afa" 0 > "$work/h1.afa"
  half "$work/fam.afa" 1 > "$work/h2.afa"
  rows=$(grep -c '^>' "$work/fam.afa")
  t=$(now); "$swsearch" profile "$work/h1.afa" "$work/h2.afa" -q ${PROFILE_ARGS:-} -o "$work/sw.afa"; ts=$(since "$t")
  t=$(now); clustalo --profile1 "$work/h1.afa" --profile2 "$work/h2.afa" -o "$work/co.afa" --outfmt=fa --force 2> /dev/null; tc=$(since "$t")
  cat "$work/h1.afa" "$work/h2.afa" > "$work/both.afa"
  n1=$(grep -c '^>' "$work/h1.afa")
  { seq -s ' ' 1 "$n1"; seq -s ' ' $((n1 + 1)) "$rows"; } > "$work/table"
  t=$(now); mafft --quiet --merge "$work/table" "$work/both.afa" > "$work/mf.afa" 2> /dev/null; tm=$(since "$t")
  for f in sw co mf; do
    [ "$(grep -c '^>' "$work/$f.afa")" = "$rows" ] || { echo "$fam: $f lost rows" >&2; exit 1; }
  done
  cols=$(awk '/^>/ { if (n++) exit; next } { l += length($0) } END { print l }' "$work/sw.afa")
  printf '%-10s %5s %5s | %12s %8s | %12s %8s | %12s %8s\n' "$fam" "$rows" "$cols" "$("$sp" "$work/sw.afa")" "$ts" \
    "$("$sp" "$work/co.afa")" "$tc" "$("$sp" "$work/mf.afa")" "$tm"
done
