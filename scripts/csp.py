#!/usr/bin/env python3
"""Trunk post-build hook: writes the page's Content-Security-Policy.

Trunk writes one inline module script (the loader of the wasm) and one inline style sheet
(www/style.css, inlined so that the first paint waits for no request); the policy allows exactly
that script and that sheet by their SHA-256 hashes, WebAssembly compilation ('wasm-unsafe-eval'), and network access only to
the page's own origin and https://api.mistral.ai (plus the local mock's origin in the test build,
whose API base is fixed at compile time by RAG_FICHES_TEST_API_BASE).
"""
import base64
import hashlib
import os
import re
import sys

path = os.path.join(os.environ.get("TRUNK_STAGING_DIR", sys.argv[1] if len(sys.argv) > 1 else "dist"), "index.html")
html = open(path, encoding="utf-8").read()
scripts = re.findall(r"<script type=\"module\">(.*?)</script>", html, flags=re.S)
if len(scripts) != 1:
    sys.exit(f"csp.py: expected exactly one inline module script in {path}, found {len(scripts)}")
styles = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
if len(styles) != 1:
    sys.exit(f"csp.py: expected exactly one inline style sheet in {path}, found {len(styles)}")


def sha256(text):
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


digest = sha256(scripts[0])
connect = ["'self'", "https://api.mistral.ai"]
test_api = os.environ.get("RAG_FICHES_TEST_API_BASE")
if test_api:
    connect.append(test_api)
policy = "; ".join([
    "default-src 'self'",
    f"script-src 'self' 'sha256-{digest}' 'wasm-unsafe-eval'",
    f"connect-src {' '.join(connect)}",
    "img-src 'self' data:",
    f"style-src 'sha256-{sha256(styles[0])}'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
])
marker = 'content="CSP"'
if html.count(marker) != 1:
    sys.exit(f"csp.py: expected one Content-Security-Policy meta with content=\"CSP\" in {path}")
open(path, "w", encoding="utf-8").write(html.replace(marker, f'content="{policy}"'))
