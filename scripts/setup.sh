#!/usr/bin/env bash
# Installs the build dependencies (Debian/Ubuntu), builds swsearch into build/,
# and runs a search on the example database shipped in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang builds the fuzz targets (scripts/fuzz.sh).
packages="build-essential cmake pkg-config libzstd-dev libxxhash-dev libcriterion-dev libpng-dev zstd fasta3 openmpi-bin libopenmpi-dev clang python3-venv python3-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# clang's libFuzzer (libclang_rt.fuzzer), in clang's resource directory.
has_libfuzzer() {
  command -v clang >/dev/null || return 1
  ls "$(clang -print-resource-dir)"/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1
}
if [ -n "$missing" ] || ! has_libfuzzer; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # From Debian 12 on libFuzzer is in libclang-rt-dev, which clang only
  # recommends; older releases ship it with clang and have no such package.
  if ! has_libfuzzer && apt-cache show libclang-rt-dev >/dev/null 2>&1; then
    missing="$missing libclang-rt-dev"
  fi
  if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
  fi
fi

# nvcc is often installed outside PATH; the CUDA engines are built when it is found.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"

# The Python package's build and test tools (ctest's test_python) in a venv,
# which Debian's externally managed python3 (PEP 668) allows where
# `pip install --user` is refused; test_python skips without them.
if [ -x build/python-venv/bin/python ] || python3 -m venv build/python-venv; then
  build/python-venv/bin/python -m pip install -q --disable-pip-version-check cffi pytest setuptools wheel ||
    echo "setup: no cffi or pytest in build/python-venv; test_python will be skipped" >&2
fi

mkdir -p build/example
build/tools/makedb/makedb -q examples/scope-astral40.fa.zst build/example/astral40
build/src/cli/swsearch info -d build/example/astral40 | head -6
echo
build/src/cli/swsearch search -q examples/queries.fa -d build/example/astral40 --top 5
