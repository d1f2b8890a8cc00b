"""What every recipe shares: the catalogue, the questions and the local encoder's vectors read
as the lab reads them, and TREC runs written as `mesurer --run` reads them.

The files are the exercise's (`data/`) unless engines/run.sh is given others: it passes them as
RAG_FICHES_FICHES, RAG_FICHES_QUESTIONS and RAG_FICHES_VECTEURS_LOCAL.

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


def given(variable, name):
    """The file run.sh was given for `variable`, else the exercise's `data/name`."""
    return os.environ.get(variable) or os.path.join(ROOT, "data", name)


def fiches(path=None):
    """[(id, texte)]: the seed indexes the fiche's `texte` alone."""
    with open(path or given("RAG_FICHES_FICHES", "fiches.jsonl"), encoding="utf-8") as f:
        return [(d["id"], d["texte"]) for d in map(json.loads, filter(str.strip, f))]


def questions(path=None):
    """[(qid, text)], qids q01, q02… in the file's order, as `mesurer --trec` writes them."""
    with open(path or given("RAG_FICHES_QUESTIONS", "questions.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    return [(f"q{i + 1:02}", r["question"]) for i, r in enumerate(rows)]


def local_vectors(path=None):
    """({fiche id: vector}, [question vector]): the local encoder's vectors (f16 in the file,
    read as Python floats), the fiches' in the order of the file's ids."""
    with open(path or given("RAG_FICHES_VECTEURS_LOCAL", "vecteurs-local.safetensors"), "rb") as f:
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
    return dict(zip(ids, rows("vectors"))), rows("questions") if "questions" in header else []


def refuse(why):
    """Stops the recipe as engines/run.sh does for a file that does not fit (status 2)."""
    print(why, file=sys.stderr)
    sys.exit(2)


def catalogue():
    """(fiches, questions, {fiche id: vector}, [question vector], dimension): the files every
    recipe ranks, refused (exit 2, with what to do) when the vectors are not the catalogue's."""
    listed, asked = fiches(), questions()
    vectors, question_vectors = local_vectors()
    where = given("RAG_FICHES_VECTEURS_LOCAL", "vecteurs-local.safetensors")
    missing = [i for i, _ in listed if i not in vectors]
    if missing or len(vectors) != len(listed):
        refuse(
            f"{where}: its {len(vectors)} vectors are not the {len(listed)} fiches' "
            f"({len(missing)} fiches without a vector, first {missing[:1]}): make them with "
            "vecteurs --embedder local --fiches FICHES --questions QUESTIONS --out VECTORS"
        )
    if len(question_vectors) != len(asked):
        refuse(
            f"{where}: it holds {len(question_vectors)} question vectors for {len(asked)} questions: "
            "make them with vecteurs --embedder local --fiches FICHES --questions QUESTIONS --out VECTORS"
        )
    dimension = len(next(iter(vectors.values())))
    return listed, asked, vectors, question_vectors, dimension


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
