"""What every recipe shares: the catalogue, the questions and the shipped local vectors read
as the lab reads them, and TREC runs written as `mesurer --run` reads them.

Standard library only: each recipe adds its engine's package.
"""

import csv
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The lab's depth: RRF fuses each method's first 50, and a run holds the first 10.
FUSED = 50
DEPTH = 10


def fiches(path=os.path.join(ROOT, "data", "fiches.jsonl")):
    """[(id, texte)]: the seed indexes the fiche's `texte` alone."""
    with open(path, encoding="utf-8") as f:
        return [(d["id"], d["texte"]) for d in map(json.loads, filter(str.strip, f))]


def questions(path=os.path.join(ROOT, "data", "questions.csv")):
    """[(qid, text)], qids q01, q02… in the file's order, as `mesurer --trec` writes them."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    return [(f"q{i + 1:02}", r["question"]) for i, r in enumerate(rows)]


def local_vectors(path=os.path.join(ROOT, "data", "vecteurs-local.safetensors")):
    """({fiche id: vector}, [question vector]): the local encoder's shipped vectors (f16 in the
    file, read as Python floats), the fiches' in the order of the file's ids."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = header["__metadata__"]

    def rows(name):
        t = header[name]
        start, end = t["data_offsets"]
        count, dim = t["shape"]
        flat = struct.unpack(f"<{count * dim}e", data[8 + n + start : 8 + n + end])
        return [list(flat[i * dim : (i + 1) * dim]) for i in range(count)]

    ids = json.loads(meta["ids"])
    return dict(zip(ids, rows("vectors"))), rows("questions")


def topic_line(qid, text):
    """One line of a TSV topics file (Anserini's TsvString): the question's tabs and line breaks,
    which would end its field or its line, become spaces (separators to every analyser here)."""
    flat = re.sub("[\t\n\r\v\f\x85\u2028\u2029]", " ", text)
    return qid + "\t" + flat + "\n"


def rrf(lists, k=60.0, base=1):
    """Reciprocal Rank Fusion of ranked id lists: sum of 1 / (k + rank), ranks from `base`, each
    list's first FUSED. The lab's is k = 60 from 1, equal totals in the order fiches were first
    met (the first list first), as the seed's is."""
    total = {}
    for ranked in lists:
        for i, doc in enumerate(ranked[:FUSED]):
            total[doc] = total.get(doc, 0.0) + 1.0 / (k + i + base)
    # Python's sort is stable and dicts keep insertion order: first met first among equals.
    return sorted(total.items(), key=lambda x: -x[1])[:DEPTH]


def write_run(path, name, results):
    """`results`: {qid: [(fiche id, score)]}, best first; at most DEPTH lines per question."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for qid in sorted(results):
            for rank, (doc, score) in enumerate(results[qid][:DEPTH], 1):
                out.write(f"{qid} Q0 {doc} {rank} {score!r} {name}\n")
    print(f"{path}: {sum(min(len(r), DEPTH) for r in results.values())} lines", file=sys.stderr)


def words(text):
    """The question's words for an engine's OR query: letters and digits, lowercased."""
    import re

    return re.findall(r"\w+", text.lower())


# The seed's `mots` (seeds/000, « Mesurer les mots »): its stop words and its tokens, so that an
# engine fed these tokens ranks with BM25 alone, not with its own analysis.
SEED_STOP_WORDS = set(
    "le la les un une des de du d l à au aux et ou en pour par sur sous avec sans dans "
    "il elle on me mon ma mes vous nous quel quelle quels quelles que qui quoi comment "
    "est sont faut faire mettre avez avoir y a ne pas plus".split()
)


def seed_tokens(text):
    import re

    return [m for m in re.findall(r"[a-zà-öø-ÿ0-9]+", text.lower()) if m not in SEED_STOP_WORDS]
