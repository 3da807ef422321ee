#!/bin/sh
# GPU engine against the CPU engines (test_gpu_engine.c) on the 20 queries and
# 20,000 sequences of the Swiss-Prot-like database, which is made here with
# the benchmark generator. Skips (77) without a GPU.
# usage: test_gpu.sh TEST_BINARY MATRIX_DIR TEST_DATA_DIR SYNTHDB_SOURCE [--quick]
set -u
bin=$1 matrices=$2 data=$3 synthdb_src=$4
quick=${5:-}

# $bin stays unquoted: it may be a command with a wrapper such as
# "compute-sanitizer --tool memcheck test_gpu_engine".
$bin >/dev/null 2>&1
[ $? -eq 77 ] && { $bin; exit 77; }

if [ ! -f "$synthdb_src" ]; then
    echo "test_gpu.sh: $synthdb_src not found (set SW_SHARED_DIR when configuring)" >&2
    exit 1
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/synthdb" "$synthdb_src" -lm || exit 1
# The planted homologs of the queries and five giants (up to 35,213
# residues) come first; then every 29th of the
# rest, which spans the whole length distribution: 20,000 in all.
"$work/synthdb" protein --plant "$data/queries20.fasta" |
    awk '/^>/ { n++; keep = (n <= 487 || (n - 487) % 29 == 0) && kept < 20000; if (keep) kept++ } keep' \
    > "$work/sp20000.fa" || exit 1
exec $bin $quick "$matrices" "$data/queries20.fasta" "$work/sp20000.fa"
