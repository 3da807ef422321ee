# Sourced by the pairwise benchmarks: make_pair KIND SUBJECT QUERY prints a
# FASTA file of two DNA sequences from synthdb (compiled into $work first by
# pair_inputs_init SHARED_DIR): "related" is synthdb's subject with a mutated
# window of it as the query, "random" two unrelated sequences.
pair_inputs_init() {
  work=${TMPDIR:-/tmp}/swsearch-pair-inputs
  mkdir -p "$work"
  [ -x "$work/synthdb" ] || cc -O2 -o "$work/synthdb" "$1/bench/synthdb.c" -lm
}

make_pair() {
  local f=$work/$1-$2-$3.fa
  if [ ! -s "$f" ]; then
    if [ "$1" = related ]; then
      "$work/synthdb" dna --len "$2" --query-len "$3" --seed 7 > "$f"
    else
      "$work/synthdb" dna --len "$2" --seed 21 | awk '/^>/ { n++ } n == 1' > "$f"
      "$work/synthdb" dna --len "$3" --seed 22 | awk '/^>/ { n++ } n == 1' | sed '1s/.*/>unrelated_query/' >> "$f"
    fi
  fi
  echo "$f"
}

# field NAME: the value of NAME in pair_bench's JSON line on stdin.
field() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p"; }

# swap_pair FILE prints a file with FILE's two records in the other order.
swap_pair() {
  local f=${1%.fa}-swapped.fa
  [ -s "$f" ] || { awk '/^>/ { n++ } n == 2' "$1"; awk '/^>/ { n++ } n == 1' "$1"; } > "$f"
  echo "$f"
}
