#!/usr/bin/env bash
# Installs whatever is missing, builds the page in release mode and serves it on
# http://127.0.0.1:${PORT:-8080}/ (Ctrl-C stops it). The same dist/ works under any sub-path.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
trunk build --release
PORT=${PORT:-8080}
echo "rag-fiches : http://127.0.0.1:$PORT/"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
