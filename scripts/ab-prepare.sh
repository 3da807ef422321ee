#!/usr/bin/env bash
# Prepares A/B comparisons of GPU builds: writes the source tree of each
# given git revision to .ab/NAME (ignored by git; NAME is the revision with
# characters other than letters, digits, '.', '_' and '-' made '_'), so that
# a device run can carry .ab and build each beside the working tree. The
# device step `ab` (scripts/device-run.sh) builds them and times them against
# the working tree with bench/gpu_ab.sh.
# Usage: scripts/ab-prepare.sh REV [REV...]   (e.g. HEAD, HEAD~2, a1b2c3d)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
grep -qx '/.ab/' .git/info/exclude 2>/dev/null || echo '/.ab/' >> .git/info/exclude
for rev in "$@"; do
  name=$(printf '%s' "$rev" | tr -c 'A-Za-z0-9._-' '_')
  commit=$(git rev-parse --verify "$rev^{commit}")
  rm -rf ".ab/$name"
  mkdir -p ".ab/$name"
  git archive "$commit" | tar x -C ".ab/$name"
  echo ".ab/$name: $(git log -1 --format='%h %s' "$commit" | cut -c1-80)"
done
echo "carry: .ab (and .deps); device step: ab"
