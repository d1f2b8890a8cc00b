//! The embedders the terminal offers: seed 001's fake one, the local encoder, Mistral's API.

use super::read_bytes;
use crate::mistral;
use crate::search::embed::{Embedder, FakeEmbedder};

#[cfg(not(target_arch = "wasm32"))]
use super::MistralClient;

/// The embedders the terminal offers.
pub enum TerminalEmbedder {
    Fake(FakeEmbedder),
    /// The local encoder (USE multilingual v3), run here.
    Local(Box<crate::encoder::Model>),
    #[cfg(not(target_arch = "wasm32"))]
    Mistral(MistralClient),
}

impl TerminalEmbedder {
    /// `fake` (seed 001's, 1024 dims, free) or `mistral` (needs `MISTRAL_API_KEY`).
    pub fn parse(name: &str) -> Result<TerminalEmbedder, String> {
        match name {
            "fake" => Ok(TerminalEmbedder::Fake(FakeEmbedder::new(mistral::DIM))),
            "local" => TerminalEmbedder::local("data/modele-local.safetensors"),
            #[cfg(not(target_arch = "wasm32"))]
            "mistral" => MistralClient::from_env().map(TerminalEmbedder::Mistral),
            other => Err(format!(
                "unknown embedder \"{other}\": expected mistral, fake or local"
            )),
        }
    }

    /// The local encoder, read from the model file `modele` makes.
    pub fn local(path: &str) -> Result<TerminalEmbedder, String> {
        let bytes =
            read_bytes(path).map_err(|e| format!("{e} (make it with: bash scripts/modele.sh)"))?;
        let model =
            crate::encoder::Model::from_safetensors(&bytes).map_err(|e| format!("{path}: {e}"))?;
        Ok(TerminalEmbedder::Local(Box::new(model)))
    }

    pub fn model(&self) -> &str {
        match self {
            TerminalEmbedder::Fake(f) => f.model(),
            TerminalEmbedder::Local(_) => crate::encoder::MODEL,
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(_) => mistral::MODEL,
        }
    }

    pub fn dim(&self) -> usize {
        match self {
            TerminalEmbedder::Fake(f) => f.dim(),
            TerminalEmbedder::Local(_) => crate::encoder::DIM,
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(_) => mistral::DIM,
        }
    }

    pub fn embed(
        &self,
        texts: &[&str],
        progress: impl Fn(usize, usize),
    ) -> Result<Vec<Vec<f32>>, String> {
        #[cfg(target_arch = "wasm32")]
        let _ = &progress;
        match self {
            TerminalEmbedder::Fake(f) => Ok(f.embed(texts)),
            TerminalEmbedder::Local(m) => Ok(embed_local(m, texts, progress)),
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(m) => m.embed_all(texts, progress).map_err(|e| e.to_string()),
        }
    }

    /// Whether it runs here, for free (nothing sent, nothing paid).
    pub fn is_free(&self) -> bool {
        matches!(self, TerminalEmbedder::Fake(_) | TerminalEmbedder::Local(_))
    }

    /// Tokens counted by the API so far (0 for the fake embedder).
    pub fn tokens(&self) -> u64 {
        match self {
            TerminalEmbedder::Fake(_) | TerminalEmbedder::Local(_) => 0,
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(m) => m.tokens.get(),
        }
    }
}

/// The local encoder over `texts`, each text's vector exactly as [`crate::encoder::Model::embed`]
/// computes it alone. Natively, on every core: each thread takes the next text not yet taken, and
/// `progress` is called here as the vectors come back.
#[cfg(not(target_arch = "wasm32"))]
fn embed_local(
    m: &crate::encoder::Model,
    texts: &[&str],
    progress: impl Fn(usize, usize),
) -> Vec<Vec<f32>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(texts.len().max(1));
    let next = AtomicUsize::new(0);
    let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(text) = texts.get(i) else { break };
                if send.send((i, m.embed(text))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for (done, (i, v)) in receive.into_iter().enumerate() {
            out[i] = v;
            progress(done + 1, texts.len());
        }
    });
    out
}

/// The local encoder over `texts`, one after the other (no threads in a page's module).
#[cfg(target_arch = "wasm32")]
fn embed_local(
    m: &crate::encoder::Model,
    texts: &[&str],
    progress: impl Fn(usize, usize),
) -> Vec<Vec<f32>> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let v = m.embed(t);
            progress(i + 1, texts.len());
            v
        })
        .collect()
}
