"""nDCG@10, R@10 and Judged@10 of TREC runs against graded qrels, by ir_measures.

    python engines/mesures_graduees.py QRELS RUN [RUN...]

One line per run, measure and question: run, measure, qid, value (tab-separated). The run's name
is its file's, without its directory and extension.
"""
import os
import sys

import ir_measures
from ir_measures import Judged, R, nDCG

MEASURES = [nDCG @ 10, R @ 10, Judged @ 10]


def main(qrels_path, run_paths):
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    for path in run_paths:
        name = os.path.splitext(os.path.basename(path))[0]
        run = list(ir_measures.read_trec_run(path))
        for m in ir_measures.iter_calc(MEASURES, qrels, run):
            print(f"{name}\t{m.measure}\t{m.query_id}\t{m.value!r}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
