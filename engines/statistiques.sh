#!/usr/bin/env bash
# The statistics of `measure::stats` computed by independent references: scipy's paired t-test
# (`ttest_rel`) and percentile bootstrap (`bootstrap`), statsmodels' Holm correction
# (`multipletests(method="holm")`) and the power of a paired t-test (`TTestPower`):
#
#   bash engines/statistiques.sh < PAIRS.json
#
# Reads `{"pairs": [[a, b], …], "p": [p, …]}` (each a and b a list of per-question values) and
# prints the references as JSON. scipy and statsmodels are installed from PyPI into
# target/engines/venv, as the engines' recipes install theirs. Exit status 3: they could not be
# installed (no registry).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[statistiques] %s\n' "$*" >&2; }
cannot() { say "cannot install $*"; exit 3; }
DIR=target/engines
VENV=$DIR/venv
# Pinned: the agreement checked by tests/stats.rs is with these versions.
PACKAGES="scipy==1.16.3 statsmodels==0.14.5"
mkdir -p "$DIR"
# One install into the venv at a time: the tests run these scripts in parallel, and two pip
# installs into one venv break each other (« Directory not empty »). The lock is let go before
# the work; an exit (`cannot`) lets it go too.
exec 9>"$DIR/venv.lock"
flock 9
if [ ! -x "$VENV/bin/python" ]; then
  say "making $VENV"
  python3 -m venv "$VENV" || cannot "a Python virtual environment (python3 -m venv; on Debian: apt-get install python3-venv)"
fi
if ! "$VENV/bin/python" -c "import scipy, statsmodels" 2>/dev/null; then
  say "installing $PACKAGES from PyPI into $VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install --quiet $PACKAGES || cannot "$PACKAGES from PyPI"
fi
flock -u 9
exec "$VENV/bin/python" engines/statistiques.py
