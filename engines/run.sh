#!/usr/bin/env bash
# Runs real engines on a catalogue and measures them beside the lab's methods:
#
#   bash engines/run.sh [--fiches F] [--questions Q] [--vecteurs-local V] [sqlite|postgres|lucene|all] [OUT_DIR]
#
# The files default to the exercise's (data/). With --fiches, the local vectors default to
# vecteurs-local.safetensors beside F (make them with `vecteurs --embedder local --fiches F
# --questions Q --out V`) and the runs go to runs/ beside F; else to target/engines/runs.
# Each recipe installs what it needs from the registries (PyPI; Java from Debian for Lucene) into
# target/engines/, starts and stops its engine itself, writes TREC runs into OUT_DIR, then
# `mesurer --run … --comparer` measures each run on the same files beside the method it mirrors
# and says where its first 10 fiches differ. Exit status 3: a package could not be installed (no
# registry); 2: a file is missing or does not fit; anything else non-zero: a recipe failed.
set -euo pipefail
HERE=$(dirname "$0")
export PATH="$HOME/.cargo/bin:$PATH"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
wrong() { echo "engines/run.sh: $*" >&2; exit 2; }
FICHES='' QUESTIONS='' VECTORS='' positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fiches | --questions | --vecteurs-local)
      [ $# -ge 2 ] || wrong "$1 needs a file"
      # Paths are the caller's, read from where they ran the script.
      given=$(realpath -m -- "$2")
      case "$1" in
        --fiches) FICHES=$given ;;
        --questions) QUESTIONS=$given ;;
        *) VECTORS=$given ;;
      esac
      shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --*) wrong "unknown option \"$1\": expected --fiches, --questions or --vecteurs-local" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -le 2 ] || wrong "too many arguments: ${positional[*]}"
WHICH=${positional[0]:-all}
case "$WHICH" in
  sqlite | postgres | lucene | all) ;;
  *) wrong "unknown recipe \"$WHICH\": expected sqlite, postgres, lucene or all" ;;
esac
OUT=${positional[1]:+$(realpath -m -- "${positional[1]}")}
if [ -n "$FICHES" ]; then
  VECTORS=${VECTORS:-$(dirname "$FICHES")/vecteurs-local.safetensors}
  OUT=${OUT:-$(dirname "$FICHES")/runs}
fi
cd "$HERE/.."
OUT=${OUT:-target/engines/runs}
FICHES=${FICHES:-$PWD/data/fiches.jsonl} QUESTIONS=${QUESTIONS:-$PWD/data/questions.csv}
VECTORS=${VECTORS:-$PWD/data/vecteurs-local.safetensors}
for file in "$FICHES" "$QUESTIONS" "$VECTORS"; do
  [ -f "$file" ] || wrong "no file $file$([ "$file" = "$VECTORS" ] && echo ": the engines' dense runs need the local encoder's vectors of these fiches and questions (vecteurs --embedder local --fiches $FICHES --questions $QUESTIONS --out $VECTORS)")"
done
RAG_FICHES_FICHES=$FICHES RAG_FICHES_QUESTIONS=$QUESTIONS RAG_FICHES_VECTEURS_LOCAL=$VECTORS
export RAG_FICHES_FICHES RAG_FICHES_QUESTIONS RAG_FICHES_VECTEURS_LOCAL
say() { printf '[engines] %s\n' "$*" >&2; }
cannot() { say "cannot install $*"; exit 3; }

DIR=target/engines
VENV=$DIR/venv
# Pinned: the parity figures in engines/README.md are these versions'.
SQLITE_PACKAGES="sqlite-vec==0.1.9 pysqlite3-binary==0.5.4.post2"
POSTGRES_PACKAGES="pgserver==0.1.4 psycopg[binary]==3.2.3"
PYSERINI=0.23.0
mkdir -p "$DIR" "$OUT"
# One install into the venv at a time: the tests run these scripts in parallel, and two pip
# installs into one venv break each other (« Directory not empty »). The lock is let go before
# the work; an exit (`cannot`) lets it go too.
exec 9>"$DIR/venv.lock"
flock 9
if [ ! -x "$VENV/bin/python" ]; then
  say "making $VENV"
  python3 -m venv "$VENV" || cannot "a Python virtual environment (python3 -m venv; on Debian: apt-get install python3-venv)"
fi
flock -u 9
install() {
  flock 9
  if ! "$VENV/bin/python" -c "import $1" 2>/dev/null; then
    say "installing $2 from PyPI into $VENV"
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install --quiet $2 || cannot "$2 from PyPI"
  fi
  flock -u 9
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
  "$MESURER" "$method" --fiches "$FICHES" --questions "$QUESTIONS" --vecteurs-local "$VECTORS" \
    --run "$OUT/run-$run.txt" --comparer "$method" | sed -n '/^Parité/,$p'
done
