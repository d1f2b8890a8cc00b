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
PLAYWRIGHT=$(node -p "require('./tests/e2e/package-lock.json').packages['node_modules/playwright-core'].version")

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

installed=$(node -p "try { require('./tests/e2e/node_modules/playwright-core/package.json').version } catch { '' }")
if [ "$installed" != "$PLAYWRIGHT" ]; then
  say "installing playwright-core $PLAYWRIGHT for the end-to-end tests"
  (cd tests/e2e && npm ci --no-audit --no-fund)
fi
say "all tools present"
