//! Mistral's embeddings API as pure functions: the request body, the response and error parsing,
//! batching within the API's limits, cost, and the retry policy. The page (through `fetch`) and the
//! terminal (through `ureq`) send the bytes; everything they decide comes from here.

/// The keys under which the page caches what cost money (vectors, answers).
pub mod cache;
/// Chat completions: request, response in string or chunks, models and their cost.
pub mod chat;
/// What a call costs, per model: the one price table.
pub mod prices;

use std::fmt;

use serde::{Deserialize, Serialize};

/// The only origin the page ever sends a key to. Not configurable at run time.
pub const API_ORIGIN: &str = "https://api.mistral.ai";
pub const EMBEDDINGS_PATH: &str = "/v1/embeddings";
pub const MODEL: &str = "mistral-embed";
pub const DIM: usize = 1024;
/// Inputs per request: the API refuses more than 512 (400); 128 keeps each request small.
pub const MAX_INPUTS_PER_BATCH: usize = 128;
/// Estimated tokens per request, well under the API's 16,384 (400 "Too many tokens overall,
/// split into more batches.", code 3210).
pub const MAX_TOKENS_PER_BATCH: usize = 12_000;
/// Bytes of one input sent at most: the API refuses (400) an input over 8,192 tokens, and a token
/// is at least one byte, so 8,000 bytes are always under it. A longer text is cut to its first
/// 8,000 bytes (at a character boundary) before it is sent, and the page says how many were cut.
pub const MAX_INPUT_BYTES: usize = 8_000;
/// Attempts for one request, the first included.
pub const MAX_ATTEMPTS: u32 = 4;

/// The kind of call, which decides how long to wait for it and whether to send it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// Embeddings: small and fast (a question is a few tokens, a batch of 128 fiches about a
    /// second); a call unanswered after [`EMBED_TIMEOUT_MS`] is abandoned and sent again.
    Embeddings,
    /// A chat answer: a long answer of `mistral-large-latest` takes tens of seconds, and the
    /// official client waits longer still. Waited for [`CHAT_TIMEOUT_MS`], and never sent again
    /// after a timeout (the first may still be running, and billed): the learner decides.
    Chat,
}

pub const EMBED_TIMEOUT_MS: u32 = 15_000;
pub const CHAT_TIMEOUT_MS: u32 = 180_000;

impl CallKind {
    pub fn timeout_ms(self) -> u32 {
        match self {
            CallKind::Embeddings => EMBED_TIMEOUT_MS,
            CallKind::Chat => CHAT_TIMEOUT_MS,
        }
    }
}

/// An API key. Its `Debug` and `Display` print `***`, so it cannot leak through a log line, an
/// error message or a panic.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

/// Why a key was refused before anything was sent. Never holds the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    Empty,
    /// A character an HTTP header cannot carry (outside visible ASCII: a zero-width space, a
    /// non-breaking space, an accent, a line break inside the key…), at this position (from 1).
    BadCharacter {
        position: usize,
        code: u32,
    },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Empty => write!(f, "the key is empty"),
            KeyError::BadCharacter { position, code } => write!(
                f,
                "the key holds a character an HTTP header cannot carry (U+{code:04X}, character {position}): copy the key again"
            ),
        }
    }
}

impl ApiKey {
    /// Trims spaces a copy-paste may add; `None` for an empty key or one an HTTP header cannot
    /// carry (see [`ApiKey::parse`]).
    pub fn new(key: &str) -> Option<ApiKey> {
        ApiKey::parse(key).ok()
    }

    /// The key, trimmed, if every character is visible ASCII (`!` to `~`): Mistral's keys are,
    /// and anything else would make the `Authorization` header fail in the transport (whose error
    /// text quotes the header, key included) or in the browser's `Headers.set`.
    pub fn parse(key: &str) -> Result<ApiKey, KeyError> {
        let key = key.trim();
        if key.is_empty() {
            return Err(KeyError::Empty);
        }
        if let Some((i, c)) = key.chars().enumerate().find(|(_, c)| !c.is_ascii_graphic()) {
            return Err(KeyError::BadCharacter {
                position: i + 1,
                code: c as u32,
            });
        }
        Ok(ApiKey(key.to_owned()))
    }

    /// The `Authorization` header's value.
    pub fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// The key itself, for the one place it may be written: the browser's storage, when the
    /// learner ticks « retenir sur cet appareil ». Never for a message, a URL or a log.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[derive(Debug, Serialize)]
pub struct EmbeddingRequest<'a> {
    pub model: &'a str,
    pub input: &'a [&'a str],
}

/// The JSON body of an embeddings request.
#[allow(clippy::expect_used)] // serialising a list of strings cannot fail
pub fn embedding_request(texts: &[&str]) -> String {
    serde_json::to_string(&EmbeddingRequest {
        model: MODEL,
        input: texts,
    })
    .expect("a list of strings always serialises")
}

#[derive(Debug, Deserialize)]
struct RawEmbedding {
    embedding: Vec<f32>,
    index: usize,
}

#[derive(Debug, Deserialize)]
struct RawUsage {
    prompt_tokens: u64,
    #[serde(default)]
    total_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct RawResponse {
    data: Vec<RawEmbedding>,
    usage: RawUsage,
}

/// A parsed embeddings response: one vector per input, in input order.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    pub vectors: Vec<Vec<f32>>,
    pub prompt_tokens: u64,
    pub total_tokens: u64,
}

/// What went wrong with a call, in terms a learner can act on.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// 401/403: the key was refused. Not retried.
    KeyRefused { status: u16 },
    /// 429 after every retry.
    RateLimited,
    /// 5xx after every retry.
    Server { status: u16 },
    /// 400/404/422 and other statuses: the request itself is wrong. Not retried.
    Rejected { status: u16, message: String },
    /// No answer (offline, CORS refusal, DNS) after every retry.
    Network { detail: String },
    /// No answer within `seconds`; `resent`: after every retry (embeddings), else once (a chat
    /// is never sent again automatically).
    Timeout { seconds: u32, resent: bool },
    /// A 200 whose body is not the expected JSON (an HTML page from a proxy, a truncated body).
    Malformed { detail: String },
    /// Cancelled by a newer request or by the learner.
    Cancelled,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::KeyRefused { status } => {
                write!(
                    f,
                    "the API refused the key (HTTP {status}): check it, or create another"
                )
            }
            ApiError::RateLimited => write!(
                f,
                "too many requests (HTTP 429), even after waiting: try again in a minute"
            ),
            ApiError::Server { status } => write!(
                f,
                "the API is failing (HTTP {status}) after several tries: try again later"
            ),
            ApiError::Rejected { status, message } => {
                write!(f, "the API rejected the request (HTTP {status}): {message}")
            }
            ApiError::Network { detail } => {
                write!(f, "no answer from the API ({detail}): check the connection")
            }
            ApiError::Timeout { seconds, resent } => write!(
                f,
                "the API did not answer within {seconds} s{}",
                if *resent {
                    ", after several tries"
                } else {
                    " (not sent again)"
                }
            ),
            ApiError::Malformed { detail } => {
                write!(f, "the API's answer is not the expected JSON ({detail})")
            }
            ApiError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for ApiError {}

/// Parses a 200 response for `expected` inputs.
pub fn parse_embeddings(body: &str, expected: usize) -> Result<Embeddings, ApiError> {
    let malformed = |detail: String| ApiError::Malformed { detail };
    let raw: RawResponse = serde_json::from_str(body).map_err(|e| {
        let start: String = body.chars().take(40).collect();
        malformed(format!("{e}; the body starts with {start:?}"))
    })?;
    if raw.data.len() != expected {
        return Err(malformed(format!(
            "{} vectors for {expected} texts",
            raw.data.len()
        )));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; expected];
    for item in raw.data {
        let slot = vectors
            .get_mut(item.index)
            .ok_or_else(|| malformed(format!("index {} out of range", item.index)))?;
        if item.embedding.iter().any(|x| !x.is_finite()) {
            return Err(malformed(format!(
                "vector {} holds a non-finite value",
                item.index
            )));
        }
        *slot = Some(item.embedding);
    }
    let vectors = vectors
        .into_iter()
        .enumerate()
        .map(|(i, v)| v.ok_or_else(|| malformed(format!("no vector for text {i}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Embeddings {
        vectors,
        prompt_tokens: raw.usage.prompt_tokens,
        total_tokens: raw.usage.total_tokens.unwrap_or(raw.usage.prompt_tokens),
    })
}

/// The readable part of an error body. The shapes seen from the real API (quoted in public bug
/// reports and the official clients' tests):
/// - `{"detail":"Unauthorized"}`, `{"message":"Unauthorized","request_id":"…"}`;
/// - `{"object":"error","message":"Rate limit exceeded","type":"rate_limited","code":"1300"}`;
/// - 422: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","x"],
///   "msg":"Extra inputs are not permitted",…}]},"type":"invalid_request_error",…}`, or the same
///   list directly under `detail`;
/// - an HTML page from a gateway (502, 504): its start.
///
/// A 422's first `msg` is given with its field (`loc` without `body`).
pub fn error_message(body: &str) -> String {
    fn validation(v: &serde_json::Value) -> Option<String> {
        let first = v.as_array()?.first()?;
        let msg = first.get("msg")?.as_str()?;
        let field: Vec<String> = first
            .get("loc")
            .and_then(|l| l.as_array())
            .map(|l| {
                l.iter()
                    .filter(|p| p.as_str() != Some("body"))
                    .map(|p| match p.as_str() {
                        Some(s) => s.to_owned(),
                        None => p.to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(if field.is_empty() {
            msg.to_owned()
        } else {
            format!("{msg} ({})", field.join("."))
        })
    }
    fn read(v: &serde_json::Value, depth: u8) -> Option<String> {
        for key in ["message", "detail"] {
            match v.get(key) {
                Some(serde_json::Value::String(s)) => return Some(s.clone()),
                Some(serde_json::Value::Array(_)) => return v.get(key).and_then(validation),
                Some(inner @ serde_json::Value::Object(_)) if depth < 2 => {
                    if let Some(m) = read(inner, depth + 1) {
                        return Some(m);
                    }
                }
                _ => {}
            }
        }
        None
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        if let Some(m) = read(&v, 0) {
            return m.chars().take(300).collect();
        }
    }
    let text = body.trim();
    if text.starts_with('<') {
        // An HTML error page: its title says more than its first tag.
        if let (Some(a), Some(b)) = (text.find("<title>"), text.find("</title>")) {
            if a + 7 <= b {
                return text[a + 7..b].trim().chars().take(120).collect();
            }
        }
    }
    text.chars().take(120).collect()
}

/// Why a call waits before its next attempt (the page shows it with a countdown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitReason {
    /// 429: a per-second or per-minute limit.
    RateLimited,
    /// 500, 502, 503 or 504.
    Server(u16),
    /// No answer at all (offline, or a response the browser could not read).
    Network,
    /// An embeddings call that timed out.
    Timeout,
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Wait this many milliseconds, then try again.
    Retry {
        wait_ms: u32,
        reason: WaitReason,
    },
    Fail(ApiError),
}

/// The outcome of one attempt, as the transport saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt<'a> {
    Status {
        status: u16,
        /// `None` when absent, or unreadable: the page cannot read it, since the API does not
        /// list it in `access-control-expose-headers`.
        retry_after: Option<&'a str>,
        body: &'a str,
    },
    Network(&'a str),
    Timeout,
}

/// The longest wait before one attempt: a per-minute limit is over within a minute.
pub const MAX_WAIT_MS: u32 = 60_000;

/// Milliseconds from a `Retry-After` header (delta-seconds form; HTTP dates are not trusted),
/// capped at [`MAX_WAIT_MS`].
pub fn retry_after_ms(value: Option<&str>) -> Option<u32> {
    let secs: f64 = value?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| (secs * 1000.0).min(MAX_WAIT_MS as f64) as u32)
}

/// Backoff before attempt `attempt + 1` after a server error or no answer (attempts count from
/// 1): a second, doubled at each attempt up to eight.
pub fn backoff_ms(attempt: u32) -> u32 {
    1000u32.saturating_mul(1 << attempt.saturating_sub(1).min(3))
}

/// Backoff after a 429 whose `Retry-After` is absent or unreadable: ten seconds, thirty, then a
/// minute, so
/// that a per-minute token limit (40 answers in « Mesurer les réponses ») has passed by the last
/// attempt.
pub fn rate_limit_backoff_ms(attempt: u32) -> u32 {
    match attempt {
        0 | 1 => 10_000,
        2 => 30_000,
        _ => MAX_WAIT_MS,
    }
}

/// The retry policy, as the official clients apply it: retry 429, 500, 502, 503 and 504, and no
/// answer at all, at most [`MAX_ATTEMPTS`] attempts, honouring `Retry-After` when it can be read;
/// never a refused key or a bad request; never a chat that timed out (see [`CallKind::Chat`]).
pub fn next_step(kind: CallKind, attempt: u32, outcome: &Attempt) -> Next {
    let last = attempt >= MAX_ATTEMPTS;
    let retry = |wait_ms: u32, reason: WaitReason, fail: ApiError| {
        if last {
            Next::Fail(fail)
        } else {
            Next::Retry { wait_ms, reason }
        }
    };
    match *outcome {
        Attempt::Status {
            status: status @ (401 | 403),
            ..
        } => Next::Fail(ApiError::KeyRefused { status }),
        Attempt::Status {
            status: 429,
            retry_after,
            ..
        } => retry(
            retry_after_ms(retry_after).unwrap_or_else(|| rate_limit_backoff_ms(attempt)),
            WaitReason::RateLimited,
            ApiError::RateLimited,
        ),
        Attempt::Status {
            status: status @ (500 | 502 | 503 | 504),
            retry_after,
            ..
        } => retry(
            retry_after_ms(retry_after).unwrap_or_else(|| backoff_ms(attempt)),
            WaitReason::Server(status),
            ApiError::Server { status },
        ),
        Attempt::Status { status, body, .. } => Next::Fail(ApiError::Rejected {
            status,
            message: error_message(body),
        }),
        Attempt::Network(detail) => retry(
            backoff_ms(attempt),
            WaitReason::Network,
            ApiError::Network {
                detail: detail.to_owned(),
            },
        ),
        Attempt::Timeout => match kind {
            CallKind::Chat => Next::Fail(ApiError::Timeout {
                seconds: kind.timeout_ms() / 1000,
                resent: false,
            }),
            CallKind::Embeddings => retry(
                backoff_ms(attempt),
                WaitReason::Timeout,
                ApiError::Timeout {
                    seconds: kind.timeout_ms() / 1000,
                    resent: true,
                },
            ),
        },
    }
}

/// `text` cut to at most [`MAX_INPUT_BYTES`] bytes at a character boundary, and whether it was cut.
pub fn input_for(text: &str) -> (&str, bool) {
    if text.len() <= MAX_INPUT_BYTES {
        return (text, false);
    }
    let mut end = MAX_INPUT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// An upper bound of a text's tokens: its UTF-8 byte count (a token is at least one byte; the
/// seed's bound for the 200 fiches: 35,673 bytes, so at most that many tokens).
pub fn estimate_tokens(text: &str) -> usize {
    text.len().max(1)
}

/// Cost in US dollars of `tokens` input tokens to mistral-embed (from [`prices`]).
pub fn cost_usd(tokens: u64) -> f64 {
    tokens as f64 * prices::EMBED.input / 1_000_000.0
}

/// Splits texts into consecutive batches of at most [`MAX_INPUTS_PER_BATCH`] texts and
/// [`MAX_TOKENS_PER_BATCH`] estimated tokens (a longer text goes alone). Returns index ranges.
pub fn batches(texts: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut tokens) = (0, 0);
    for (i, t) in texts.iter().enumerate() {
        let n = estimate_tokens(t);
        if i > start && (i - start == MAX_INPUTS_PER_BATCH || tokens + n > MAX_TOKENS_PER_BATCH) {
            out.push(start..i);
            start = i;
            tokens = 0;
        }
        tokens += n;
    }
    if start < texts.len() {
        out.push(start..texts.len());
    }
    out
}

#[cfg(test)]
mod tests;
