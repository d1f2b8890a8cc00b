#!/usr/bin/env bash
# Runs real engines on the exercise and measures them beside the lab's methods:
#
#   bash engines/run.sh [sqlite|postgres|lucene|all] [OUT_DIR]
#
# Each recipe installs what it needs from the registries (PyPI; Java from Debian for Lucene) into
# target/engines/, starts and stops its engine itself, writes TREC runs into OUT_DIR (default
# target/engines/runs), then `mesurer --run … --comparer` measures each run beside the method it
# mirrors and says where its first 10 fiches differ. Exit status 3: a package could not be
# installed (no registry); anything else non-zero: a recipe failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

WHICH=${1:-all}
OUT=${2:-target/engines/runs}
case "$WHICH" in
  sqlite | postgres | lucene | all) ;;
  -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "engines/run.sh: unknown recipe \"$WHICH\": expected sqlite, postgres, lucene or all" >&2; exit 2 ;;
esac
say() { printf '[engines] %s\n' "$*" >&2; }
cannot() { say "cannot install $*"; exit 3; }

DIR=target/engines
VENV=$DIR/venv
# Pinned: the parity figures in engines/README.md are these versions'.
SQLITE_PACKAGES="sqlite-vec==0.1.9 pysqlite3-binary==0.5.4.post2"
POSTGRES_PACKAGES="pgserver==0.1.4 psycopg[binary]==3.2.3"
PYSERINI=0.23.0
mkdir -p "$DIR" "$OUT"
if [ ! -x "$VENV/bin/python" ]; then
  say "making $VENV"
  python3 -m venv "$VENV" || cannot "a Python virtual environment (python3 -m venv; on Debian: apt-get install python3-venv)"
fi
install() {
  "$VENV/bin/python" -c "import $1" 2>/dev/null && return 0
  say "installing $2 from PyPI into $VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/pip" install --quiet $2 || cannot "$2 from PyPI"
}
ran=()
if [ "$WHICH" = sqlite ] || [ "$WHICH" = all ]; then
  install "sqlite_vec, pysqlite3" "$SQLITE_PACKAGES"
  "$VENV/bin/python" engines/sqlite.py "$OUT"
  ran+=("mots:sqlite-fts5" "sens-local:sqlite-vec" "hybride-local:sqlite-hybride")
fi
if [ "$WHICH" = postgres ] || [ "$WHICH" = all ]; then
  install "pgserver, psycopg" "$POSTGRES_PACKAGES"
  "$VENV/bin/python" engines/postgres.py "$OUT"
  ran+=("mots+:postgres-french" "sens-local:postgres-pgvector" "hybride-local:postgres-hybride")
fi
if [ "$WHICH" = lucene ] || [ "$WHICH" = all ]; then
  command -v java >/dev/null || cannot "Java (apt-get install openjdk-17-jre-headless; scripts/setup.sh test does)"
  JAR=$DIR/anserini-$PYSERINI-fatjar.jar
  if [ ! -f "$JAR" ]; then
    say "fetching pyserini $PYSERINI's wheel from PyPI for the Anserini jar inside it"
    "$VENV/bin/pip" download --quiet --no-deps --dest "$DIR/wheel" "pyserini==$PYSERINI" || cannot "pyserini $PYSERINI's wheel from PyPI"
    "$VENV/bin/python" -c '
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    with z.open(f"pyserini/resources/jars/anserini-{sys.argv[2]}-fatjar.jar") as jar, open(sys.argv[3] + ".part", "wb") as out:
        out.write(jar.read())' "$DIR/wheel/pyserini-$PYSERINI-py3-none-any.whl" "$PYSERINI" "$JAR"
    mv "$JAR.part" "$JAR"
    rm -rf "$DIR/wheel"
  fi
  "$VENV/bin/python" engines/lucene.py "$JAR" "$OUT"
  ran+=("mots:lucene-mots" "mots+:lucene-fr" "sens-local:lucene-hnsw" "hybride-local:lucene-hybride")
fi
# MESURER: a mesurer already built (the tests pass theirs); else the release one.
if [ -z "${MESURER:-}" ]; then
  cargo build --locked --quiet --release --bin mesurer
  MESURER=./target/release/mesurer
fi
for pair in "${ran[@]}"; do
  method=${pair%%:*} run=${pair#*:}
  "$MESURER" "$method" --run "$OUT/run-$run.txt" --comparer "$method" | sed -n '/^Parité/,$p'
done
