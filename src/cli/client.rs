//! A blocking client for Mistral's API (ureq), following the core's batching and retry policy,
//! and the check of where it may send the key. Native only: the page uses `fetch`.

#[cfg(not(target_arch = "wasm32"))]
use std::time::Duration;

use crate::mistral;
#[cfg(not(target_arch = "wasm32"))]
use crate::mistral::{ApiError, ApiKey, Attempt, CallKind, Next};

/// Where requests go: Mistral's API, unless `MISTRAL_API_BASE` (or its older name
/// `RAG_FICHES_API_BASE`) names another origin. The variables are read by the terminal only; the
/// page's origin is a constant. An origin that is neither Mistral's nor a loopback address is
/// refused ([`check_api_base`]): the key would go there.
pub fn api_base() -> String {
    std::env::var("MISTRAL_API_BASE")
        .or_else(|_| std::env::var("RAG_FICHES_API_BASE"))
        .map(|b| b.trim_end_matches('/').to_owned())
        .unwrap_or_else(|_| mistral::API_ORIGIN.to_owned())
}

/// Accepts Mistral's origin and loopback HTTP origins (`http://127.0.0.1:PORT`,
/// `http://localhost:PORT`, `http://[::1]:PORT`: a local mock), nothing else: the key is sent to
/// the origin named, and a mistyped or borrowed variable must not send it elsewhere.
pub fn check_api_base(base: &str) -> Result<(), String> {
    if base == mistral::API_ORIGIN {
        return Ok(());
    }
    let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
        .iter()
        .any(|host| {
            base.strip_prefix(host).is_some_and(|rest| {
                rest.is_empty()
                    || rest.strip_prefix(':').is_some_and(|port| {
                        !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                    })
            })
        });
    if loopback {
        Ok(())
    } else {
        Err(format!(
            "MISTRAL_API_BASE must be {} or a loopback address such as http://127.0.0.1:8788 (a local mock); the key is never sent to {base:?}",
            mistral::API_ORIGIN
        ))
    }
}

/// mistral-embed through the API, with the learner's key.
#[cfg(not(target_arch = "wasm32"))]
pub struct MistralClient {
    key: ApiKey,
    base: String,
    agent: ureq::Agent,
    /// The same, waiting as long as a chat answer may take.
    chat_agent: ureq::Agent,
    /// Tokens the API counted (its `usage.prompt_tokens`), summed over calls.
    pub tokens: std::cell::Cell<u64>,
}

#[cfg(not(target_arch = "wasm32"))]
impl MistralClient {
    pub fn new(key: ApiKey) -> MistralClient {
        // Redirects are not followed: the key goes to the address given and nowhere else, and an
        // answer is never attributed to an address that did not give it.
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_millis(
                CallKind::Embeddings.timeout_ms() as u64
            ))
            .redirects(0)
            .build();
        let chat_agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_millis(CallKind::Chat.timeout_ms() as u64))
            .redirects(0)
            .build();
        MistralClient {
            key,
            base: api_base(),
            agent,
            chat_agent,
            tokens: std::cell::Cell::new(0),
        }
    }

    /// From `MISTRAL_API_KEY`, with a message saying how to set it.
    pub fn from_env() -> Result<MistralClient, String> {
        let key = std::env::var("MISTRAL_API_KEY").unwrap_or_default();
        let key = ApiKey::parse(&key).map_err(|e| match e {
            mistral::KeyError::Empty => {
                "MISTRAL_API_KEY is not set: export it, or use --embedder fake for a keyless run"
                    .to_owned()
            }
            other => format!("MISTRAL_API_KEY: {other}"),
        })?;
        check_api_base(&api_base())?;
        Ok(MistralClient::new(key))
    }

    fn call(&self, texts: &[&str]) -> Result<mistral::Embeddings, ApiError> {
        let body = mistral::embedding_request(texts);
        let text = self.post(CallKind::Embeddings, mistral::EMBEDDINGS_PATH, &body)?;
        mistral::parse_embeddings(&text, texts.len())
    }

    /// A chat completion with `model` at temperature 0, under the core's retry policy for chat
    /// (a timeout is not sent again: the first request may still be running, and billed).
    pub fn chat(
        &self,
        model: &str,
        messages: &[mistral::chat::Message],
    ) -> Result<mistral::chat::Chat, ApiError> {
        let body = mistral::chat::chat_request(model, messages);
        let text = self.post(CallKind::Chat, mistral::chat::CHAT_PATH, &body)?;
        mistral::chat::parse_chat(&text)
    }

    /// POSTs `body` to `path` until it is answered 200 (its body returned) or the policy gives up.
    fn post(&self, kind: CallKind, path: &str, body: &str) -> Result<String, ApiError> {
        let url = format!("{}{}", self.base, path);
        let agent = match kind {
            CallKind::Embeddings => self.agent.clone(),
            CallKind::Chat => self.chat_agent.clone(),
        };
        let mut attempt = 1;
        loop {
            let result = agent
                .post(&url)
                .set("Authorization", &self.key.bearer())
                .set("Content-Type", "application/json")
                .send_string(body);
            let (outcome_status, retry_after, text) = match result {
                Ok(resp) if redirect(&resp).is_some() => {
                    return Err(ApiError::Malformed {
                        detail: redirect(&resp).unwrap_or_default(),
                    });
                }
                Ok(resp) => {
                    return resp.into_string().map_err(|e| ApiError::Malformed {
                        detail: e.to_string(),
                    });
                }
                Err(ureq::Error::Status(status, resp)) => {
                    let retry_after = resp.header("Retry-After").map(str::to_owned);
                    (
                        Some(status),
                        retry_after,
                        resp.into_string().unwrap_or_default(),
                    )
                }
                // Only the kind of failure: ureq's text can quote a request header, the key.
                Err(ureq::Error::Transport(t)) => (None, None, transport_kind(&t)),
            };
            let outcome = match outcome_status {
                Some(status) => Attempt::Status {
                    status,
                    retry_after: retry_after.as_deref(),
                    body: &text,
                },
                None if text == TIMED_OUT => Attempt::Timeout,
                None => Attempt::Network(&text),
            };
            match mistral::next_step(kind, attempt, &outcome) {
                Next::Retry { wait_ms, .. } => {
                    let answered = match outcome_status {
                        Some(status) => format!("HTTP {status}"),
                        None => text.clone(),
                    };
                    let header = match &retry_after {
                        Some(v) => format!(" (Retry-After: {v})"),
                        None => String::new(),
                    };
                    eprintln!(
                        "  the API answered {answered}{header}; trying again in {wait_ms} ms"
                    );
                    std::thread::sleep(Duration::from_millis(wait_ms as u64));
                    attempt += 1;
                }
                Next::Fail(e) => return Err(e),
            }
        }
    }

    /// Embeds `texts` in batches within the API's limits (a text over the per-input limit is cut
    /// to its first [`mistral::MAX_INPUT_BYTES`] bytes, and said); vectors in input order.
    pub fn embed_all(
        &self,
        texts: &[&str],
        progress: impl Fn(usize, usize),
    ) -> Result<Vec<Vec<f32>>, ApiError> {
        let inputs: Vec<(&str, bool)> = texts.iter().map(|t| mistral::input_for(t)).collect();
        let cut = inputs.iter().filter(|(_, c)| *c).count();
        if cut > 0 {
            eprintln!(
                "  {cut} text(s) over the API's 8,192-token input limit: only their first {} bytes are embedded",
                mistral::MAX_INPUT_BYTES
            );
        }
        let texts: Vec<&str> = inputs.iter().map(|(t, _)| *t).collect();
        let texts = texts.as_slice();
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

#[cfg(not(target_arch = "wasm32"))]
const TIMED_OUT: &str = "timed out";

/// A redirect answered instead of the API's answer (the agents follow none), in words.
#[cfg(not(target_arch = "wasm32"))]
fn redirect(r: &ureq::Response) -> Option<String> {
    (300..400).contains(&r.status()).then(|| {
        format!(
            "HTTP {} redirect to {}, not followed (the key goes only to MISTRAL_API_BASE)",
            r.status(),
            r.header("location").unwrap_or("an unnamed address")
        )
    })
}

/// What kind of transport failure, without its text (which may quote the `Authorization` header).
#[cfg(not(target_arch = "wasm32"))]
fn transport_kind(t: &ureq::Transport) -> String {
    use ureq::ErrorKind as K;
    let io_timeout = std::error::Error::source(t)
        .and_then(|e| e.downcast_ref::<std::io::Error>())
        .is_some_and(|e| {
            matches!(
                e.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            )
        });
    match t.kind() {
        _ if io_timeout => TIMED_OUT.to_owned(),
        K::Dns => "DNS lookup failed".to_owned(),
        K::ConnectionFailed => "connection failed".to_owned(),
        K::TooManyRedirects => "too many redirects".to_owned(),
        K::BadHeader => "a header could not be sent (check the key's characters)".to_owned(),
        K::InvalidUrl | K::UnknownScheme => "invalid API address".to_owned(),
        K::Io => "connection lost".to_owned(),
        other => format!("{other:?}"),
    }
}

/// What `vecteurs --verifier` saw: the embeddings call's status and headers, and the models the
/// key reaches.
pub struct Verification {
    pub lines: Vec<String>,
    pub accepted: bool,
}

#[cfg(not(target_arch = "wasm32"))]
impl MistralClient {
    /// One tiny embeddings call (the text « ok », about 2 tokens) sent as the page sends it — with
    /// an `Origin` header, so that the CORS headers a browser would get are printed — then
    /// `GET /v1/models`. Nothing is retried: the first answer is the one reported.
    pub fn verify(&self) -> Verification {
        let mut lines = Vec::new();
        let url = format!("{}{}", self.base, mistral::EMBEDDINGS_PATH);
        let result = self
            .agent
            .post(&url)
            .set("Authorization", &self.key.bearer())
            .set("Content-Type", "application/json")
            .set("Origin", "https://example.github.io")
            .send_string(&mistral::embedding_request(&["ok"]));
        let (accepted, resp) = match result {
            Ok(r) if redirect(&r).is_some() => {
                lines.push(format!("POST {url}: {}", redirect(&r).unwrap_or_default()));
                (false, None)
            }
            Ok(r) => (true, Some(r)),
            Err(ureq::Error::Status(_, r)) => (false, Some(r)),
            Err(ureq::Error::Transport(t)) => {
                lines.push(format!("POST {url}: no answer ({})", transport_kind(&t)));
                (false, None)
            }
        };
        if let Some(r) = resp {
            lines.push(format!(
                "POST {url}: HTTP {} {}",
                r.status(),
                r.status_text()
            ));
            lines.push("headers received:".to_owned());
            let mut names = r.headers_names();
            names.sort();
            for name in names {
                let interesting = name.starts_with("access-control-")
                    || name.starts_with("x-ratelimit")
                    || matches!(name.as_str(), "retry-after" | "content-type");
                if interesting {
                    lines.push(format!("  {name}: {}", r.header(&name).unwrap_or_default()));
                }
            }
            let exposed = r
                .header("access-control-expose-headers")
                .unwrap_or_default()
                .to_ascii_lowercase();
            lines.push(format!(
                "a browser page can read Retry-After: {}",
                if exposed.contains("retry-after") {
                    "yes"
                } else {
                    "no (not in access-control-expose-headers)"
                }
            ));
            lines.push(format!(
                "a browser page can read this answer (access-control-allow-origin): {}",
                if r.header("access-control-allow-origin").is_some() {
                    "yes"
                } else {
                    "no: the page sees only « no answer »"
                }
            ));
            let body = r.into_string().unwrap_or_default();
            if accepted {
                let tokens = mistral::parse_embeddings(&body, 1)
                    .map(|e| e.prompt_tokens.to_string())
                    .unwrap_or_else(|e| format!("? ({e})"));
                lines.push(format!("key accepted; tokens counted: {tokens}"));
            } else {
                lines.push(format!("refused: {}", mistral::error_message(&body)));
            }
        }
        let models = format!("{}/v1/models", self.base);
        match self
            .agent
            .get(&models)
            .set("Authorization", &self.key.bearer())
            .call()
        {
            Ok(r) if redirect(&r).is_some() => {
                lines.push(format!(
                    "GET {models}: {}",
                    redirect(&r).unwrap_or_default()
                ));
            }
            Ok(r) => {
                let body = r.into_string().unwrap_or_default();
                let ids: Vec<String> = serde_json::from_str::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| {
                        v["data"].as_array().map(|a| {
                            a.iter()
                                .filter_map(|m| m["id"].as_str().map(str::to_owned))
                                .collect()
                        })
                    })
                    .unwrap_or_default();
                lines.push(format!("GET {models}: {} models", ids.len()));
                for id in ids {
                    let price = match mistral::prices::price(&id) {
                        Some(p) => format!(
                            "  (${} in, ${} out per million tokens, checked {})",
                            p.input,
                            p.output,
                            mistral::prices::CHECKED
                        ),
                        None => String::new(),
                    };
                    lines.push(format!("  {id}{price}"));
                }
            }
            Err(ureq::Error::Status(status, r)) => lines.push(format!(
                "GET {models}: HTTP {status}: {}",
                mistral::error_message(&r.into_string().unwrap_or_default())
            )),
            Err(ureq::Error::Transport(t)) => {
                lines.push(format!("GET {models}: no answer ({})", transport_kind(&t)))
            }
        }
        Verification { lines, accepted }
    }
}

/// `vecteurs --verifier`: the key from `MISTRAL_API_KEY`, checked by the API.
pub fn verify_key() -> Result<Verification, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        Ok(MistralClient::from_env()?.verify())
    }
    #[cfg(target_arch = "wasm32")]
    {
        Err("--verifier needs the native terminal".to_owned())
    }
}
