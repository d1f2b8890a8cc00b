#!/usr/bin/env bash
# Installs what rag-fiches needs, for one of two profiles, from the package registries only
# (crates.io, npm, Debian): no tool may download a prebuilt binary at run time.
#
#   bash scripts/setup.sh serve   build and serve the page: the Rust wasm target, wasm-bindgen-cli,
#                                 trunk, and wasm-opt (binaryen, from npm when node is there)
#   bash scripts/setup.sh test    all of that, plus what the three test rings need: chromium and
#                                 chromium-driver, firefox-esr, webkit2gtk-driver and xvfb (Debian),
#                                 geckodriver and wasm-pack (crates.io), node >= 20, the e2e packages,
#                                 Java for the Lucene recipe (Debian's openjdk-17-jre-headless)
#
# It checks every prerequisite first, in seconds, and stops at the first one missing with one
# sentence saying how to get it; then it says what it will install, where, what needs root, and how
# long it takes, before it starts. Idempotent: with everything present it only checks versions.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

PROFILE=${1:-test}
case "$PROFILE" in
  serve | test) ;;
  -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup.sh: unknown profile \"$PROFILE\": expected serve or test" >&2; exit 2 ;;
esac

say() { printf '[setup %s] %s\n' "$PROFILE" "$*"; }
stop() { printf '[setup %s] stopped: %s\n' "$PROFILE" "$*" >&2; exit 1; }
has() { command -v "$1" >/dev/null 2>&1; }
has_version() { has "$1" && "$1" --version 2>/dev/null | grep -qF "$2"; }

# The wasm-bindgen CLI must equal the library's version in Cargo.lock exactly.
WASM_BINDGEN=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
TRUNK=0.21.14       # newest that builds with rustc 1.95
WASM_PACK=0.15.1
GECKODRIVER=0.37.1  # wasm-pack test --firefox (ring 2); built from crates.io, never downloaded
# The engines besides Chromium (ring 2 and tests/e2e/browsers.test.mjs), and what drives them:
# Firefox ESR is driven by puppeteer-core over WebDriver BiDi, WebKitGTK's MiniBrowser by
# WebKitWebDriver under Xvfb (it has no headless mode; xvfb-run needs xauth).
ENGINE_PACKAGES="firefox-esr webkit2gtk-driver xvfb xauth"
engines_missing() { ! has firefox-esr || ! has WebKitWebDriver || ! has xvfb-run || ! has xauth; }
BINARYEN=132        # Debian's binaryen 108 writes a .wasm that fails at load: use npm's
NODE_MIN=20         # node --test --test-concurrency

# 1. Prerequisites: nothing is installed until all of them hold.
has cargo && has rustup ||
  stop "Rust is missing: install it with rustup (https://rustup.rs, or Debian's rustup package), then run this again."
has python3 ||
  stop "python3 is missing (the build's CSP hook and the static server use it): apt-get install python3."
node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
NODE_OK=false
if has node && has npm && [ "$(node_major)" -ge "$NODE_MIN" ]; then NODE_OK=true; fi
if [ "$PROFILE" = test ] && [ "$NODE_OK" = false ]; then
  found="no node"
  if has node; then found="node $(node --version 2>/dev/null)"; has npm || found="$found without npm"; fi
  stop "node >= $NODE_MIN and npm are needed by the end-to-end tests, found $found: on Debian 13, apt-get install nodejs npm; on Debian 12, nodejs 20 or later from NodeSource (deb.nodesource.com), then run this again."
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO=sudo
fi
need_root() { [ "$(id -u)" = 0 ] || has sudo || stop "$1 needs root: run as root or install sudo."; }

# 2. The plan: what is missing, where it goes, what needs root, how long it takes.
plan=()
minutes=0
rustup target list --installed | grep -qx wasm32-unknown-unknown || plan+=("the wasm32 Rust target (rustup, ~/.rustup, 1 min)")
for component in rustfmt clippy; do
  [ "$PROFILE" = test ] && ! rustup component list --installed | grep -q "^$component" &&
    plan+=("rustup component $component (~/.rustup, under 1 min)")
done
has_version wasm-bindgen "$WASM_BINDGEN" || { plan+=("wasm-bindgen-cli $WASM_BINDGEN (cargo install, ~/.cargo/bin, 3 min)"); minutes=$((minutes + 3)); }
has_version trunk "$TRUNK" || { plan+=("trunk $TRUNK (cargo install, ~/.cargo/bin, 9 min)"); minutes=$((minutes + 9)); }
WASM_OPT_OK=false
wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN\b" && WASM_OPT_OK=true
if [ "$WASM_OPT_OK" = false ] && [ "$NODE_OK" = true ]; then
  # `|| true`: without Debian's binaryen, dpkg fails, and under `set -e` a failing substitution
  # in an assignment ends the script silently.
  purge=$(dpkg -s binaryen >/dev/null 2>&1 && echo "; first apt-get purge binaryen, Debian's 108" || true)
  plan+=("binaryen $BINARYEN's wasm-opt (npm install -g, as root$purge, 1 min)")
  minutes=$((minutes + 1))
fi
if [ "$PROFILE" = test ]; then
  if ! has chromium || ! has chromedriver; then
    plan+=("chromium and chromium-driver (apt-get, as root, 2 min)"); minutes=$((minutes + 2))
  fi
  [ -f /usr/share/dict/french ] || plan+=("Debian's wfrench word list, to measure the local model's pruning (apt-get, as root, under 1 min)")
  has_version wasm-pack "$WASM_PACK" || { plan+=("wasm-pack $WASM_PACK (cargo install, ~/.cargo/bin, 3 min)"); minutes=$((minutes + 3)); }
  engines_missing && { plan+=("Firefox ESR, WebKitGTK's WebKitWebDriver and Xvfb: $ENGINE_PACKAGES (apt-get, as root, 1 min)"); minutes=$((minutes + 1)); }
  has_version geckodriver "$GECKODRIVER" || { plan+=("geckodriver $GECKODRIVER (cargo install, ~/.cargo/bin, 2 min)"); minutes=$((minutes + 2)); }
  has java || { plan+=("Java for the Lucene recipe: openjdk-17-jre-headless (apt-get, as root, 1 min)"); minutes=$((minutes + 1)); }
fi
if [ ${#plan[@]} -gt 0 ]; then
  say "will install (times measured on an idle 2-core machine; a busy one took three times longer):"
  for p in "${plan[@]}"; do say "  - $p"; done
  say "about $minutes minutes in all"
fi
if [ "$WASM_OPT_OK" = false ] && [ "$NODE_OK" = false ]; then
  say "wasm-opt (binaryen $BINARYEN) is absent and installs from npm, which needs node >= $NODE_MIN: the page will be built without it (larger, same behaviour)."
fi

# 3. The installs.
rustup target list --installed | grep -qx wasm32-unknown-unknown || {
  say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown; }
if [ "$PROFILE" = test ]; then
  for component in rustfmt clippy; do
    rustup component list --installed | grep -q "^$component" || rustup component add "$component"
  done
fi
has_version wasm-bindgen "$WASM_BINDGEN" || {
  say "installing wasm-bindgen-cli $WASM_BINDGEN"
  # No --locked: its own lockfile pins a crate version the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN"; }
has_version trunk "$TRUNK" || {
  say "installing trunk $TRUNK"
  cargo install trunk --version "$TRUNK" --locked; }
if [ "$WASM_OPT_OK" = false ] && [ "$NODE_OK" = true ]; then
  need_root "installing binaryen from npm globally"
  if dpkg -s binaryen >/dev/null 2>&1; then
    say "removing Debian's binaryen (as root)"; $SUDO apt-get purge -y -q binaryen; fi
  say "installing binaryen $BINARYEN (wasm-opt) from npm (as root)"
  $SUDO npm install -g --no-audit --no-fund "binaryen@$BINARYEN.0.0"
fi

if [ "$PROFILE" = test ]; then
  if ! has chromium || ! has chromedriver; then
    need_root "installing chromium"
    say "installing Debian's chromium and chromium-driver (as root)"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
  fi
  has_version wasm-pack "$WASM_PACK" || {
    say "installing wasm-pack $WASM_PACK"
    cargo install wasm-pack --version "$WASM_PACK" --locked; }
  if engines_missing; then
    need_root "installing Firefox ESR and WebKitGTK"
    say "installing Debian's $ENGINE_PACKAGES (as root)"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $ENGINE_PACKAGES
  fi
  has_version geckodriver "$GECKODRIVER" || {
    say "installing geckodriver $GECKODRIVER"
    cargo install geckodriver --version "$GECKODRIVER" --locked; }
  if ! has java; then
    need_root "installing Java for engines/lucene.py"
    say "installing Debian's openjdk-17-jre-headless (as root)"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends openjdk-17-jre-headless
  fi
  if [ ! -f /usr/share/dict/french ] && { [ "$(id -u)" = 0 ] || has sudo; }; then
    say "installing Debian's wfrench (as root)"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends wfrench ||
      say "wfrench could not be installed: the local model will be written whole"
  fi
  # The e2e packages (playwright-core, puppeteer-core, axe-core, MiniSearch…) at the lock's
  # versions; PUPPETEER_SKIP_DOWNLOAD: puppeteer drives Debian's Firefox, it downloads no browser.
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
    say "installing the end-to-end test packages (npm ci, in tests/e2e/node_modules): $stale"
    (cd tests/e2e && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi
fi
say "all tools present"
