# Sourced after bench/lib.sh by the benchmarks that run CUDASW++4.0 beside
# swsearch. cudasw4_ready PEERS WORK builds it from PEERS/cudasw4 (a copy of
# asbschmidt/CUDASW4 outside our tree, never committed; bench/README.md has
# the recipe and the Makefile edits) into PEERS/bin unless it is there,
# logging to WORK, and lets its programs find the zlib that PEERS/zlib carries.
cudasw4_ready() {
  local peers=$1 work=$2
  if [ ! -x "$peers/bin/align" ] || [ ! -x "$peers/bin/makedb" ]; then
    echo "building CUDASW++4.0 ($peers/cudasw4)"
    CPATH="$peers/zlib/usr/include" LIBRARY_PATH="$peers/zlib/usr/lib/x86_64-linux-gnu" \
      make -C "$peers/cudasw4" -j"$(nproc)" align makedb > "$work/cudasw4-build.log" 2>&1 ||
      { tail -30 "$work/cudasw4-build.log"; return 1; }
    mkdir -p "$peers/bin"
    cp "$peers/cudasw4/align" "$peers/cudasw4/makedb" "$peers/bin/"
  fi
  export LD_LIBRARY_PATH="$peers/zlib/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
}

# cudasw4_databases SEQS PEERS: the Swiss-Prot-like database of SEQS
# sequences, the 20 benchmark queries planted, made by $makedb as $work/db
# and, unless PEERS is "-", by CUDASW++4.0's as $work/cs/db.
cudasw4_databases() {
  local seqs=$1 peers=$2
  synthdb protein --seqs "$seqs" --plant "$queries" > "$work/db.fa"
  "$makedb" -q "$work/db.fa" "$work/db"
  if [ "$peers" != - ]; then
    mkdir -p "$work/cs"
    "$peers/bin/makedb" "$work/db.fa" "$work/cs/db" > /dev/null
  fi
  rm "$work/db.fa"
}
