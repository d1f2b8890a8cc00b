"""SQLite: FTS5's BM25 for keywords, sqlite-vec for the local encoder's vectors, and their RRF
in SQL (k = 60, ranks from 1, as sqlite-vec's hybrid-search example and the lab do).

    python engines/sqlite.py OUT_DIR

writes OUT_DIR/run-sqlite-fts5.txt, run-sqlite-vec.txt and run-sqlite-hybride.txt. SQLite
with FTS5 and extension loading comes from pysqlite3-binary (a Python's own sqlite3 may have
neither: pyenv's cannot load extensions), sqlite-vec from PyPI: engines/run.sh installs both.
"""

import os
import struct
import sys

import pysqlite3 as sqlite3

import sqlite_vec

import commun

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(commun.ROOT, "target", "engines")
fiches, questions, vectors, question_vectors, dimension = commun.catalogue()

db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
sqlite_vec.load(db)
db.enable_load_extension(False)
print(f"SQLite {sqlite3.sqlite_version}, sqlite-vec {db.execute('select vec_version()').fetchone()[0]}", file=sys.stderr)

# FTS5's BM25 is fixed at k1 = 1.2, b = 0.75; unicode61 lowercases and, with
# remove_diacritics 2, folds accents; no stemming, no stop words.
db.execute("create virtual table mots using fts5(id unindexed, texte, tokenize = 'unicode61 remove_diacritics 2')")
db.executemany("insert into mots(id, texte) values (?, ?)", fiches)
db.execute(f"create virtual table sens using vec0(id text primary key, v float[{dimension}] distance_metric=cosine)")
f32 = lambda v: struct.pack(f"<{len(v)}f", *v)
db.executemany("insert into sens(id, v) values (?, ?)", [(i, f32(vectors[i])) for i, _ in fiches])

KEYWORD = """select id, -bm25(mots) from mots where mots match ? order by bm25(mots) limit ?"""
DENSE = """select id, 1 - distance from sens where v match ? and k = ? order by distance"""
# The hybrid in one query: each list's rank by row_number(), from 1.
HYBRID = f"""
with motscles as (select id, row_number() over (order by bm25(mots)) as r
              from mots where mots match :q order by bm25(mots) limit {commun.FUSED}),
     proches as (select id, row_number() over (order by distance) as r
              from sens where v match :v and k = {commun.FUSED})
select id, sum(p) as total from (
  select id, 1.0 / (60 + r) as p, 0 as list, r from motscles
  union all
  select id, 1.0 / (60 + r) as p, 1 as list, r from proches)
group by id order by total desc, min(list * 1000 + r) limit {commun.DEPTH}
"""

runs = {"sqlite-fts5": {}, "sqlite-vec": {}, "sqlite-hybride": {}}
for (qid, text), qv in zip(questions, question_vectors):
    # Every word quoted (FTS5's syntax never sees the question's punctuation), any of them.
    match = " OR ".join(f'"{w}"' for w in commun.words(text))
    keyword = db.execute(KEYWORD, (match, commun.FUSED)).fetchall() if match else []
    runs["sqlite-fts5"][qid] = keyword
    runs["sqlite-vec"][qid] = db.execute(DENSE, (f32(qv), commun.FUSED)).fetchall()
    if match:
        runs["sqlite-hybride"][qid] = db.execute(HYBRID, {"q": match, "v": f32(qv)}).fetchall()
    else:
        runs["sqlite-hybride"][qid] = commun.rrf([[], [d for d, _ in runs["sqlite-vec"][qid]]])
for name, results in runs.items():
    commun.write_run(os.path.join(out, f"run-{name}.txt"), name, results)
