"""The references for measure::stats (see statistiques.sh). Reads on stdin either pairs of
per-question values and p-values, confusion tables of two judges' grades (`confusions`: Cohen's
weighted kappa), or the whole of `mesurer --all --json`, whose pairs it computes
again from the methods' ranks alone; prints scipy's and statsmodels' figures as JSON."""
import json
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

DEPTH = 10
MEASURES = {
    "MRR@10": lambda r: 0.0 if r is None or r > DEPTH else 1.0 / r,
    "hit@1": lambda r: float(r is not None and r <= 1),
    "hit@5": lambda r: float(r is not None and r <= 5),
}


def randomisation_p(d):
    """scipy's paired permutation test (every sign pattern when there are at most 2**16)."""
    d = d[d != 0]
    if len(d) < 2:
        # Both signs of one difference are as far from 0 as it: p = 1 (scipy wants two).
        return 1.0
    res = stats.permutation_test((d,), np.mean, permutation_type="samples",
                                 n_resamples=min(2 ** len(d), 2 ** 16) if len(d) <= 16 else 20_000,
                                 alternative="two-sided", random_state=np.random.default_rng(1))
    return float(res.pvalue)


def export(data):
    """Every pair of the export's methods, as the lab should compute it."""
    methods = data["methods"]
    out = []
    for kind in ("exacte", "courante"):
        rows = [[q["rank"] for q in m["questions"] if q["type"] == kind] for m in methods]
        if not rows or not rows[0]:
            continue
        pairs = [(i, j) for i in range(len(methods)) for j in range(i + 1, len(methods))]
        by_measure = {}
        for name, value in MEASURES.items():
            v = [np.array([value(r) for r in row]) for row in rows]
            figures = []
            for i, j in pairs:
                d = v[i] - v[j]
                same = bool(np.all(d == d[0]))
                t_p = 1.0 if same and d[0] == 0 else float(stats.ttest_rel(v[i], v[j]).pvalue)
                figures.append({"delta": float(np.mean(d)), "t_p": t_p,
                                "randomisation_p": randomisation_p(d)})
            holm = multipletests([f["t_p"] for f in figures], method="holm")[1]
            for f, h in zip(figures, holm):
                f["t_p_holm"] = float(h)
            by_measure[name] = figures
        for k, (i, j) in enumerate(pairs):
            out.append({"a": methods[i]["method"], "b": methods[j]["method"], "type": kind,
                        "gaps": {name: by_measure[name][k] for name in MEASURES}})
    return out


data = json.load(sys.stdin)
if "confusions" in data:
    # Cohen's kappa with linear weights, as statsmodels computes it from a confusion table.
    from statsmodels.stats.inter_rater import cohens_kappa
    json.dump({"kappa": [float(cohens_kappa(np.asarray(t, dtype=float), wt="linear").kappa)
                         for t in data["confusions"]]}, sys.stdout)
    sys.exit(0)
if "methods" in data:
    json.dump({"pairs": export(data)}, sys.stdout)
    sys.exit(0)
out = {"pairs": []}
for a, b in data["pairs"]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = b - a
    t = stats.ttest_rel(b, a)
    boot = stats.bootstrap((d,), np.mean, n_resamples=10_000, confidence_level=0.95,
                           method="percentile", random_state=np.random.default_rng(1))
    sd = float(np.std(d, ddof=1))
    effect = TTestPower().solve_power(effect_size=None, nobs=len(d), alpha=0.05, power=0.8,
                                      alternative="two-sided")
    out["pairs"].append({
        "t_p": float(t.pvalue),
        "ci": [float(boot.confidence_interval.low), float(boot.confidence_interval.high)],
        "detectable": float(effect) * sd,
    })
out["holm"] = [float(p) for p in multipletests(data["p"], method="holm")[1]]
json.dump(out, sys.stdout)
