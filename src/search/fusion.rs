//! Reciprocal Rank Fusion (method `hybride`), as the seed's `chercher_hybride` computes it:
//!
//! ```text
//! points(d) = Σ over the lists where d appears  1 / (k + rank(d))      ranks counted from 1
//! ```
//!
//! with k = 60 (Cormack et al.'s constant) over the top 50 of each list. A fiche absent from a
//! list gets nothing from it. Sums run in list order, and equal points keep the order in which the
//! fiches were first met (the keyword list first, by rank, then the dense list), as Python's stable
//! `sorted` on a dict does.

use serde::{Deserialize, Serialize};

/// The RRF constant. Default 60: larger values flatten the gap between rank 1 and rank 10, smaller
/// ones let a single list's top ranks dominate.
pub const RRF_K: f64 = 60.0;
/// How many results of each list are fused. Default 50 (the seed's).
pub const RRF_DEPTH: usize = 50;

/// The largest depth a fusion can be asked to read (« Améliorer »'s depth slider goes this far).
pub const MAX_FUSION_DEPTH: usize = 100;

/// The points one list gives a fiche it ranks at `rank` (from 1): `1 / (RRF_K + rank)`.
pub fn points(rank: usize) -> f64 {
    1.0 / (RRF_K + rank as f64)
}

/// Fuses ranked lists of fiche numbers; returns `(fiche, points)`, best first.
pub fn rrf(lists: &[&[usize]], k: f64, depth: usize) -> Vec<(usize, f64)> {
    let ranked: Vec<Vec<(usize, f64)>> = lists
        .iter()
        .map(|l| l.iter().map(|&d| (d, 0.0)).collect())
        .collect();
    let weighted: Vec<(&[(usize, f64)], f64)> =
        ranked.iter().map(|l| (l.as_slice(), 1.0)).collect();
    fuse(&weighted, Fusion::Rrf { k }, depth)
}

/// How scores are brought to one scale before they are summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Norm {
    /// `(s − min) / (max − min)` over the list's top: ranx's `min-max`, Elasticsearch's
    /// `minmax` normalizer. A list whose scores are all equal gives each 1.
    MinMax,
    /// `(s − mean) / standard deviation` over the list's top: ranx's `zmuv`. A list whose scores
    /// are all equal gives each 0.
    ZScore,
}

/// How two (or more) ranked lists become one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Fusion {
    /// Reciprocal Rank Fusion, `Σ wᵢ / (k + rankᵢ)`: ranx's `rrf`, Elasticsearch's `rrf` retriever
    /// (`rank_constant` k, `rank_window_size` the depth), Qdrant's `rrf`. Scores are not read.
    Rrf { k: f64 },
    /// CombSUM, `Σ wᵢ · norm(scoreᵢ)`: ranx's `wsum` (`sum` with equal weights), Elasticsearch's
    /// `linear` retriever.
    CombSum { norm: Norm },
    /// CombMNZ: CombSUM times the number of lists that hold the fiche (ranx's `mnz`).
    CombMnz { norm: Norm },
}

impl Fusion {
    /// The seed's fusion: RRF with k = 60.
    pub const SEED: Fusion = Fusion::Rrf { k: RRF_K };

    /// Its name as the page shows it.
    pub fn label(self) -> String {
        let norm = |n: Norm| match n {
            Norm::MinMax => "min-max",
            Norm::ZScore => "z-score",
        };
        match self {
            Fusion::Rrf { k } => format!("RRF (k = {})", crate::fr::numbers::plain(k)),
            Fusion::CombSum { norm: n } => format!("CombSUM ({})", norm(n)),
            Fusion::CombMnz { norm: n } => format!("CombMNZ ({})", norm(n)),
        }
    }
}

/// The normalised scores of one list's top `depth`.
fn normalised(list: &[(usize, f64)], norm: Norm) -> Vec<f64> {
    let scores: Vec<f64> = list.iter().map(|r| r.1).collect();
    if scores.is_empty() {
        return scores;
    }
    match norm {
        Norm::MinMax => {
            let min = scores.iter().copied().fold(f64::INFINITY, f64::min);
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            scores
                .iter()
                .map(|s| {
                    if max > min {
                        (s - min) / (max - min)
                    } else {
                        1.0
                    }
                })
                .collect()
        }
        Norm::ZScore => {
            let n = scores.len() as f64;
            let mean = scores.iter().sum::<f64>() / n;
            let var = scores.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / n;
            let sd = var.sqrt();
            scores
                .iter()
                .map(|s| if sd > 0.0 { (s - mean) / sd } else { 0.0 })
                .collect()
        }
    }
}

/// Fuses the top `depth` of each `(list, weight)` (lists of `(fiche, score)`, best first) with
/// `fusion`; returns `(fiche, fused score)`, best first. Sums run in list order, and equal fused
/// scores keep the order in which fiches were first met (the first list first, by rank), as the
/// seed's RRF does; with weights 1 and [`Fusion::SEED`] this is the seed's fusion bit for bit.
pub fn fuse(lists: &[(&[(usize, f64)], f64)], fusion: Fusion, depth: usize) -> Vec<(usize, f64)> {
    let mut order: Vec<usize> = Vec::new();
    let mut points: std::collections::HashMap<usize, (f64, u32)> = std::collections::HashMap::new();
    for &(list, weight) in lists {
        let top = &list[..list.len().min(depth)];
        let values: Vec<f64> = match fusion {
            Fusion::Rrf { k } => (0..top.len()).map(|i| 1.0 / (k + (i + 1) as f64)).collect(),
            Fusion::CombSum { norm } | Fusion::CombMnz { norm } => normalised(top, norm),
        };
        for (&(doc, _), v) in top.iter().zip(values) {
            let p = points.entry(doc).or_insert_with(|| {
                order.push(doc);
                (0.0, 0)
            });
            p.0 += weight * v;
            p.1 += 1;
        }
    }
    let mut fused: Vec<(usize, f64)> = order
        .into_iter()
        .map(|d| {
            let (sum, count) = points[&d];
            match fusion {
                Fusion::CombMnz { .. } => (d, sum * f64::from(count)),
                _ => (d, sum),
            }
        })
        .collect();
    // A stable sort: equal points keep first-met order.
    fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    fused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fiche_in_both_lists_sums_its_two_reciprocal_ranks() {
        let fused = rrf(&[&[7, 3, 5], &[3, 9]], RRF_K, RRF_DEPTH);
        assert_eq!(fused[0].0, 3);
        assert_eq!(fused[0].1, 1.0 / 62.0 + 1.0 / 61.0);
        // Then 7 (rank 1 of the first list), 9 (rank 2 of the second), 5 (rank 3).
        assert_eq!(fused[1], (7, 1.0 / 61.0));
        assert_eq!(fused[2], (9, 1.0 / 62.0));
        assert_eq!(fused[3], (5, 1.0 / 63.0));
    }

    #[test]
    fn equal_points_keep_first_met_order_keyword_list_first() {
        // 1 is rank 1 of the first list, 2 rank 1 of the second: equal points, 1 was met first.
        let fused = rrf(&[&[1], &[2]], RRF_K, RRF_DEPTH);
        assert_eq!(fused, vec![(1, 1.0 / 61.0), (2, 1.0 / 61.0)]);
    }

    #[test]
    fn only_the_top_depth_of_each_list_counts() {
        let long: Vec<usize> = (0..100).collect();
        let fused = rrf(&[&long], RRF_K, 50);
        assert_eq!(fused.len(), 50);
        assert_eq!(fused[49], (49, 1.0 / 110.0));
    }

    #[test]
    fn matches_the_seed_python_on_a_worked_example() {
        // Python: points = {}; for liste in ([4, 8, 15], [15, 16, 4]): for rang, fid in
        // enumerate(liste, 1): points[fid] = points.get(fid, 0) + 1 / (60 + rang)
        // sorted(points.items(), key=lambda x: -x[1])
        //   → [(4, 0.032266458495966696), (15, 0.032266458495966696), (8, 0.016129032258064516),
        //      (16, 0.016129032258064516)]
        let fused = rrf(&[&[4, 8, 15], &[15, 16, 4]], RRF_K, RRF_DEPTH);
        let ids: Vec<usize> = fused.iter().map(|f| f.0).collect();
        assert_eq!(ids, [4, 15, 8, 16]);
        assert_eq!(
            crate::measure::pyfmt::repr(fused[0].1),
            "0.032266458495966696"
        );
        assert_eq!(
            crate::measure::pyfmt::repr(fused[2].1),
            "0.016129032258064516"
        );
    }

    #[test]
    fn weights_and_score_fusions_match_hand_computed_values() {
        let a: &[(usize, f64)] = &[(1, 10.0), (2, 6.0), (3, 2.0)];
        let b: &[(usize, f64)] = &[(3, 0.9), (4, 0.5)];
        // RRF, the second list weighted 2: 3 gets 1/63 + 2/61.
        let f = fuse(&[(a, 1.0), (b, 2.0)], Fusion::Rrf { k: 60.0 }, 50);
        assert_eq!(f[0], (3, 1.0 / 63.0 + 2.0 / 61.0));
        // CombSUM min-max: a → 1, 0.5, 0; b → 1, 0. 3: 0 + 1 = 1; 1: 1; 2: 0.5; 4: 0.
        let f = fuse(
            &[(a, 1.0), (b, 1.0)],
            Fusion::CombSum { norm: Norm::MinMax },
            50,
        );
        assert_eq!(f, vec![(1, 1.0), (3, 1.0), (2, 0.5), (4, 0.0)]);
        // CombMNZ: 3 is in both lists: (0 + 1) · 2 = 2, first.
        let f = fuse(
            &[(a, 1.0), (b, 1.0)],
            Fusion::CombMnz { norm: Norm::MinMax },
            50,
        );
        assert_eq!(f[0], (3, 2.0));
        // z-score of a: mean 6, sd √(32/3); 1 → 4/√(32/3).
        let f = fuse(&[(a, 1.0)], Fusion::CombSum { norm: Norm::ZScore }, 50);
        assert!((f[0].1 - 4.0 / (32.0f64 / 3.0).sqrt()).abs() < 1e-12);
        // Depth cuts each list before normalising.
        let f = fuse(&[(a, 1.0)], Fusion::CombSum { norm: Norm::MinMax }, 2);
        assert_eq!(f, vec![(1, 1.0), (2, 0.0)]);
    }
}
