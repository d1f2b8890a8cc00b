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
/// Inputs per request: reports differ (128 or 512); 128 is safe.
pub const MAX_INPUTS_PER_BATCH: usize = 128;
/// Estimated tokens per request, well under the API's 16,384 ("Too many tokens in batch").
pub const MAX_TOKENS_PER_BATCH: usize = 12_000;
/// Attempts for one request, the first included.
pub const MAX_ATTEMPTS: u32 = 4;
/// A request that has not answered after this long is abandoned (and retried).
pub const TIMEOUT_MS: u32 = 20_000;

/// An API key. Its `Debug` and `Display` print `***`, so it cannot leak through a log line, an
/// error message or a panic.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Trims spaces a copy-paste may add; `None` for an empty key.
    pub fn new(key: &str) -> Option<ApiKey> {
        let key = key.trim();
        (!key.is_empty()).then(|| ApiKey(key.to_owned()))
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
    /// No answer within the timeout, after every retry.
    Timeout,
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
            ApiError::Timeout => write!(f, "the API did not answer in time, after several tries"),
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

/// The `message` of an error body (`{"object":"error","message":…}`, or `{"detail":…}`), else
/// the body's start: error bodies vary, so this reads them defensively.
pub fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        for key in ["message", "detail"] {
            match v.get(key) {
                Some(serde_json::Value::String(s)) => return s.clone(),
                Some(other) if !other.is_null() => return other.to_string(),
                _ => {}
            }
        }
    }
    body.chars().take(120).collect()
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Wait this many milliseconds, then try again.
    Retry {
        wait_ms: u32,
    },
    Fail(ApiError),
}

/// The outcome of one attempt, as the transport saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt<'a> {
    Status {
        status: u16,
        retry_after: Option<&'a str>,
        body: &'a str,
    },
    Network(&'a str),
    Timeout,
}

/// Seconds from a `Retry-After` header (delta-seconds form; HTTP dates are not trusted), capped
/// at one minute.
pub fn retry_after_ms(value: Option<&str>) -> Option<u32> {
    let secs: f64 = value?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| (secs.min(60.0) * 1000.0) as u32)
}

/// Backoff before attempt `attempt + 1` (attempts count from 1): 1 s, 2 s, 4 s…, at most 8 s.
pub fn backoff_ms(attempt: u32) -> u32 {
    1000u32.saturating_mul(1 << attempt.saturating_sub(1).min(3))
}

/// The retry policy: retry only where waiting can help (429, 5xx, no answer), at most
/// [`MAX_ATTEMPTS`] attempts, honouring `Retry-After`; never for a refused key or a bad request.
pub fn next_step(attempt: u32, outcome: &Attempt) -> Next {
    let last = attempt >= MAX_ATTEMPTS;
    match *outcome {
        Attempt::Status {
            status: status @ (401 | 403),
            ..
        } => Next::Fail(ApiError::KeyRefused { status }),
        Attempt::Status {
            status: 429,
            retry_after,
            ..
        } => {
            if last {
                Next::Fail(ApiError::RateLimited)
            } else {
                Next::Retry {
                    wait_ms: retry_after_ms(retry_after).unwrap_or_else(|| backoff_ms(attempt)),
                }
            }
        }
        Attempt::Status {
            status,
            retry_after,
            ..
        } if (500..600).contains(&status) => {
            if last {
                Next::Fail(ApiError::Server { status })
            } else {
                Next::Retry {
                    wait_ms: retry_after_ms(retry_after).unwrap_or_else(|| backoff_ms(attempt)),
                }
            }
        }
        Attempt::Status { status, body, .. } => Next::Fail(ApiError::Rejected {
            status,
            message: error_message(body),
        }),
        Attempt::Network(detail) => {
            if last {
                Next::Fail(ApiError::Network {
                    detail: detail.to_owned(),
                })
            } else {
                Next::Retry {
                    wait_ms: backoff_ms(attempt),
                }
            }
        }
        Attempt::Timeout => {
            if last {
                Next::Fail(ApiError::Timeout)
            } else {
                Next::Retry {
                    wait_ms: backoff_ms(attempt),
                }
            }
        }
    }
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
mod tests {
    use super::*;

    fn status(
        status: u16,
        retry_after: Option<&'static str>,
        body: &'static str,
    ) -> Attempt<'static> {
        Attempt::Status {
            status,
            retry_after,
            body,
        }
    }

    #[test]
    fn the_key_never_prints() {
        let key = ApiKey::new("  sk-secret-123 ").unwrap();
        assert_eq!(format!("{key} {key:?}"), "*** ApiKey(***)");
        assert_eq!(key.bearer(), "Bearer sk-secret-123");
        assert!(ApiKey::new("   ").is_none());
    }

    #[test]
    fn request_body_names_the_model_and_inputs() {
        assert_eq!(
            embedding_request(&["a \"b\""]),
            r#"{"model":"mistral-embed","input":["a \"b\""]}"#
        );
    }

    #[test]
    fn parses_vectors_in_index_order_and_the_usage() {
        let body = r#"{"id":"x","object":"list","data":[{"object":"embedding","embedding":[0.0,1.0],"index":1},
            {"object":"embedding","embedding":[1.0,0.0],"index":0}],"model":"mistral-embed",
            "usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0,"request_count":null}}"#;
        let e = parse_embeddings(body, 2).unwrap();
        assert_eq!(e.vectors, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!((e.prompt_tokens, e.total_tokens), (7, 7));
    }

    #[test]
    fn a_200_with_an_html_body_is_malformed_not_a_panic() {
        let err = parse_embeddings("<html><body>Proxy</body></html>", 1).unwrap_err();
        assert!(matches!(err, ApiError::Malformed { .. }), "{err:?}");
        let err = parse_embeddings(r#"{"data":[],"usage":{"prompt_tokens":1}}"#, 1).unwrap_err();
        assert_eq!(
            err,
            ApiError::Malformed {
                detail: "0 vectors for 1 texts".into()
            }
        );
        let err = parse_embeddings(
            r#"{"data":[{"embedding":[1.0],"index":5}],"usage":{"prompt_tokens":1}}"#,
            1,
        )
        .unwrap_err();
        assert_eq!(
            err,
            ApiError::Malformed {
                detail: "index 5 out of range".into()
            }
        );
    }

    #[test]
    fn reads_error_messages_defensively() {
        assert_eq!(
            error_message(r#"{"object":"error","message":"Too many tokens in batch","type":"x"}"#),
            "Too many tokens in batch"
        );
        assert_eq!(
            error_message(r#"{"detail":[{"loc":["body"]}]}"#),
            r#"[{"loc":["body"]}]"#
        );
        assert_eq!(error_message("Bad Gateway"), "Bad Gateway");
    }

    #[test]
    fn never_retries_a_refused_key_or_a_bad_request() {
        let refused = status(401, None, "");
        assert_eq!(
            next_step(1, &refused),
            Next::Fail(ApiError::KeyRefused { status: 401 })
        );
        let forbidden = status(403, Some("1"), "");
        assert_eq!(
            next_step(1, &forbidden),
            Next::Fail(ApiError::KeyRefused { status: 403 })
        );
        let bad = status(422, None, r#"{"message":"input"}"#);
        assert_eq!(
            next_step(1, &bad),
            Next::Fail(ApiError::Rejected {
                status: 422,
                message: "input".into()
            })
        );
    }

    #[test]
    fn honours_retry_after_then_gives_up_after_the_last_attempt() {
        let limited = status(429, Some("3"), "");
        assert_eq!(next_step(1, &limited), Next::Retry { wait_ms: 3000 });
        assert_eq!(
            next_step(MAX_ATTEMPTS, &limited),
            Next::Fail(ApiError::RateLimited)
        );
        let no_header = status(429, None, "");
        assert_eq!(next_step(2, &no_header), Next::Retry { wait_ms: 2000 });
        let huge = status(503, Some("86400"), "");
        assert_eq!(next_step(1, &huge), Next::Retry { wait_ms: 60_000 });
        assert_eq!(
            next_step(MAX_ATTEMPTS, &Attempt::Timeout),
            Next::Fail(ApiError::Timeout)
        );
        assert_eq!(
            next_step(1, &Attempt::Network("offline")),
            Next::Retry { wait_ms: 1000 }
        );
        assert_eq!(backoff_ms(10), 8000);
    }

    #[test]
    fn batches_stay_within_inputs_and_tokens() {
        let texts: Vec<String> = (0..300).map(|i| format!("fiche {i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let b = batches(&refs);
        assert_eq!(b, vec![0..128, 128..256, 256..300]);
        let long = "x".repeat(7000);
        let b = batches(&[&long, &long, "a"]);
        assert_eq!(b, vec![0..1, 1..3]);
    }

    #[test]
    fn the_seed_fiches_cost_under_half_a_cent() {
        let fiches = crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        let tokens: usize = fiches.iter().map(|f| estimate_tokens(&f.texte)).sum();
        assert_eq!(tokens, 35_673);
        assert!(cost_usd(tokens as u64) < 0.004);
        let texts: Vec<&str> = fiches.iter().map(|f| f.texte.as_str()).collect();
        assert_eq!(batches(&texts).len(), 3);
    }
}
