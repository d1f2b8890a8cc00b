#!/usr/bin/env bash
# The graded measures computed by an independent reference, ir_measures (pytrec_eval, that is
# trec_eval's own code), on a qrels file and TREC runs:
#
#   bash engines/ir_measures.sh QRELS RUN [RUN…]
#
# Prints one line per run, measure and question: `run<TAB>measure<TAB>qid<TAB>value`, for
# nDCG@10, R@10 and Judged@10. ir_measures is installed from PyPI into target/engines/venv, as
# the engines' recipes install theirs. Exit status 3: it could not be installed (no registry).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[ir_measures] %s\n' "$*" >&2; }
cannot() { say "cannot install $*"; exit 3; }
[ $# -ge 2 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
DIR=target/engines
VENV=$DIR/venv
# Pinned: the agreement checked by tests/graded.rs is with this version.
PACKAGE="ir_measures==0.4.3"
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
if ! "$VENV/bin/python" -c "import ir_measures" 2>/dev/null; then
  say "installing $PACKAGE from PyPI into $VENV"
  "$VENV/bin/pip" install --quiet "$PACKAGE" || cannot "$PACKAGE from PyPI"
fi
flock -u 9
exec "$VENV/bin/python" engines/mesures_graduees.py "$@"
