#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 120), seeded with the bundled data, and
# prints how many inputs each executed. Needs cargo-fuzz (cargo install cargo-fuzz --locked); on a
# stable toolchain the sanitizer flags need RUSTC_BOOTSTRAP=1. Crashes land in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-120}
export RUSTC_BOOTSTRAP=1
mkdir -p fuzz/corpus/{fiches,questions,vectors,npy,analysers,fusion}
head -c 4000 data/fiches.jsonl > fuzz/corpus/fiches/seed.jsonl
cp data/questions.csv fuzz/corpus/questions/seed.csv
head -c 2000 data/fiches.jsonl > fuzz/corpus/analysers/seed.txt
printf '\x01\x02\x03\x04\x05\x03\x02\x01' > fuzz/corpus/fusion/seed.bin
cargo run --quiet --release --bin vecteurs -- --embedder fake --fiches <(head -n 3 data/fiches.jsonl) \
  --out fuzz/corpus/vectors/seed.safetensors > /dev/null
python3 - <<'PY'
import struct
rows = [[0.5, 0.5, 0.5, 0.5], [1.0, 0.0, 0.0, 0.0]]
header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }"
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open("fuzz/corpus/npy/seed.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    for r in rows:
        f.write(struct.pack("<4d", *r))
PY
for target in fiches questions vectors npy analysers fusion; do
  out=$(cargo fuzz run -O "$target" "fuzz/corpus/$target" -- -max_total_time="$SECONDS_PER_TARGET" 2>&1 | tail -n 40)
  runs=$(printf '%s\n' "$out" | grep -oE 'Done [0-9]+ runs' | tail -n 1)
  echo "$target: ${runs:-no summary} in ${SECONDS_PER_TARGET}s"
done
