//! The terminal's side of the network: a blocking client for Mistral's embeddings API (ureq),
//! following the core's batching and retry policy. The client is native only (the page uses
//! `fetch`); on wasm32 the terminal fronts still compile, with the fake embedder alone.

#[cfg(not(target_arch = "wasm32"))]
use std::time::Duration;

use crate::mistral;
#[cfg(not(target_arch = "wasm32"))]
use crate::mistral::{ApiError, ApiKey, Attempt, Next};
use crate::search::embed::{Embedder, FakeEmbedder};

/// Where requests go: Mistral's API, unless `RAG_FICHES_API_BASE` names another origin (the tests'
/// local mock). The variable is read by the terminal only; the page's origin is a constant.
pub fn api_base() -> String {
    std::env::var("RAG_FICHES_API_BASE").unwrap_or_else(|_| mistral::API_ORIGIN.to_owned())
}

/// mistral-embed through the API, with the learner's key.
#[cfg(not(target_arch = "wasm32"))]
pub struct MistralClient {
    key: ApiKey,
    base: String,
    agent: ureq::Agent,
    /// Tokens the API counted (its `usage.prompt_tokens`), summed over calls.
    pub tokens: std::cell::Cell<u64>,
}

#[cfg(not(target_arch = "wasm32"))]
impl MistralClient {
    pub fn new(key: ApiKey) -> MistralClient {
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_millis(mistral::TIMEOUT_MS as u64))
            .build();
        MistralClient {
            key,
            base: api_base(),
            agent,
            tokens: std::cell::Cell::new(0),
        }
    }

    /// From `MISTRAL_API_KEY`, with a message saying how to set it.
    pub fn from_env() -> Result<MistralClient, String> {
        let key = std::env::var("MISTRAL_API_KEY").unwrap_or_default();
        let key = ApiKey::new(&key).ok_or(
            "MISTRAL_API_KEY is not set: export it, or use --embedder fake for a keyless run",
        )?;
        Ok(MistralClient::new(key))
    }

    fn call(&self, texts: &[&str]) -> Result<mistral::Embeddings, ApiError> {
        let body = mistral::embedding_request(texts);
        let url = format!("{}{}", self.base, mistral::EMBEDDINGS_PATH);
        let mut attempt = 1;
        loop {
            let result = self
                .agent
                .post(&url)
                .set("Authorization", &self.key.bearer())
                .set("Content-Type", "application/json")
                .send_string(&body);
            let (outcome_status, retry_after, text) = match result {
                Ok(resp) => {
                    let text = resp.into_string().map_err(|e| ApiError::Malformed {
                        detail: e.to_string(),
                    })?;
                    return mistral::parse_embeddings(&text, texts.len());
                }
                Err(ureq::Error::Status(status, resp)) => {
                    let retry_after = resp.header("Retry-After").map(str::to_owned);
                    (
                        Some(status),
                        retry_after,
                        resp.into_string().unwrap_or_default(),
                    )
                }
                Err(ureq::Error::Transport(t)) => (None, None, t.to_string()),
            };
            let outcome = match outcome_status {
                Some(status) => Attempt::Status {
                    status,
                    retry_after: retry_after.as_deref(),
                    body: &text,
                },
                None if text.contains("timed out") => Attempt::Timeout,
                None => Attempt::Network(&text),
            };
            match mistral::next_step(attempt, &outcome) {
                Next::Retry { wait_ms } => {
                    eprintln!(
                        "  the API answered {:?}; trying again in {wait_ms} ms",
                        outcome_status
                    );
                    std::thread::sleep(Duration::from_millis(wait_ms as u64));
                    attempt += 1;
                }
                Next::Fail(e) => return Err(e),
            }
        }
    }

    /// Embeds `texts` in batches within the API's limits; vectors in input order.
    pub fn embed_all(
        &self,
        texts: &[&str],
        progress: impl Fn(usize, usize),
    ) -> Result<Vec<Vec<f32>>, ApiError> {
        let mut out = Vec::with_capacity(texts.len());
        for range in mistral::batches(texts) {
            let e = self.call(&texts[range])?;
            self.tokens.set(self.tokens.get() + e.prompt_tokens);
            out.extend(e.vectors);
            progress(out.len(), texts.len());
        }
        Ok(out)
    }
}

/// The embedders the terminal offers.
pub enum TerminalEmbedder {
    Fake(FakeEmbedder),
    #[cfg(not(target_arch = "wasm32"))]
    Mistral(MistralClient),
}

impl TerminalEmbedder {
    /// `fake` (seed 001's, 1024 dims, free) or `mistral` (needs `MISTRAL_API_KEY`).
    pub fn parse(name: &str) -> Result<TerminalEmbedder, String> {
        match name {
            "fake" => Ok(TerminalEmbedder::Fake(FakeEmbedder::new(mistral::DIM))),
            #[cfg(not(target_arch = "wasm32"))]
            "mistral" => MistralClient::from_env().map(TerminalEmbedder::Mistral),
            other => Err(format!(
                "unknown embedder \"{other}\": expected mistral or fake"
            )),
        }
    }

    pub fn model(&self) -> &str {
        match self {
            TerminalEmbedder::Fake(f) => f.model(),
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(_) => mistral::MODEL,
        }
    }

    pub fn dim(&self) -> usize {
        match self {
            TerminalEmbedder::Fake(f) => f.dim(),
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
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(m) => m.embed_all(texts, progress).map_err(|e| e.to_string()),
        }
    }

    /// Tokens counted by the API so far (0 for the fake embedder).
    pub fn tokens(&self) -> u64 {
        match self {
            TerminalEmbedder::Fake(_) => 0,
            #[cfg(not(target_arch = "wasm32"))]
            TerminalEmbedder::Mistral(m) => m.tokens.get(),
        }
    }
}

/// The terminal fronts' exit: success; `--help` (an empty error) prints the usage; any other error
/// is printed with the usage and exits with status 2, never a panic.
pub fn finish(name: &str, usage: &str, result: Result<(), String>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if e.is_empty() => {
            println!("{usage}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{name}: {e}");
            eprintln!("{usage}");
            std::process::ExitCode::from(2)
        }
    }
}
