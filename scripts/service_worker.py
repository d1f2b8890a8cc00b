#!/usr/bin/env python3
"""Trunk post-build hook: writes into the build's sw.js (www/sw.js) what it keeps.

VERSION: the first 16 hex digits of the SHA-256 of every file of the build (names and bytes),
but sw.js itself and the model's blocks (data/modele-local/lignes/, pinned by the head, whose hash
data/manifeste.json names): any change to a deployed file makes a new service worker, which
replaces the previous build's cache whole. SHELL: the files the page loads at start, kept at
install. IF_USED: the local encoder's worker files, the web app manifest, the icons and the data
fetched on demand, kept once the page fetches them under the service worker.
"""
import hashlib
import json
import os
import sys

root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[1] if len(sys.argv) > 1 else "dist")
blocks = os.path.join("data", "modele-local", "lignes")
digest = hashlib.sha256()
files = []
for here, dirs, names in os.walk(root):
    dirs.sort()
    for name in sorted(names):
        path = os.path.relpath(os.path.join(here, name), root)
        if path == "sw.js" or path.startswith(blocks + os.sep):
            continue
        files.append(path.replace(os.sep, "/"))
for path in sorted(files):
    digest.update(path.encode() + b"\0")
    with open(os.path.join(root, path), "rb") as f:
        digest.update(hashlib.sha256(f.read()).digest())

first = [f for f in files if f.startswith("premier-") and f.endswith((".js", "_bg.wasm"))]
if len(first) != 2:
    sys.exit(f"service_worker.py: expected the first module's .js and _bg.wasm in {root}, found {first}")
shell = ["./", *first, "rag-fiches.js", "rag-fiches_bg.wasm", "data/manifeste.json", "data/fiches.jsonl",
         "data/questions.csv"]
shell += [f for f in files if f.startswith("snippets/")]
with open(os.path.join(root, "data", "manifeste.json"), encoding="utf-8") as f:
    local = json.load(f).get("vecteurs_local")
if local:
    shell.append(f"data/{local}")
missing = [f for f in shell if f != "./" and f not in files]
if missing:
    sys.exit(f"service_worker.py: files the page loads at start are not in {root}: {missing}")
# Data the page fetches when a view needs it (Mistral's vectors, the shipped answers), but not the
# model's head and blocks, which the page keeps itself.
if_used = [f for f in files if f.startswith(("encodeur", "icone")) or f == "site.webmanifest"
           or (f.startswith("data/") and f not in shell and not f.startswith("data/modele-local/"))]

path = os.path.join(root, "sw.js")
text = open(path, encoding="utf-8").read()
for marker, value in [("'VERSION'", json.dumps(digest.hexdigest()[:16])), ("['SHELL']", json.dumps(shell)),
                      ("['IF_USED']", json.dumps(if_used))]:
    if text.count(marker) != 1:
        sys.exit(f"service_worker.py: expected one {marker} in {path}")
    text = text.replace(marker, value)
open(path, "w", encoding="utf-8").write(text)
