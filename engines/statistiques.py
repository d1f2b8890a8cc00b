"""The references for measure::stats (see statistiques.sh): reads pairs of per-question values and
p-values on stdin, prints scipy's and statsmodels' figures for them as JSON."""
import json
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

data = json.load(sys.stdin)
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
