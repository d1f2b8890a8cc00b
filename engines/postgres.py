"""PostgreSQL with pgvector: the `french` text search configuration for keywords (Snowball's
French stemmer, its stop words), pgvector's cosine distance over the local encoder's vectors,
and their RRF in SQL (k = 60, ranks from 1, as pgvector's hybrid-search example and the lab do).

    python engines/postgres.py OUT_DIR

writes OUT_DIR/run-postgres-french.txt, run-postgres-pgvector.txt and run-postgres-hybride.txt.
The server (PostgreSQL and pgvector, from the `pgserver` wheel on PyPI) is started in a fresh
directory and stopped at the end; `psycopg` talks to it. engines/run.sh installs both.

PostgreSQL ranks text with ts_rank (term frequencies, no BM25): the figures measure that
difference too.
"""

import os
import sys
import tempfile

import pgserver
import psycopg

import commun

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(commun.ROOT, "target", "engines")
fiches, questions, vectors, question_vectors, dimension = commun.catalogue()
literal = lambda v: "[" + ",".join(repr(x) for x in v) + "]"

with tempfile.TemporaryDirectory(prefix="rag-fiches-pg-") as data:
    server = pgserver.get_server(data, cleanup_mode="stop")
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as db:
            print(db.execute("select version()").fetchone()[0], file=sys.stderr)
            db.execute("create extension if not exists vector")
            print("pgvector", db.execute("select extversion from pg_extension where extname = 'vector'").fetchone()[0], file=sys.stderr)
            db.execute(f"""create table fiches (
                id text primary key,
                texte text not null,
                mots tsvector generated always as (to_tsvector('french', texte)) stored,
                v vector({dimension}) not null)""")
            with db.cursor() as c:
                c.executemany("insert into fiches (id, texte, v) values (%s, %s, %s::vector)",
                              [(i, t, literal(vectors[i])) for i, t in fiches])
            # No index: every query scans the 200 fiches, exactly.
            KEYWORD = """select id, ts_rank(mots, q)::float8 from fiches, to_tsquery('french', %(q)s) q
                         where mots @@ q order by ts_rank(mots, q) desc limit %(n)s"""
            DENSE = """select id, 1 - (v <=> %(v)s::vector) from fiches
                       order by v <=> %(v)s::vector limit %(n)s"""
            HYBRID = """
              with mots as (select id, row_number() over (order by ts_rank(mots, q) desc) as r
                            from fiches, to_tsquery('french', %(q)s) q where mots @@ q
                            order by ts_rank(mots, q) desc limit %(n)s),
                   sens as (select id, row_number() over (order by v <=> %(v)s::vector) as r
                            from fiches order by v <=> %(v)s::vector limit %(n)s)
              select id, sum(1.0 / (60 + r))::float8 as total from (
                select id, r, 0 as list from mots union all select id, r, 1 as list from sens) both_lists
              group by id order by total desc, min(list * 1000 + r) limit %(depth)s"""
            runs = {"postgres-french": {}, "postgres-pgvector": {}, "postgres-hybride": {}}
            for (qid, text), qv in zip(questions, question_vectors):
                # Any of the question's words: to_tsquery stems them and drops the stop words.
                query = " | ".join(commun.words(text)) or "''"
                args = {"q": query, "v": literal(qv), "n": commun.FUSED, "depth": commun.DEPTH}
                runs["postgres-french"][qid] = db.execute(KEYWORD, args).fetchall()
                runs["postgres-pgvector"][qid] = db.execute(DENSE, args).fetchall()
                runs["postgres-hybride"][qid] = db.execute(HYBRID, args).fetchall()
    finally:
        server.cleanup()
for name, results in runs.items():
    commun.write_run(os.path.join(out, f"run-{name}.txt"), name, results)
