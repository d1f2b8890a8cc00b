#!/usr/bin/env bash
# Installs whatever is missing to build, serve and test rag-fiches on a Debian 12 machine with
# rustup, from the package registries only (crates.io, npm, Debian): no tool may download a
# prebuilt binary at run time. Idempotent: with everything present it only checks versions.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

# The wasm-bindgen CLI must equal the library's version in Cargo.lock exactly.
WASM_BINDGEN=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
TRUNK=0.21.14       # newest that builds with rustc 1.95
WASM_PACK=0.15.1
BINARYEN=132        # Debian's binaryen 108 writes a .wasm that fails at load: use npm's

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
say() { printf '[setup] %s\n' "$*"; }
has_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -qF "$2"; }

rustup target list --installed | grep -qx wasm32-unknown-unknown || {
  say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown; }
for component in rustfmt clippy; do
  rustup component list --installed | grep -q "^$component" || rustup component add "$component"
done

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  say "installing Debian's chromium and chromium-driver"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
fi

has_version wasm-bindgen "$WASM_BINDGEN" || {
  say "installing wasm-bindgen-cli $WASM_BINDGEN (about 3 minutes)"
  # No --locked: its own lockfile pins a crate version the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN"; }
has_version wasm-pack "$WASM_PACK" || {
  say "installing wasm-pack $WASM_PACK (about 3 minutes)"
  cargo install wasm-pack --version "$WASM_PACK" --locked; }
has_version trunk "$TRUNK" || {
  say "installing trunk $TRUNK (about 9 minutes)"
  cargo install trunk --version "$TRUNK" --locked; }

if ! wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN\b"; then
  if dpkg -s binaryen >/dev/null 2>&1; then
    say "removing Debian's binaryen"; $SUDO apt-get purge -y -q binaryen; fi
  say "installing binaryen $BINARYEN (wasm-opt) from npm"
  $SUDO npm install -g --no-audit --no-fund "binaryen@$BINARYEN.0.0"
fi

# The e2e packages (playwright-core, and MiniSearch for the browser benchmark) at the lock's versions.
stale=$(node -e "
  const lock = require('./tests/e2e/package-lock.json').packages;
  const out = [];
  for (const [path, p] of Object.entries(lock)) {
    if (!path) continue;
    let v = '';
    try { v = require('./tests/e2e/' + path + '/package.json').version; } catch {}
    if (v !== p.version) out.push(path);
  }
  console.log(out.join(' '));")
if [ -n "$stale" ]; then
  say "installing the end-to-end test packages (npm ci): $stale"
  (cd tests/e2e && npm ci --no-audit --no-fund)
fi
say "all tools present"
