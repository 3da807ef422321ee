#!/bin/sh
# The library as another program uses it: `cmake --install` into a fresh
# prefix, examples/api/search.c built against what it installed (through
# pkg-config, shared and static, and through find_package), run, and its
# hits compared with the program's.
# SW_TEST_CFLAGS: the build's C flags (a sanitized library needs its
# program compiled with the same sanitizers).
# Usage: test_install.sh BUILD_DIR SOURCE_DIR SWSEARCH MAKEDB DATA_DIR
set -u
cflags=${SW_TEST_CFLAGS:-}
build=$1 src=$2 swsearch=$3 makedb=$4 data=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../support/cli_checks.sh"
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1 | xargs dirname)
for f in "$prefix/include/swsearch.h" "$libdir/libswsearch.a" "$libdir/pkgconfig/swsearch.pc" \
  "$libdir/cmake/swsearch/swsearchConfig.cmake"; do
  if [ -f "$f" ]; then pass; else fail "not installed: $f"; fi
done
soname=$(objdump -p "$libdir/libswsearch.so" 2> /dev/null | awk '$1 == "SONAME" { print $2 }')
case $soname in
  libswsearch.so.[0-9]*) pass ;;
  *) fail "SONAME '$soname' is not versioned" ;;
esac
# Only the public API leaves the shared library.
nm -D --defined-only "$libdir/libswsearch.so" | awk '$2 == "T" { print $3 }' | sort > "$tmp/exported"
sed -n 's/^SW_API [^(]*[ *]\(sw_[a-z_0-9]*\)(.*/\1/p' "$prefix/include/swsearch.h" | sort > "$tmp/declared"
if cmp -s "$tmp/exported" "$tmp/declared"; then pass; else fail "exports differ from the header: $(diff "$tmp/declared" "$tmp/exported" | head -5)"; fi

# The program's own hits, for comparison. makedb and sw_db_make read
# zstd-compressed FASTA themselves (GPU machines may lack the zstd tool).
cp "$data/swissprot_like_2500.fa.zst" "$tmp/db.fa"
head -20 "$data/queries20.fasta" > "$tmp/q.fa"
"$makedb" -q "$tmp/db.fa" "$tmp/clidb" || fail "makedb"
"$swsearch" search -q "$tmp/q.fa" -d "$tmp/clidb" --outfmt "6 qseqid sseqid score length nident qstart qend sstart send" \
  -o "$tmp/want.tsv" 2> /dev/null || fail "swsearch search"
[ -s "$tmp/want.tsv" ] || fail "no hits from swsearch search"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc $cflags -o "$tmp/search-pc" "$src/examples/api/search.c" $(pkg-config --cflags --libs swsearch) > "$tmp/cc.log" 2>&1 ||
  { cat "$tmp/cc.log"; fail "cc with pkg-config"; }
LD_LIBRARY_PATH="$libdir" "$tmp/search-pc" "$tmp/db.fa" "$tmp/db1" "$tmp/q.fa" > "$tmp/pc.tsv" 2> "$tmp/pc.err" ||
  { cat "$tmp/pc.err"; fail "the pkg-config build did not run"; }
if cmp -s "$tmp/want.tsv" "$tmp/pc.tsv"; then pass; else fail "pkg-config build: hits differ from swsearch search"; fi

# Static: nothing of swsearch needed at run time.
if cc $cflags -o "$tmp/search-static" "$src/examples/api/search.c" -I"$prefix/include" "$libdir/libswsearch.a" \
  $(pkg-config --libs-only-L --libs-only-l --static swsearch | sed 's/-lswsearch//') -lstdc++ > "$tmp/cc-static.log" 2>&1; then
  "$tmp/search-static" "$tmp/db.fa" "$tmp/db2" "$tmp/q.fa" > "$tmp/static.tsv" 2> /dev/null
  if cmp -s "$tmp/want.tsv" "$tmp/static.tsv"; then pass; else fail "static build: hits differ"; fi
else
  cat "$tmp/cc-static.log"; fail "static build"
fi

cmake -S "$src/examples/api" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$cflags" > "$tmp/cmake.log" 2>&1 &&
  cmake --build "$tmp/example" > "$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake.log" "$tmp/cmake-build.log" | tail -30; fail "find_package build"; }
"$tmp/example/search" "$tmp/db.fa" "$tmp/db3" "$tmp/q.fa" > "$tmp/cmake.tsv" 2> /dev/null
if cmp -s "$tmp/want.tsv" "$tmp/cmake.tsv"; then pass; else fail "find_package build: hits differ"; fi
cli_checks_done
