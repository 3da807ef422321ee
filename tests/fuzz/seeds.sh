#!/bin/sh
# Writes the seed inputs of the fuzz targets into OUT_DIR/<target>/, made
# from tests/data and matrices/ in each target's input framing (see the
# comment at the top of each fuzz_*.c); the database seeds are built with
# MAKEDB, so no generated binary is kept in the repository.
# Usage: seeds.sh MAKEDB SOURCE_DIR OUT_DIR [TARGET...] (default: all seven)
set -eu
makedb=$1 src=$2 out=$3
shift 3
[ $# -gt 0 ] || set -- fuzz_fasta fuzz_db fuzz_matrix fuzz_pair_input fuzz_msa fuzz_pssm fuzz_wire
data=$src/tests/data
work=$out/.work
mkdir -p "$work"

# le32 N: N as 4 bytes, little-endian.
le32() {
  printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
    $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}
# be32 N: N as 4 bytes, big-endian (the server protocol's lengths).
be32() {
  printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) \
    $(($1 >> 8 & 255)) $(($1 & 255)))"
}
# wire_string S: S as the protocol sends a string.
wire_string() { be32 "${#1}"; printf '%s' "$1"; }
le16() {
  printf "$(printf '\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)))"
}
size() { wc -c < "$1" | tr -d ' '; }

# Small DNA inputs: both cases, N and other IUPAC codes, a bare '>' header,
# CRLF line ends, an empty record.
printf '>chr1 test\nACGTACGTNNacgtRYKM\nACGT\n>chr2\nTTGACCA\n' > "$work/dna2.fa"
printf '>\nACGTTGCA\n>\nGGCC\n' > "$work/dna_bare.fa"
printf '>a\r\nACGT\r\n>empty\r\n>b\r\nTTTT\r\n' > "$work/dna_crlf.fa"
printf '>only\nACGTACGTACGT\n' > "$work/dna1.fa"

for target; do
  dir=$out/$target
  mkdir -p "$dir"
  case $target in
  fuzz_fasta)
    # Configuration byte: 0 plain protein, 1 zstd protein, 2 plain DNA,
    # 3 zstd DNA, 5 two zstd frames, 0x38 a limit of 49 residues.
    for f in "$data"/*.fa "$data"/*.fasta; do
      b=$(basename "$f")
      { printf '\000'; cat "$f"; } > "$dir/$b.plain"
      { printf '\001'; cat "$f"; } > "$dir/$b.zstd"
    done
    { printf '\070'; cat "$data/fasta_small.fa"; } > "$dir/limit49"
    { printf '\005'; cat "$data/fasta_small.fa"; } > "$dir/two_frames"
    { printf '\000\357\273\277'; cat "$data/fasta_small.fa"; } > "$dir/bom"
    { printf '\000'; awk '{ printf "%s\r\n", $0 }' "$data/fasta_small.fa"; } > "$dir/crlf"
    for f in "$work"/dna*.fa; do
      b=$(basename "$f")
      { printf '\002'; cat "$f"; } > "$dir/$b.plain"
      { printf '\003'; cat "$f"; } > "$dir/$b.zstd"
    done
    # Compressed files given as they are, for the reader's own detection:
    # a zstd file whole and cut short, and the formats it refuses.
    if command -v zstd > /dev/null; then
      zstd -q -c "$data/fasta_small.fa" > "$work/small.zst"
      { printf '\000'; cat "$work/small.zst"; } > "$dir/zstd_file"
      { printf '\000'; dd if="$work/small.zst" bs=1 count=40 2>/dev/null; } > "$dir/zstd_file_cut"
    fi
    printf '\000\037\213\010\000' > "$dir/gzip_magic"
    printf '\000\3757zXZ\000\000' > "$dir/xz_magic"
    printf '\000BZh9' > "$dir/bzip2_magic"
    ;;
  fuzz_pair_input)
    # Configuration byte: bit 0 two files (u16 size of the first), bit 1 zstd.
    for f in "$work/dna2.fa" "$work/dna_bare.fa" "$work/dna_crlf.fa"; do
      b=$(basename "$f")
      { printf '\000'; cat "$f"; } > "$dir/$b.one"
      { printf '\002'; cat "$f"; } > "$dir/$b.one.zstd"
    done
    { printf '\001'; le16 "$(size "$work/dna1.fa")"; cat "$work/dna1.fa" "$work/dna1.fa"; } \
      > "$dir/two_files"
    { printf '\003'; le16 "$(size "$work/dna1.fa")"; cat "$work/dna1.fa" "$work/dna_bare.fa"; } \
      > "$dir/two_files.zstd"
    ;;
  fuzz_msa)
    # Configuration byte: 0 read only, 1 and align, 3 and weights.
    printf '>s1 first\nACDEFGHIK\n>s2\nACDE-GHIK\n' > "$work/msa.afa"
    printf 'CLUSTAL W (1.83)\n\ns1      ACDEF-GHIK 9\ns2      ACDE--GHIK\n        **** .****\n\ns1      LL\ns2      L-\n' > "$work/msa.aln"
    printf '# STOCKHOLM 1.0\n#=GF ID x\ns1 ACDEF.GHIK\ns2 ACDE--GHIK\n#=GC SS_cons ..........\n//\n' > "$work/msa.sto"
    for f in "$work"/msa.*; do
      b=$(basename "$f")
      { printf '\000'; cat "$f"; } > "$dir/$b.read"
      { printf '\001'; cat "$f"; } > "$dir/$b.align"
      { printf '\003'; cat "$f"; } > "$dir/$b.weights"
    done
    ;;
  fuzz_pssm)
    # Configuration byte: 0 a PSSM read with BLOSUM62, 2 without a matrix;
    # 1 an alignment made into a PSSM, 3 the same as A3M, 5 with beta 10,
    # 9 without pseudocounts.
    for f in "$data"/pssm_*.pssm; do
      b=$(basename "$f")
      { printf '\000'; cat "$f"; } > "$dir/$b.blosum62"
      { printf '\002'; cat "$f"; } > "$dir/$b.nomatrix"
    done
    for f in "$data"/pssm_sh3.afa "$data"/pssm_sh3.sto; do
      b=$(basename "$f")
      { printf '\001'; cat "$f"; } > "$dir/$b.columns"
      { printf '\005'; cat "$f"; } > "$dir/$b.beta10"
      { printf '\011'; cat "$f"; } > "$dir/$b.none"
    done
    { printf '\003'; cat "$data/pssm_sh3.a3m"; } > "$dir/pssm_sh3.a3m"
    # swsearch's own format (sw_pssm_save), a query of four residues.
    cat > "$work/own.pssm" <<'PSSM'
swsearch-pssm 1
label tiny
sequences 1
effective 1
matrix BLOSUM62
gaps 11 1
length 4
columns A R N D C Q E G H I L K M F P S T W Y V B J Z X * U O
1 M -1 -1 -2 -3 -1 0 -2 -3 -2 1 2 -1 5 0 -2 -1 -1 -1 -1 1 -3 2 -1 -1 -1 -1 -1
2 K -1 2 0 -1 -3 1 1 -2 -1 -3 -2 5 -1 -3 -1 0 -1 -3 -2 -2 0 -2 1 -1 -1 -3 5
3 V 0 -3 -3 -3 -1 -2 -2 -3 -3 3 1 -2 1 -1 -2 -2 0 -3 -1 4 -3 3 -2 -1 -1 -1 -2
4 W -3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1 1 -4 -3 -2 11 2 -3 -4 -2 -3 -2 -2 -2 -3
end
PSSM
    { printf '\000'; cat "$work/own.pssm"; } > "$dir/own.pssm.blosum62"
    { printf '\002'; cat "$work/own.pssm"; } > "$dir/own.pssm.nomatrix"
    ;;
  fuzz_wire)
    # Configuration byte 0: a request (hello, options, query name, query);
    # 1: answer frames (output, note, warning, verbose, end).
    { printf '\000SWSEARCH/1\n'; be32 4; wire_string "-e"; wire_string "1e-3"; wire_string "--top"
      wire_string "5"; wire_string "query.fasta"; printf '>q1 a query\nMKVLAAGIVALLL\n'; } > "$dir/request"
    { printf '\000SWSEARCH/1\n'; be32 0; wire_string "-"; } > "$dir/request_bare"
    { printf '\001'; printf 'O'; wire_string "q1\tP12345\t55.0\n"; printf 'N'; wire_string "1 query"
      printf 'W'; wire_string "record 2: empty"; printf 'V'; wire_string "cells 1e9"
      printf 'E'; be32 8; be32 1; printf 'oops'; } > "$dir/frames"
    ;;
  fuzz_matrix)
    cp "$src"/matrices/* "$dir/"
    # A row longer than the parser's line buffer.
    { sed -n '/^ *A/{p;q;}' "$src/matrices/BLOSUM62"
      awk 'BEGIN { printf "A"; for (i = 0; i < 2100; i++) printf " 1"; print "" }'; } \
      > "$dir/long_line"
    ;;
  fuzz_db)
    # Databases from makedb, framed as [flags][u32 index size][u32 residue
    # file size][index][residues][headers]; flags 7 repair every checksum.
    db=$work/db
    mkdir -p "$db"
    awk 'BEGIN {
      for (i = 0; i < 500; i++) {
        printf ">sp|P%05d|SEQ%d_HUMAN Protein number %d of a long list of headers that", i, i, i
        printf " fill more than one header chunk OS=Homo sapiens OX=9606 GN=G%d PE=1 SV=%d\n", i, i % 3
        print substr("MKVLAAGIVALLLAAGCSSEKPQTWNDRYHFM", 1 + i % 7, 12 + i % 9)
      }
    }' > "$work/many_headers.fa"
    : > "$work/empty.fa"
    "$makedb" -q --threads 1 "$data/fasta_small.fa" "$db/small"
    "$makedb" -q --threads 1 --dna "$work/dna2.fa" "$db/dna"
    "$makedb" -q --threads 1 "$work/many_headers.fa" "$db/many_headers"
    "$makedb" -q --threads 1 "$work/empty.fa" "$db/empty" 2>/dev/null || true
    for swi in "$db"/*.swi; do
      p=${swi%.swi}
      name=$(basename "$p")
      res=$p.swr hdr=$p.swh
      for f in "$p".*.swr; do [ -f "$f" ] && res=$f; done
      for f in "$p".*.swh; do [ -f "$f" ] && hdr=$f; done
      [ -f "$res" ] && [ -f "$hdr" ] || continue
      { printf '\007'; le32 "$(size "$swi")"; le32 "$(size "$res")"; cat "$swi" "$res" "$hdr"; } \
        > "$dir/$name"
      # The same database as format version 1 (the version field of the
      # index; the repairs carry it into the data files and the checksum).
      cp "$swi" "$work/v1.swi"
      printf '\001' | dd of="$work/v1.swi" bs=1 seek=8 conv=notrunc 2>/dev/null
      { printf '\007'; le32 "$(size "$swi")"; le32 "$(size "$res")"; cat "$work/v1.swi" "$res" "$hdr"; } \
        > "$dir/$name.v1"
    done
    ;;
  *)
    echo "seeds.sh: unknown target $target" >&2
    exit 2
    ;;
  esac
done
rm -rf "$work"
