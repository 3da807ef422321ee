#!/bin/sh
# The swsearch command as a user meets it: help, usage errors, clear errors
# for bad input with no partial output, ranking order, equal results across
# engines and thread counts, info and verify.
# Usage: test_search_cli.sh SWSEARCH MAKEDB DATA_DIR
set -u
swsearch=$1 makedb=$2 data=$3
tmp=$(mktemp -d)
# Calibrations of a GPU go to a cache of this test, not the user's.
export SWSEARCH_CACHE_DIR="$tmp/cache"
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../support/cli_checks.sh"

# A database with a duplicated sequence (ties) and one unrelated sequence.
cat > "$tmp/db.fa" <<'FA'
>s1 first copy
MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVV
>s2 unrelated
GGGGSSSSPPPPGGGGSSSSPPPP
>s3 second copy
MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVV
>s4 half
MKTAYIAKQRQISFVKSHFSRQLEERLGLIEV
FA
printf '>q1 query one\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVV\n' > "$tmp/q.fa"
"$makedb" -q "$tmp/db.fa" "$tmp/db" || { echo "FAIL: makedb"; exit 1; }

expect 0 "--help" -- "$swsearch" --help
out_has "search"
expect 0 "search --help" -- "$swsearch" search --help
out_has "--gap-open"
expect 0 "--version" -- "$swsearch" --version
out_has "database format 2"
expect 2 "no command" -- "$swsearch"
expect 2 "unknown command" -- "$swsearch" frobnicate
err_has "unknown command 'frobnicate'"
expect 2 "unknown option" -- "$swsearch" search --bogus -q "$tmp/q.fa" -d "$tmp/db"
err_has "unknown option '--bogus'"
expect 2 "missing -d" -- "$swsearch" search -q "$tmp/q.fa"
err_has "needs -q QUERIES (or --pssm, --msa) and -d DB"
expect 2 "bad --top" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --top 0
err_has "--top needs a whole number"
expect 2 "bad --gap-extend" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --gap-extend x
expect 2 "option without value" -- "$swsearch" search -q "$tmp/q.fa" -d
err_has "needs a value"

# Ranking: the exact copies first, ties in database order, then the half copy.
expect 0 "search" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt tsv -o "$tmp/hits.tsv"
self=$(awk -F'\t' 'NR == 2 { print $4 }' "$tmp/hits.tsv")
order=$(awk -F'\t' 'NR > 1 { printf "%s,", $5 }' "$tmp/hits.tsv")
[ "$order" = "s1,s3,s4,s2," ] && pass || fail "hit order $order, expected s1,s3,s4,s2,"
[ "$(awk -F'\t' 'NR == 3 { print $4 }' "$tmp/hits.tsv")" = "$self" ] && pass || fail "tie scores differ"
head -1 "$tmp/hits.tsv" | grep -q "^query_id	query_length	rank	score	subject_id	subject_length	subject_description$" && pass || fail "header line"
awk -F'\t' 'NR == 2 && $1 == "q1" && $2 == 70 && $3 == 1 && $6 == 70 && $7 == "first copy" { ok = 1 } END { exit !ok }' "$tmp/hits.tsv" && pass || fail "first line fields"
expect 0 "--top 1" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt tsv --top 1
[ "$(wc -l < "$tmp/out")" -eq 2 ] && pass || fail "--top 1 gives one hit"

# BLAST's tabular output is the default: 12 columns, the exact copies first
# with 100% identity over the whole query, E-values and bit scores as BLAST
# prints them.
expect 0 "default output" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -o "$tmp/hits6.tsv"
awk -F'\t' 'NF != 12 { bad = 1 } END { exit bad || NR == 0 }' "$tmp/hits6.tsv" && pass || fail "outfmt 6 has not 12 columns"
awk -F'\t' 'NR == 1 && $1 == "q1" && $2 == "s1" && $3 == "100.000" && $4 == 70 && $5 == 0 && $6 == 0 && $7 == 1 && $8 == 70 && $9 == 1 && $10 == 70 { ok = 1 } END { exit !ok }' "$tmp/hits6.tsv" && pass || fail "first outfmt 6 line: $(head -1 "$tmp/hits6.tsv")"
expect 0 "field list" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt "6 qseqid sseqid score evalue qlen slen nident positive gaps qcovhsp stitle"
awk -F'\t' 'NR == 1 && $2 == "s1" && $5 == 70 && $6 == 70 && $7 == 70 && $8 == 70 && $9 == 0 && $10 == 100 && $11 == "s1 first copy" { ok = 1 } END { exit !ok }' "$tmp/out" && pass || fail "field list line: $(head -1 "$tmp/out")"
expect 0 "outfmt 7" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 7
out_has "^# Query: q1 query one"
out_has "^# Fields: query acc.ver, subject acc.ver, % identity"
out_has "hits found"
expect 0 "outfmt 0" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 0
out_has "^Query= q1 query one"
out_has "^Sbjct  1 "
expect 0 "json" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt json
if command -v python3 > /dev/null; then
  python3 -c 'import json, sys
n = 0
for line in open(sys.argv[1]):
    json.loads(line); n += 1
sys.exit(n == 0)' "$tmp/out" && pass || fail "json output is not one JSON object per line"
fi
expect 0 "-e limits the hits" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -e 1e-5
[ "$(wc -l < "$tmp/out")" -eq 3 ] && pass || fail "-e 1e-5 kept $(wc -l < "$tmp/out") hits, expected the 3 related ones"
expect 2 "unknown field" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt "6 nosuchfield" -o "$tmp/nofield.tsv"
err_has "nosuchfield"
absent "$tmp/nofield.tsv"
expect 2 "unknown format" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 17
expect 2 "negative -e" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -e -1 -o "$tmp/neg.tsv"
err_has "-e/--evalue takes a positive number"
absent "$tmp/neg.tsv"
expect 2 "bad --stats" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --stats guess
expect 1 "--stats fit on 4 sequences" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --stats fit -o "$tmp/fit.tsv"
err_has "fit"
absent "$tmp/fit.tsv"
cp "$(dirname "$0")/../../matrices/BLOSUM62" "$tmp/my62"
expect 1 "--stats table with a matrix file" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --matrix "$tmp/my62" --stats table -o "$tmp/tab.tsv"
err_has "published statistics"
absent "$tmp/tab.tsv"
expect 1 "--stats table for untabulated gaps" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --gap-open 3 --gap-extend 3 --stats table
err_has "no statistics for BLOSUM62"

# Bad input: a clear message naming file and line, and no output file.
printf '>q1\nMKTAY\n>q2\nMK#AY\n' > "$tmp/bad.fa"
expect 1 "invalid residue" -- "$swsearch" search -q "$tmp/bad.fa" -d "$tmp/db" -o "$tmp/bad.tsv"
err_has "bad.fa:4: invalid residue '#' in sequence q2"
absent "$tmp/bad.tsv"
expect 1 "missing database" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/nodb" -o "$tmp/nodb.tsv"
err_has "nodb"
absent "$tmp/nodb.tsv"
expect 1 "missing query file" -- "$swsearch" search -q "$tmp/none.fa" -d "$tmp/db"
err_has "none.fa"
expect 1 "unknown matrix" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --matrix BLOSUM99
err_has "matrix 'BLOSUM99' not found"
expect 1 "output directory missing" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -o "$tmp/no/such/dir.tsv"
err_has "no/such/dir.tsv"
ls "$tmp" | grep -q '\.tmp\.' && fail "temporary output left behind" || pass

# Engines and thread counts agree on a real database.
# Without the zstd tool (GPU machines may lack it) makedb reads the whole
# compressed file itself.
if command -v zstd > /dev/null; then
  zstd -dcq "$data/swissprot_like_2500.fa.zst" | head -n 12000 > "$tmp/sp.fa"
  "$makedb" -q "$tmp/sp.fa" "$tmp/sp"
else
  "$makedb" -q "$data/swissprot_like_2500.fa.zst" "$tmp/sp"
fi
awk '/^>/ { n++ } n <= 3' "$data/queries20.fasta" > "$tmp/q3.fa"
expect 0 "simd 2 threads" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --threads 2 -o "$tmp/simd2.tsv"
expect 0 "simd 1 thread" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --threads 1 -o "$tmp/simd1.tsv"
expect 0 "reference engine" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --cpu-engine reference -o "$tmp/ref.tsv"
cmp -s "$tmp/simd1.tsv" "$tmp/simd2.tsv" && pass || fail "1 and 2 threads differ"
cmp -s "$tmp/simd2.tsv" "$tmp/ref.tsv" && pass || fail "simd and reference engines differ"
[ "$(wc -l < "$tmp/ref.tsv")" -gt 1000 ] && pass || fail "too few hits to compare"
expect 0 "other matrix" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --matrix PAM30 --gap-open 9 --gap-extend 1 --top 200 -e 1e9 -o "$tmp/pam.tsv"
expect 0 "other matrix, reference" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --matrix PAM30 --gap-open 9 --gap-extend 1 --top 200 -e 1e9 --cpu-engine reference -o "$tmp/pamref.tsv"
cmp -s "$tmp/pam.tsv" "$tmp/pamref.tsv" && pass || fail "PAM30 simd and reference differ"

# The GPU, where there is one, gives the CPU's results; where there is none,
# --device gpu says so and auto falls back to the CPU.
expect 2 "bad --device" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --device tpu
err_has "--device is 'auto', 'gpu' or 'cpu'"
# Fitted statistics (on 1,433 SCOPe domains): the GPU sends every score
# back, and the fit is the CPU's.
"$makedb" -q "$data/scope40_every10th.fa.zst" "$tmp/scope" > /dev/null
zstd -dcq "$data/scope40_every10th.fa.zst" 2> /dev/null | awk '/^>/ { n++ } n % 400 == 1' > "$tmp/qs.fa"
[ -s "$tmp/qs.fa" ] || printf '>d1dlwa_\nSLFEQLGGQAAVQAVTAQFYANIQADATVATFFNGIDMPNQTNKTAAFLCAALGGPNAWT\n' > "$tmp/qs.fa"
expect 0 "fit on the CPU" -- "$swsearch" search -q "$tmp/qs.fa" -d "$tmp/scope" --stats fit --device cpu --outfmt 7 -o "$tmp/fitcpu.tsv"
grep -q "^# Statistics: fitted" "$tmp/fitcpu.tsv" && pass || fail "format 7 does not name the fitted statistics"
"$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device gpu -o "$tmp/gpu.tsv" 2> "$tmp/err"
case $? in
  0) cmp -s "$tmp/gpu.tsv" "$tmp/simd2.tsv" && pass || fail "GPU and CPU results differ"
     expect 0 "fit on the GPU" -- "$swsearch" search -q "$tmp/qs.fa" -d "$tmp/scope" --stats fit --device gpu --outfmt 7 -o "$tmp/fitgpu.tsv"
     cmp -s "$tmp/fitgpu.tsv" "$tmp/fitcpu.tsv" && pass || fail "GPU and CPU fitted statistics differ" ;;
  1) err_has "GPU\|CUDA"; absent "$tmp/gpu.tsv"
     expect 0 "auto without GPU" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 -o "$tmp/auto.tsv"
     cmp -s "$tmp/auto.tsv" "$tmp/simd2.tsv" && pass || fail "auto fallback differs from CPU" ;;
  *) fail "--device gpu crashed or misbehaved"; cat "$tmp/err" ;;
esac

# The GPU's length threshold: a number from 1 or 'none'; on a GPU, every
# threshold gives the same hits.
expect 2 "bad --threshold" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --threshold 0
err_has "--threshold needs a whole number"
expect 2 "bad --threshold word" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --threshold some
for t in 1 300 none; do
  "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device gpu --threshold $t -o "$tmp/gpu_t.tsv" 2> "$tmp/err"
  case $? in
    0) cmp -s "$tmp/gpu_t.tsv" "$tmp/simd2.tsv" && pass || fail "GPU with --threshold $t differs from the CPU" ;;
    1) err_has "GPU\|CUDA"; absent "$tmp/gpu_t.tsv" ;;
    *) fail "--threshold $t crashed or misbehaved"; cat "$tmp/err" ;;
  esac
done
expect 2 "calibrate without -d" -- "$swsearch" calibrate
err_has "calibrate needs -d DB"
"$swsearch" calibrate -d "$tmp/sp" > "$tmp/cal.out" 2> "$tmp/err"
case $? in
  0) grep -q "chosen" "$tmp/cal.out" && pass || fail "calibrate printed no choice" ;;
  1) err_has "GPU\|CUDA" ;;
  *) fail "calibrate crashed or misbehaved"; cat "$tmp/err" ;;
esac

# --gpus: all, a count or a list of GPU numbers; --gpu one GPU; not both.
# On a GPU machine slices on GPU 0 give the output of one GPU; without one,
# --device gpu fails with a clear error and auto falls back to the CPU.
expect 2 "--gpus 0" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpus 0
err_has "--gpus takes 'all', a number of GPUs from 1 to 64 or a list"
expect 2 "--gpus 65" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpus 65
expect 2 "--gpus 0,x" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpus 0,x
err_has "'x' in '0,x' is not a GPU number"
expect 2 "--gpus 0,,1" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpus 0,,1
err_has "is not a list of GPU numbers"
expect 2 "--gpus and --gpu" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpus all --gpu 0
err_has "--gpus and --gpu both choose GPUs"
expect 2 "--gpu and --gpus" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpu 0 --gpus 0,0
err_has "--gpu and --gpus both choose GPUs"
expect 0 "--gpus on the CPU" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device cpu --gpus 3 -o "$tmp/cpu_gpus.tsv"
cmp -s "$tmp/cpu_gpus.tsv" "$tmp/simd2.tsv" && pass || fail "--device cpu --gpus 3 differs from the CPU"
for g in "--gpus 0,0,0" "--gpus all" "--gpus 1" "--gpu 0"; do
  "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device gpu $g -o "$tmp/gpu_g.tsv" 2> "$tmp/err"
  case $? in
    0) cmp -s "$tmp/gpu_g.tsv" "$tmp/simd2.tsv" && pass || fail "GPU with $g differs from the CPU" ;;
    1) err_has "GPU\|CUDA"; absent "$tmp/gpu_g.tsv" ;;
    *) fail "$g crashed or misbehaved"; cat "$tmp/err" ;;
  esac
done
"$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device gpu --gpus 0,63 -o "$tmp/gpu_63.tsv" 2> "$tmp/err"
[ $? -eq 1 ] && pass || fail "--gpus 0,63 did not fail"
err_has "GPU\|CUDA"
absent "$tmp/gpu_63.tsv"
expect 2 "calibrate --gpus x" -- "$swsearch" calibrate -d "$tmp/sp" --gpus x
expect 2 "--gpu-memory 0" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpu-memory 0
err_has "--gpu-memory takes a size of at least 1 MiB"
expect 2 "--gpu-memory 20X" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpu-memory 20X
expect 2 "--gpu-memory 1K" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --gpu-memory 1K
expect 0 "--gpu-memory on the CPU" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device cpu --gpu-memory 20GiB -o "$tmp/cpu_mem.tsv"
cmp -s "$tmp/cpu_mem.tsv" "$tmp/simd2.tsv" && pass || fail "--device cpu --gpu-memory differs from the CPU"
# A database many times the GPU memory given: streamed in parts, the same hits.
for m in 1M 3M; do
  "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" --top 500 -e 1e9 --device gpu --gpu-memory $m --gpus 0,0 -o "$tmp/gpu_m.tsv" 2> "$tmp/err"
  case $? in
    0) cmp -s "$tmp/gpu_m.tsv" "$tmp/simd2.tsv" && pass || fail "GPU with --gpu-memory $m differs from the CPU" ;;
    1) err_has "GPU\|CUDA"; absent "$tmp/gpu_m.tsv" ;;
    *) fail "--gpu-memory $m crashed or misbehaved"; cat "$tmp/err" ;;
  esac
done

# info and verify; a damaged database is refused, never searched.
expect 0 "info" -- "$swsearch" info -d "$tmp/sp"
out_has "format     version 2"
out_has "length histogram"
expect 0 "verify" -- "$swsearch" verify -d "$tmp/sp"
out_has "OK"
swr=$(echo "$tmp"/sp.*.swr)
size=$(wc -c < "$swr")
printf '\377' | dd of="$swr" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect 1 "verify damaged" -- "$swsearch" verify -d "$tmp/sp"
err_has "sp\.[0-9a-f]*\.swr"
expect 1 "search damaged" -- "$swsearch" search -q "$tmp/q3.fa" -d "$tmp/sp" -o "$tmp/damaged.tsv"
err_has "corrupt"
absent "$tmp/damaged.tsv"

# Queries are searched in batches of about 2^19 residues: a file of two
# batches (1,800 queries of about 300 residues) gives the table of its two
# halves searched apart, from a file and from standard input alike.
awk -v dir="$tmp" 'BEGIN {
  s = "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVV"
  for (i = 1; i <= 1800; i++) {
    f = (i <= 900) ? "half1" : "half2"
    r = substr(s, i % 70 + 1) substr(s, 1, i % 70)
    printf ">b%d\n%s%s%s%s%s\n", i, r, r, r, r, substr(r, 1, 20 + i % 7) > (dir "/" f ".fa")
  }
}'
cat "$tmp/half1.fa" "$tmp/half2.fa" > "$tmp/big.fa"
expect 0 "search half 1" -- "$swsearch" search -q "$tmp/half1.fa" -d "$tmp/db" --device cpu --outfmt tsv -o "$tmp/half1.tsv"
expect 0 "search half 2" -- "$swsearch" search -q "$tmp/half2.fa" -d "$tmp/db" --device cpu --outfmt tsv -o "$tmp/half2.tsv"
{ cat "$tmp/half1.tsv"; tail -n +2 "$tmp/half2.tsv"; } > "$tmp/halves.tsv"
expect 0 "search in batches" -- "$swsearch" search -q "$tmp/big.fa" -d "$tmp/db" --device cpu --outfmt tsv -v -o "$tmp/big.tsv"
err_has "queries in 2 batches"
cmp -s "$tmp/big.tsv" "$tmp/halves.tsv" && pass || fail "batched table differs from the halves' tables"
"$swsearch" search -q - -d "$tmp/db" --device cpu --outfmt tsv < "$tmp/big.fa" > "$tmp/big_stdin.tsv" 2> "$tmp/err" &&
  cmp -s "$tmp/big_stdin.tsv" "$tmp/halves.tsv" && pass || fail "batched table from stdin differs"
# A bad residue in the second batch: the usual message, exit 1, no -o file.
{ cat "$tmp/big.fa"; printf '>late\nMK#AY\n'; } > "$tmp/big_bad.fa"
expect 1 "bad residue in a later batch" -- "$swsearch" search -q "$tmp/big_bad.fa" -d "$tmp/db" --device cpu -o "$tmp/big_bad.tsv"
err_has "big_bad.fa:3602: invalid residue '#' in sequence late"
absent "$tmp/big_bad.tsv"

# A bare '>' names the query by its number in the file, as align does.
printf '>\nMKTAYIAKQRQISFVKSHF\n>named\nMKTAYIAKQRQISFVKSHF\n>  \nMKTAYIAKQRQISFVKSHF\n' > "$tmp/bare.fa"
expect 0 "bare headers" -- "$swsearch" search -q "$tmp/bare.fa" -d "$tmp/db" --outfmt tsv --top 1
[ "$(awk -F'\t' 'NR > 1 { printf "%s,", $1 }' "$tmp/out")" = "query1,named,query3," ] && pass ||
  fail "bare headers named $(awk -F'\t' 'NR > 1 { printf "%s,", $1 }' "$tmp/out")"

# A damaged header chunk stops the search before any output, even where no
# hit lies in it: the only hit is in the first of several header chunks.
awk 'BEGIN {
  print ">target"; print "WWWWCWWWWC"
  for (i = 1; i <= 1500; i++) {
    printf ">filler%d a description long enough to fill several header chunks of the database\n", i
    print "GGGSSSPPPGGGSSSPPPGG"
  }
}' > "$tmp/hdb.fa"
"$makedb" -q "$tmp/hdb.fa" "$tmp/hdb" || fail "makedb hdb"
printf '>w\nWWWWCWWWWC\n' > "$tmp/w.fa"
expect 0 "search before damage" -- "$swsearch" search -q "$tmp/w.fa" -d "$tmp/hdb" --top 1
for swh in "$tmp"/hdb*.swh; do
  size=$(wc -c < "$swh")
  printf '\377' | dd of="$swh" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
done
expect 1 "search with a damaged header chunk" -- "$swsearch" search -q "$tmp/w.fa" -d "$tmp/hdb" --top 1
[ -s "$tmp/out" ] && fail "output before the damaged header chunk was found" || pass

# Each option at most once, in its short or long form, for every command.
expect 2 "search -d twice" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -d "$tmp/sp"
err_has "option -d/--db given twice"
expect 2 "search -o and --out" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -o "$tmp/o1.tsv" --out "$tmp/o2.tsv"
err_has "option -o/--out given twice"
absent "$tmp/o1.tsv"
absent "$tmp/o2.tsv"
expect 2 "search --gap-open twice" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --gap-open 10 --gap-open 11
err_has "option --gap-open given twice"
expect 2 "search -v twice" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" -v -v
err_has "option -v/--verbose given twice"
expect 2 "info -d twice" -- "$swsearch" info -d "$tmp/db" --db "$tmp/db"
err_has "option -d/--db given twice"
expect 2 "verify -d twice" -- "$swsearch" verify -d "$tmp/db" -d "$tmp/db"
err_has "option -d/--db given twice"
expect 2 "calibrate --gpu twice" -- "$swsearch" calibrate -d "$tmp/db" --gpu 0 --gpu 1
err_has "option --gpu given twice"

# Old Mac line ends ("\r" alone), in the database and in the queries, plain
# and zstd-compressed: the same sequences and hits as "\n" gives.
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" > "$tmp/lf.tsv"
tr '\n' '\r' < "$tmp/db.fa" > "$tmp/db_cr.fa"
tr '\n' '\r' < "$tmp/q.fa" > "$tmp/q_cr.fa"
expect 0 "makedb of CR-only FASTA" -- "$makedb" "$tmp/db_cr.fa" "$tmp/db_cr"
err_has ": 4 sequences, 196 residues"
expect 0 "search of CR-only FASTA" -- "$swsearch" search -q "$tmp/q_cr.fa" -d "$tmp/db_cr"
cmp -s "$tmp/out" "$tmp/lf.tsv" && pass || fail "CR-only FASTA: other hits than with LF"
if command -v zstd > /dev/null; then
  zstd -q "$tmp/db_cr.fa" -o "$tmp/db_cr.fa.zst"
  expect 0 "makedb of zstd CR-only FASTA" -- "$makedb" "$tmp/db_cr.fa.zst" "$tmp/db_crz"
  err_has ": 4 sequences, 196 residues"
fi
printf '>q1\rMKTAYIAKQRQ\rISF#VKSH\r' > "$tmp/bad_cr.fa"
expect 1 "bad residue in CR-only FASTA" -- "$swsearch" search -q "$tmp/bad_cr.fa" -d "$tmp/db"
err_has "bad_cr.fa:3: invalid residue '#' in sequence q1"

# PSSM queries. An alignment of one sequence is that sequence's matrix rows:
# the same output as -q, in every format.
for f in 6 7 0 json; do
  "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt "$f" -e 1000 -o "$tmp/seq.out"
  expect 0 "--msa of one sequence, --outfmt $f" -- "$swsearch" search --msa "$tmp/q.fa" -d "$tmp/db" \
    --outfmt "$f" -e 1000 -o "$tmp/msa.out"
  cmp -s "$tmp/seq.out" "$tmp/msa.out" && pass || fail "--msa of one sequence, --outfmt $f: not the -q output"
done
# A family's PSSM and PSI-BLAST's, on the CPU.
expect 0 "--msa of a family" -- "$swsearch" search --msa "$data/pssm_sh3.a3m" -d "$tmp/db" -e 1e6 --device cpu
out_has "d1ckaa_"
expect 0 "--pssm from psiblast" -- "$swsearch" search --pssm "$data/pssm_sh3_d1ckaa.pssm" -d "$tmp/db" \
  -e 1e6 --device cpu --outfmt 7
out_has "# Query: pssm_sh3_d1ckaa.pssm"
# Two queries, a server, a bad file: clear errors.
expect 2 "-q and --pssm" -- "$swsearch" search -q "$tmp/q.fa" --pssm "$data/pssm_sh3_d1ckaa.pssm" -d "$tmp/db"
err_has "give the query once"
expect 2 "--msa to a server, with -d" -- "$swsearch" search --msa "$tmp/q.fa" --server "$tmp/none.sock" -d "$tmp/db"
err_has "needs -q QUERIES (or --pssm, --msa) and no -d"
expect 2 "--query-kind outside a request" -- "$swsearch" search --msa "$tmp/q.fa" -d "$tmp/db" --query-kind pssm
err_has "unknown option '--query-kind'"
# Iterated searches: one round is the plain search but for the lines that
# name the round; a profile saved and searched again; bad rounds refused.
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 7 -e 1000 -o "$tmp/plain7.out"
expect 0 "--iterations 3" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 7 -e 1000 --iterations 3 \
  --inclusion-evalue 1 --save-pssm "$tmp/saved.pssm" -o "$tmp/iter.out"
grep -q "^# Iteration: [123]$" "$tmp/iter.out" && pass || fail "--iterations: no round named"
expect 0 "--iterations 1" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 7 -e 1000 --iterations 1 \
  -o "$tmp/iter1.out"
grep -v "^# Iteration\|^# Profile" "$tmp/iter1.out" | cmp -s - "$tmp/plain7.out" && pass ||
  fail "--iterations 1: not the plain search"
expect 0 "the saved profile as the query" -- "$swsearch" search --pssm "$tmp/saved.pssm" -d "$tmp/db" -e 1000
out_has "s1"
expect 0 "--iterations 0 (until nothing new)" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 7 \
  -e 1000 --iterations 0 --inclusion-evalue 1 -o "$tmp/iter0.out"
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --outfmt 7 -e 1000 --iterations 100 --inclusion-evalue 1 \
  -o "$tmp/iter100.out"
cmp -s "$tmp/iter0.out" "$tmp/iter100.out" && pass || fail "--iterations 0: not --iterations 100"
expect 2 "--iterations -1" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --iterations -1
err_has "--iterations"
expect 2 "--iterations 101" -- "$swsearch" search -q "$tmp/q.fa" -d "$tmp/db" --iterations 101
err_has "--iterations"
expect 2 "--iterations with --server" -- "$swsearch" search -q "$tmp/q.fa" --server "$tmp/none.sock" --iterations 2
err_has "a server runs single searches"
printf 'swsearch-pssm 1\nlabel x\nbroken\n' > "$tmp/bad.pssm"
expect 1 "a malformed PSSM" -- "$swsearch" search --pssm "$tmp/bad.pssm" -d "$tmp/db" -o "$tmp/none.out"
err_has "bad.pssm:3:"
absent "$tmp/none.out"

cli_checks_done
