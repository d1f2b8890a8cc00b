//! Embedders: what turns a text into a vector. The trait lets the tests, the terminal and the mock
//! API use a deterministic embedder where the page uses Mistral's `mistral-embed` over the network.

use md5::{Digest, Md5};

/// A synchronous embedder. Vectors have `dim()` values and norm 1 (or 0 for a text with no
/// words), so a dot product is a cosine.
pub trait Embedder {
    /// The model name recorded next to the vectors it made: vectors of different models never mix.
    fn model(&self) -> &str;
    fn dim(&self) -> usize;
    fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>>;
}

/// Seed 001's `fake_embed`: each word (lowercased, `?` and `.` turned into spaces, split on white
/// space) is hashed with MD5 into one of `dim` buckets, counted, and the vector is L2-normalised.
/// Texts sharing words get close vectors: crude, but deterministic and free, which is what tests
/// of dense search and fusion need.
#[derive(Debug, Clone)]
pub struct FakeEmbedder {
    dim: usize,
}

impl FakeEmbedder {
    /// The seed used 256 dimensions; the mock Mistral API uses 1024, mistral-embed's size.
    pub fn new(dim: usize) -> FakeEmbedder {
        assert!(dim > 0, "an embedding needs at least one dimension");
        FakeEmbedder { dim }
    }

    fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dim];
        let cleaned = text.to_lowercase().replace(['?', '.'], " ");
        for w in cleaned.split_whitespace() {
            let digest = Md5::digest(w.as_bytes());
            let n = u128::from_be_bytes(digest.into());
            v[(n % self.dim as u128) as usize] += 1.0;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
        v.iter_mut().for_each(|x| *x /= norm);
        v
    }
}

impl Embedder for FakeEmbedder {
    fn model(&self) -> &str {
        "fake-md5-bag-of-words"
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        texts.iter().map(|t| self.embed_one(t)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn hashes_words_into_the_buckets_python_picks() {
        // Python: int(hashlib.md5(b"joint").hexdigest(), 16) % 256, i.e. the digest's last byte.
        let e = FakeEmbedder::new(256);
        let v = &e.embed(&["joint"])[0];
        let digest = Md5::digest(b"joint");
        let bucket = digest[15] as usize;
        assert_eq!(bucket, 244); // CPython 3.11 gives 244 (and 1012 for 1024 buckets)
        assert_eq!(v[bucket], 1.0);
        assert_eq!(FakeEmbedder::new(1024).embed(&["joint"])[0][1012], 1.0);
        assert_eq!(v.iter().filter(|x| **x != 0.0).count(), 1);
    }

    #[test]
    fn is_deterministic_normalised_and_case_blind() {
        let e = FakeEmbedder::new(1024);
        let v = e.embed(&["Joint gris ?", "joint GRIS.", "colle"]);
        assert_eq!(v[0], v[1]);
        let n: f32 = dot(&v[0], &v[0]);
        assert!((n - 1.0).abs() < 1e-6);
        assert!(dot(&v[0], &v[2]) < dot(&v[0], &v[1]));
    }

    #[test]
    fn a_text_without_words_gives_a_zero_vector_not_nan() {
        let e = FakeEmbedder::new(8);
        let v = &e.embed(&["  ? . "])[0];
        assert!(v.iter().all(|x| *x == 0.0));
    }
}
