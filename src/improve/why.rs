//! Why a question moved under a fusion: where its expected fiche stands in each list fused and in
//! the fused list, before and after a change.

use crate::lab::Ranked;
use crate::search::bm25::Bm25Index;
use crate::search::fusion::fuse;

use super::Settings;

/// A fiche in a fusion under some settings: its rank in the keyword list and in the dense list
/// (each cut at the settings' depth: `None` beyond), and its rank and score in the fused list.
#[derive(Debug, Clone, PartialEq)]
pub struct FusedSide {
    pub keyword: Option<usize>,
    pub dense: Option<usize>,
    pub fused: Option<(usize, f64)>,
    pub depth: usize,
}

/// Where fiche `doc` stands for `question` in the fusion of `settings`, `index` being their
/// keyword index and `dense` the question's dense top; as [`super::Tuned::search`] fuses.
pub fn fused_side(
    index: &Bm25Index,
    settings: &Settings,
    question: &str,
    dense: &[Ranked],
    doc: usize,
) -> FusedSide {
    let depth = settings.depth;
    let words: Vec<(usize, f64)> = index
        .search(question, depth)
        .into_iter()
        .map(|h| (h.doc, h.score))
        .collect();
    let sense: Vec<(usize, f64)> = dense.iter().map(|r| (r.doc, r.score)).collect();
    let rank = |list: &[(usize, f64)]| {
        list.iter()
            .take(depth)
            .position(|r| r.0 == doc)
            .map(|i| i + 1)
    };
    let fused = fuse(
        &[(&words, settings.weights[0]), (&sense, settings.weights[1])],
        settings.fusion,
        depth,
    );
    FusedSide {
        keyword: rank(&words),
        dense: rank(&sense),
        fused: fused
            .iter()
            .position(|r| r.0 == doc)
            .map(|i| (i + 1, fused[i].1)),
        depth,
    }
}
