//! What a difference between two methods on the same questions is worth: the mean difference
//! with a 95 % paired bootstrap interval, the paired t-test, an effect size, the smallest
//! difference these questions can detect and the questions a chosen difference would need; and
//! Holm's correction when many pairs are compared at once.
//!
//! The t distribution is computed here (the regularised incomplete beta function, Lentz's
//! continued fraction; `ln Γ` by Lanczos): `tests/stats.rs` checks the p-values against scipy's
//! `ttest_rel` and the corrected ones against statsmodels' `multipletests(method="holm")`.

use serde::Serialize;

/// Resamples of the bootstrap.
pub const RESAMPLES: usize = 10_000;
/// Its seed (xorshift64*), fixed: the page and the terminal print the same interval.
pub const SEED: u64 = 0x005E_ED0F_B007_5742;
/// The test's level, and the power the detectable difference is computed for.
pub const ALPHA: f64 = 0.05;
pub const POWER: f64 = 0.8;

/// Two methods compared question by question (`b − a` for each question).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairStats {
    /// Questions compared.
    pub n: usize,
    /// The mean difference.
    pub delta: f64,
    /// Its 95 % paired bootstrap interval (percentile, [`RESAMPLES`] resamples, [`SEED`]).
    pub ci: (f64, f64),
    /// The two-sided paired t-test's p-value (1 when every difference is the same).
    pub t_p: f64,
    /// The two-sided paired randomisation test's p-value ([`randomisation_test`]).
    pub randomisation_p: f64,
    /// Whether it enumerated every sign pattern (else [`DRAWS`] drawn from a fixed seed).
    pub randomisation_exact: bool,
    /// Cohen's d_z: the mean difference over the differences' standard deviation (0 when it is 0).
    pub effect: f64,
    /// The differences' standard deviation (n − 1).
    pub sd: f64,
    /// The smallest mean difference a paired t-test on `n` questions with this standard deviation
    /// detects with [`POWER`] at [`ALPHA`] (`None` below 2 questions or with no spread).
    pub detectable: Option<f64>,
}

/// The reciprocal ranks (MRR@10's terms: 0 beyond the tenth) of `m`'s questions of `kind`.
pub fn reciprocal_ranks(
    m: &crate::measure::Measurement,
    kind: crate::data::QuestionKind,
) -> Vec<f64> {
    m.questions
        .iter()
        .filter(|q| q.kind == kind)
        .map(|q| {
            q.rank
                .filter(|&r| r <= crate::measure::DEPTH)
                .map_or(0.0, |r| 1.0 / r as f64)
        })
        .collect()
}

/// `b − a`, question by question, summed up. `a` and `b` are the same questions' values.
pub fn paired(a: &[f64], b: &[f64]) -> PairStats {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    differences(&d)
}

/// Per-question differences `d`, summed up (as [`paired`] does of `b − a`).
pub fn differences(d: &[f64]) -> PairStats {
    let n = d.len();
    let delta = mean(d);
    let sd = sd(d);
    let (randomisation_p, randomisation_exact) = randomisation_test(d);
    PairStats {
        n,
        delta,
        ci: bootstrap_ci(d),
        t_p: t_test(d),
        randomisation_p,
        randomisation_exact,
        effect: if sd > 0.0 { delta / sd } else { 0.0 },
        sd,
        detectable: detectable(n, sd),
    }
}

/// The mean of per-question differences, as [`PairStats::delta`] is computed.
pub fn differences_mean(d: &[f64]) -> f64 {
    mean(d)
}

fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    x.iter().sum::<f64>() / x.len() as f64
}

/// The sample standard deviation (n − 1; 0 below two values).
fn sd(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return 0.0;
    }
    let m = mean(x);
    (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64).sqrt()
}

/// The two-sided paired t-test on differences `d`.
pub fn t_test(d: &[f64]) -> f64 {
    let n = d.len();
    let s = sd(d);
    if n < 2 || s == 0.0 {
        return if mean(d) == 0.0 || n < 2 { 1.0 } else { 0.0 };
    }
    let t = mean(d) / (s / (n as f64).sqrt());
    two_sided_t(t, (n - 1) as f64)
}

/// `P(|T| ≥ |t|)` for Student's t with `df` degrees of freedom.
pub fn two_sided_t(t: f64, df: f64) -> f64 {
    incomplete_beta(df / (df + t * t), df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// `P(T ≤ t)`.
fn t_cdf(t: f64, df: f64) -> f64 {
    let tail = two_sided_t(t, df) / 2.0;
    if t >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The `p` quantile of Student's t with `df` degrees of freedom (bisection, to 1e-12).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (-1e3, 1e3);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 {
            break;
        }
    }
    (lo + hi) / 2.0
}

/// The smallest mean difference a two-sided paired t-test at [`ALPHA`] detects with [`POWER`] on
/// `n` questions whose differences have standard deviation `sd`: `(t₁₋α/₂ + t_power) · sd / √n`,
/// both quantiles with n − 1 degrees of freedom (the usual approximation of the noncentral t).
pub fn detectable(n: usize, sd: f64) -> Option<f64> {
    if n < 2 || sd <= 0.0 {
        return None;
    }
    let df = (n - 1) as f64;
    Some((t_quantile(1.0 - ALPHA / 2.0, df) + t_quantile(POWER, df)) * sd / (n as f64).sqrt())
}

/// The fewest questions for which [`detectable`] is at most `delta`, with differences of standard
/// deviation `sd` (`None` when `delta` is not positive, there is no spread, or it would take more
/// than a million).
pub fn questions_needed(sd: f64, delta: f64) -> Option<usize> {
    if delta <= 0.0 || sd <= 0.0 {
        return None;
    }
    let fits = |n: usize| detectable(n, sd).is_some_and(|d| d <= delta);
    let mut hi = 2;
    while !fits(hi) {
        hi *= 2;
        if hi > 1 << 20 {
            return None;
        }
    }
    let mut lo = hi / 2;
    // The smallest n in (lo, hi] that fits.
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The 95 % percentile interval of the mean of `d` over [`RESAMPLES`] resamples with
/// replacement, drawn from [`SEED`]; the quantiles interpolated as numpy's `percentile` does.
pub fn bootstrap_ci(d: &[f64]) -> (f64, f64) {
    let n = d.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mut state = SEED;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let sum: f64 = (0..n)
                .map(|_| d[(((next() >> 32) * n as u64) >> 32) as usize])
                .sum();
            sum / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    (percentile(&means, 2.5), percentile(&means, 97.5))
}

/// The `q` percentile of sorted `x`, linear between neighbours (numpy's default).
fn percentile(x: &[f64], q: f64) -> f64 {
    let h = (x.len() - 1) as f64 * q / 100.0;
    let (i, frac) = (h.floor() as usize, h - h.floor());
    match x.get(i + 1) {
        Some(next) => x[i] + (next - x[i]) * frac,
        None => x[i],
    }
}

/// Non-zero differences up to which every sign pattern is enumerated (4,096 patterns).
pub const EXACT_UP_TO: usize = 12;
/// Patterns drawn beyond.
pub const DRAWS: u32 = 10_000;

/// Two-sided paired randomisation test on differences `d` (zeros left out): the share of sign
/// patterns whose sum is at least as far from 0 as the observed one. Exact (every pattern) up to
/// [`EXACT_UP_TO`] non-zero differences; beyond, [`DRAWS`] patterns from a fixed seed, so the page and the
/// terminal print the same p. Returns `(p, exact)`.
pub fn randomisation_test(d: &[f64]) -> (f64, bool) {
    let d: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    if d.is_empty() {
        return (1.0, true);
    }
    let observed: f64 = d.iter().sum::<f64>().abs();
    // Sums are compared with a little slack: the same set of values summed in another order.
    let at_least = |s: f64| s.abs() >= observed - 1e-12;
    let n = d.len();
    if n <= EXACT_UP_TO {
        let mut count = 0u64;
        for pattern in 0u32..(1 << n) {
            let s: f64 = d
                .iter()
                .enumerate()
                .map(|(i, x)| if pattern >> i & 1 == 1 { -x } else { *x })
                .sum();
            if at_least(s) {
                count += 1;
            }
        }
        return (count as f64 / f64::from(1u32 << n), true);
    }
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut count = 1u32; // the observed pattern itself
    for _ in 0..DRAWS {
        let mut bits = 0u64;
        let mut s = 0.0;
        for (i, x) in d.iter().enumerate() {
            if i % 64 == 0 {
                bits = next();
            }
            s += if bits >> (i % 64) & 1 == 1 { -x } else { *x };
        }
        if at_least(s) {
            count += 1;
        }
    }
    (f64::from(count) / f64::from(DRAWS + 1), false)
}

/// Holm's step-down correction of `p` (in the order given).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        running = running.max(((m - k) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// `ln Γ(x)` for x > 0 (Lanczos, g = 7, 9 coefficients).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised incomplete beta function `I_x(a, b)`.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The continued fraction converges fast for x < (a + 1) / (a + b + 2); else by symmetry.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // Two terms per step, even then odd, each one Lentz update of `c` and `d`.
        let mut term = |aa: f64| {
            d = 1.0 + aa * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + aa / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            d * c
        };
        h *= term(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = term(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_t_distribution_gives_its_table_values() {
        // Two-sided 5 % critical values: 12.706 (1 df), 2.262 (9), 2.0227 (39), 1.96 (normal).
        for (df, t) in [
            (1.0, 12.706_204_736),
            (9.0, 2.262_157_163),
            (39.0, 2.022_690_901),
        ] {
            assert!((two_sided_t(t, df) - 0.05).abs() < 1e-8, "{df}");
            assert!((t_quantile(0.975, df) - t).abs() < 1e-7, "{df}");
        }
        assert!((t_quantile(0.8, 1e6) - 0.841_621_234).abs() < 1e-5);
        assert_eq!(two_sided_t(0.0, 5.0), 1.0);
    }

    #[test]
    fn a_pair_of_identical_methods_differs_by_nothing() {
        let a = [1.0, 0.5, 0.0, 0.25];
        let s = paired(&a, &a);
        assert_eq!(
            (s.delta, s.ci, s.t_p, s.effect),
            (0.0, (0.0, 0.0), 1.0, 0.0)
        );
        assert_eq!(s.detectable, None);
    }

    #[test]
    fn the_bootstrap_interval_holds_the_mean_and_narrows_with_more_questions() {
        let a: Vec<f64> = (0..40).map(|i| f64::from(i % 3) / 2.0).collect();
        let b: Vec<f64> = (0..40)
            .map(|i| f64::from((i + 1) % 3) / 2.0 + 0.05)
            .collect();
        let s = paired(&a, &b);
        assert!(s.ci.0 < s.delta && s.delta < s.ci.1, "{s:?}");
        let (a4, b4) = (a.repeat(4), b.repeat(4));
        let s4 = paired(&a4, &b4);
        assert!((s4.delta - s.delta).abs() < 1e-12);
        assert!(s4.ci.1 - s4.ci.0 < s.ci.1 - s.ci.0);
        // Four times the questions: half the detectable difference, about.
        let ratio = s4.detectable.unwrap() / s.detectable.unwrap();
        assert!((ratio - 0.5).abs() < 0.03, "{ratio}");
        // And the questions needed for that difference are about four times as many.
        let needed = questions_needed(s.sd, s4.detectable.unwrap()).unwrap();
        assert!((150..=170).contains(&needed), "{needed}");
        assert_eq!(questions_needed(s.sd, s.detectable.unwrap()), Some(40));
    }

    #[test]
    fn holm_multiplies_the_smallest_by_the_count_and_keeps_the_order() {
        assert_eq!(holm(&[0.01, 0.04, 0.03]), vec![0.03, 0.06, 0.06]);
        assert_eq!(holm(&[0.5, 0.9]), vec![1.0, 1.0]);
        assert_eq!(holm(&[]), Vec::<f64>::new());
    }
}
