#!/bin/sh
# The Python package (python/) built against this build tree into a
# temporary folder, then its tests (pytest). Skips (77) without python3,
# cffi, pytest, setuptools (with wheel before setuptools 70.1), Python's
# headers or a C compiler. The Python is $PYTHON, else the build folder's
# python-venv (scripts/setup.sh makes it), else python3.
# Usage: test_python.sh SOURCE_DIR BUILD_DIR LIBRARY_DIR SWSEARCH_BIN TEST_DATA
set -u
src=$1 build=$2 libdir=$3 bin=$4 data=$5

skip() {
  echo "test_python: skipped: $*"
  exit 77
}

py=${PYTHON:-}
if [ -z "$py" ]; then
  py=python3
  [ -x "$build/python-venv/bin/python" ] && py=$build/python-venv/bin/python
fi
command -v "$py" >/dev/null 2>&1 || skip "no $py"
for m in cffi pytest setuptools; do
  "$py" -c "import $m" 2>/dev/null || skip "$py lacks $m (scripts/setup.sh makes build/python-venv with it)"
done
"$py" -c "import setuptools.command.bdist_wheel" 2>/dev/null || "$py" -c "import wheel" 2>/dev/null ||
  skip "$py lacks wheel"
"$py" -c "import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" ||
  skip "no Python.h for $py (python3-dev)"
cc=$("$py" -c "import sysconfig; print((sysconfig.get_config_var('CC') or 'cc').split()[0])")
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/python" "$tmp/src" || exit 1
rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
export SWSEARCH_INCLUDE_DIR="$src/include" SWSEARCH_LIBRARY_DIR="$libdir"
"$py" -m pip install --quiet --no-build-isolation --no-deps --no-index --no-cache-dir \
  --target "$tmp/site" "$tmp/src" || exit 1
cd "$tmp" || exit 1
PYTHONPATH="$tmp/site" PYTHONDONTWRITEBYTECODE=1 SWSEARCH_BIN="$bin" SWSEARCH_TEST_DATA="$data" \
  "$py" -m pytest -q -p no:cacheprovider "$src/python/tests"
