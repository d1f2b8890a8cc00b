#!/usr/bin/env bash
# Installs what building and serving need (the « serve » profile of setup.sh: no browser, no test
# tools), builds the page in release mode and serves it on http://127.0.0.1:${PORT:-8080}/
# (Ctrl-C stops it). The same dist/ works under any sub-path.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh serve
export PATH="$HOME/.cargo/bin:$PATH"
if wasm-opt --version >/dev/null 2>&1; then
  trunk build --release
else
  # No wasm-opt (it installs from npm, and node is absent): the same page, not size-optimised.
  unoptimised=www/.index-sans-wasm-opt.html
  sed 's/data-wasm-opt="z"/data-wasm-opt="0"/' www/index.html > "$unoptimised"
  trap 'rm -f "$unoptimised"' EXIT
  trunk build "$unoptimised" --release
  mv dist/.index-sans-wasm-opt.html dist/index.html 2>/dev/null || true
fi
PORT=${PORT:-8080}
echo "rag-fiches : http://127.0.0.1:$PORT/"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
