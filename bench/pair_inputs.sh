# Sourced after bench/lib.sh by the pairwise benchmarks. Their pairs are
# kept between runs in $pair_dir (the largest take minutes to make).
pair_dir=${TMPDIR:-/tmp}/swsearch-pair-inputs
mkdir -p "$pair_dir"

# make_pair KIND SUBJECT QUERY prints a FASTA file of two DNA sequences from
# synthdb: "related" is synthdb's subject with a mutated window of it as the
# query, "random" two unrelated sequences.
make_pair() {
  local f=$pair_dir/$1-$2-$3.fa
  if [ ! -s "$f" ]; then
    if [ "$1" = related ]; then
      synthdb dna --len "$2" --query-len "$3" --seed 7 > "$f"
    else
      synthdb dna --len "$2" --seed 21 | awk '/^>/ { n++ } n == 1' > "$f"
      synthdb dna --len "$3" --seed 22 | awk '/^>/ { n++ } n == 1' | sed '1s/.*/>unrelated_query/' >> "$f"
    fi
  fi
  echo "$f"
}

# related_pair N prints a FASTA file of synthdb's related pair of N bases.
related_pair() {
  local f=$pair_dir/rel$1.fa
  [ -s "$f" ] || synthdb dna --len "$1" > "$f"
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
