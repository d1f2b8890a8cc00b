#!/usr/bin/env python3
"""Trunk post-build hook: writes the page's Content-Security-Policy.

Trunk writes one inline module script (the loader of the wasm) and one inline style sheet
(www/style.css, inlined so that the first paint waits for no request), and www/index.html has one
inline classic script (the SIMD check and the first requests, among them the first module's wasm,
whose name this hook writes into it and into the loader); the policy allows exactly those
scripts and that sheet by their SHA-256 hashes, WebAssembly compilation ('wasm-unsafe-eval'), and network access only to
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
# The first module's wasm: asked for by the page's first script (FIRST_WASM), which every engine
# honours, instead of Trunk's <link rel="preload">, whose answer WebKit does not hand to the loader;
# the loader takes that request's answer.
# Its href is "./premier-…" or, built with --public-url, "/<repo>/premier-…".
preloads = re.findall(r'<link rel="preload" href="([^"]*premier-[0-9a-f]+_bg\.wasm)"[^>]*>', html)
if len(preloads) != 1:
    sys.exit(f"csp.py: expected one preload of the first module's wasm in {path}, found {len(preloads)}")
wasm = preloads[0]
html = re.sub(r'<link rel="preload" href="[^"]*premier-[0-9a-f]+_bg\.wasm"[^>]*>\n?', "", html)
if html.count("'FIRST_WASM'") != 1:
    sys.exit(f"csp.py: expected the first script's 'FIRST_WASM' in {path}")
html = html.replace("'FIRST_WASM'", f"'{wasm}'")
loader = f"init({{ module_or_path: '{wasm}' }})"
if html.count(loader) != 1:
    sys.exit(f"csp.py: expected the loader's {loader} in {path}")
html = html.replace(loader, f"init({{ module_or_path: window.ragFichesFetches?.take('{wasm}') ?? '{wasm}' }})")
scripts = re.findall(r"<script type=\"module\">(.*?)</script>", html, flags=re.S)
if len(scripts) != 1:
    sys.exit(f"csp.py: expected exactly one inline module script in {path}, found {len(scripts)}")
classic = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
if len(classic) != 1:
    sys.exit(f"csp.py: expected exactly one inline classic script in {path}, found {len(classic)}")
styles = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
if len(styles) != 1:
    sys.exit(f"csp.py: expected exactly one inline style sheet in {path}, found {len(styles)}")


def sha256(text):
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


digest = sha256(scripts[0])
first = sha256(classic[0])
connect = ["'self'", "https://api.mistral.ai"]
test_api = os.environ.get("RAG_FICHES_TEST_API_BASE")
if test_api:
    connect.append(test_api)
policy = "; ".join([
    "default-src 'self'",
    f"script-src 'self' 'sha256-{first}' 'sha256-{digest}' 'wasm-unsafe-eval'",
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
