"""Regenerates tests/golden/mots-top10.json with the seed's own bm25.py (Meridal, MIT), verbatim
below but for reading the files from data/ and returning raw (unrounded) scores.

Run from the repository root: python3 tests/golden/make_golden.py > tests/golden/mots-top10.json
"""
import csv
import json
import math
import re
from collections import Counter

VIDES = set("le la les un une des de du d l à au aux et ou en pour par sur sous avec sans dans "
            "il elle on me mon ma mes vous nous quel quelle quels quelles que qui quoi comment "
            "est sont faut faire mettre avez avoir y a ne pas plus".split())

def mots(texte):
    return [m for m in re.findall(r"[a-zà-öø-ÿ0-9]+", texte.lower()) if m not in VIDES]

FICHES = [json.loads(l) for l in open("data/fiches.jsonl", encoding="utf-8")]
DOCS = [mots(f["texte"]) for f in FICHES]
N = len(DOCS)
MOYENNE = sum(len(d) for d in DOCS) / N
DF = Counter(m for d in DOCS for m in set(d))
TF = [Counter(d) for d in DOCS]

def chercher(question, k=5, k1=1.5, b=0.75):
    scores = []
    for i, d in enumerate(DOCS):
        s = 0.0
        for m in mots(question):
            if m in TF[i]:
                idf = math.log(1 + (N - DF[m] + 0.5) / (DF[m] + 0.5))
                f = TF[i][m]
                s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(d) / MOYENNE))
        scores.append((s, FICHES[i]["id"]))
    scores.sort(reverse=True)
    return [(fid, s) for s, fid in scores[:k]]

questions = list(csv.DictReader(open("data/questions.csv", encoding="utf-8"), delimiter=";"))
rows = [json.dumps({"question": q["question"], "top": chercher(q["question"], 10)}, ensure_ascii=False)
        for q in questions]
print("[\n" + ",\n".join(rows) + "\n]")
