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

/// The RRF constant. Default 60: larger values flatten the gap between rank 1 and rank 10, smaller
/// ones let a single list's top ranks dominate.
pub const RRF_K: f64 = 60.0;
/// How many results of each list are fused. Default 50 (the seed's).
pub const RRF_DEPTH: usize = 50;

/// The points one list gives a fiche it ranks at `rank` (from 1): `1 / (RRF_K + rank)`.
pub fn points(rank: usize) -> f64 {
    1.0 / (RRF_K + rank as f64)
}

/// Fuses ranked lists of fiche numbers; returns `(fiche, points)`, best first.
pub fn rrf(lists: &[&[usize]], k: f64, depth: usize) -> Vec<(usize, f64)> {
    let mut order: Vec<usize> = Vec::new();
    let mut points: std::collections::HashMap<usize, f64> = std::collections::HashMap::new();
    for list in lists {
        for (i, &doc) in list.iter().take(depth).enumerate() {
            let p = points.entry(doc).or_insert_with(|| {
                order.push(doc);
                0.0
            });
            *p += 1.0 / (k + (i + 1) as f64);
        }
    }
    let mut fused: Vec<(usize, f64)> = order.into_iter().map(|d| (d, points[&d])).collect();
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
}
