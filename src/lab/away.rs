//! Mistral fiche vectors held by another thread (the page's worker): the lab knows them by an
//! id, and their dense tops come back into its memo, from which every search is answered.

use crate::data::vectors::VectorsInfo;
use crate::measure::DEPTH;
use crate::search::fusion::{MAX_FUSION_DEPTH, RRF_DEPTH};

use super::{Encoder, Lab, Ranked};

/// Question vectors remembered by [`Lab`]'s dense memo before it is emptied.
pub(super) const DENSE_MEMO_CAP: usize = 2048;

/// A question vector's identity for the dense memo: its length and bits.
pub fn vector_key(v: &[f32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.len().hash(&mut h);
    for x in v {
        x.to_bits().hash(&mut h);
    }
    h.finish()
}

impl Lab {
    /// Says that these fiches' Mistral vectors are held elsewhere as `set` (already checked there
    /// against [`Lab::fingerprint`]): from now on their dense tops come through
    /// [`Lab::remember_dense`].
    pub fn set_vectors_away(&mut self, set: u64, info: VectorsInfo) {
        self.vectors = None;
        self.away = Some((set, info));
        self.dense_memo.borrow_mut().clear();
    }

    /// Forgets the Mistral vectors held elsewhere (lost there).
    pub fn forget_vectors_away(&mut self) {
        self.away = None;
        self.dense_memo.borrow_mut().clear();
    }

    /// The id of the Mistral vectors held elsewhere, if they are.
    pub fn vectors_away(&self) -> Option<u64> {
        self.away.as_ref().map(|(set, _)| *set)
    }

    /// Whether a dense search of `vector` under `encoder` for `k` results can be answered now.
    pub fn knows_dense(&self, encoder: Encoder, vector: &[f32], k: usize) -> bool {
        let count = self.vectors_info(encoder).map_or(0, |i| i.count);
        self.dense_memo
            .borrow()
            .get(&(encoder, vector_key(vector)))
            .is_some_and(|top| top.len() >= k.min(count))
    }

    /// How many dense results to ask of the thread holding the vectors, so that every search of
    /// the lab (columns, fusion, measures, answers, « Améliorer »'s deepest fusion) is answered
    /// from them.
    pub fn dense_depth() -> usize {
        RRF_DEPTH.max(DEPTH + 1).max(MAX_FUSION_DEPTH)
    }

    /// Keeps the dense top of `vector` computed elsewhere (best first, as `dense::search` gives
    /// it), so that searches of that vector are answered without the vectors.
    pub fn remember_dense(&self, encoder: Encoder, vector: &[f32], top: Vec<Ranked>) {
        let mut memo = self.dense_memo.borrow_mut();
        if memo.len() >= DENSE_MEMO_CAP {
            memo.clear();
        }
        memo.insert((encoder, vector_key(vector)), top);
    }
}
