//! Mistral's chat completions as pure functions: the request body, the response (a string or a
//! list of chunks), the models the page offers and what a call costs.

use serde::{Deserialize, Serialize};

use super::ApiError;

pub const CHAT_PATH: &str = "/v1/chat/completions";
pub const DEFAULT_MODEL: &str = "mistral-small-latest";

/// The models the page offers, from the price table (the learner's key decides which they may
/// use): an offered model always has a price.
pub fn models() -> impl Iterator<Item = &'static str> {
    super::prices::CHAT.iter().map(|p| p.model)
}

/// The cheapest model the page offers, by the cost of 1,000 tokens in and 100 out (a judge reads
/// a prompt and writes one word): the default judge.
pub fn cheapest() -> &'static str {
    let cost = |p: &super::prices::Price| p.input * 1000.0 + p.output * 100.0;
    super::prices::CHAT
        .iter()
        .min_by(|a, b| cost(a).total_cmp(&cost(b)))
        .map_or(DEFAULT_MODEL, |p| p.model)
}

/// Whether the page offers `model`.
pub fn is_offered(model: &str) -> bool {
    models().any(|m| m == model)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
    temperature: f64,
}

/// The JSON body of a chat request, at temperature 0 (the same question gives the same answer).
#[allow(clippy::expect_used)] // serialising strings and a float cannot fail
pub fn chat_request(model: &str, messages: &[Message]) -> String {
    serde_json::to_string(&ChatRequest {
        model,
        messages,
        temperature: 0.0,
    })
    .expect("messages always serialise")
}

/// A chat answer and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chat {
    pub content: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Why the model stopped: `stop`, `length`, `model_length`, `error`, `tool_calls` (absent
    /// from answers cached before it was read).
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// When this answer was obtained (ISO 8601, set by the page when it stores it), so that a
    /// cached answer shows its date.
    #[serde(default)]
    pub obtained: Option<String>,
}

impl Chat {
    /// The answer was cut by a length limit (`length`: the output limit; `model_length`: the
    /// model's context): its end, and maybe its citations, are missing.
    pub fn is_cut(&self) -> bool {
        matches!(
            self.finish_reason.as_deref(),
            Some("length" | "model_length")
        )
    }
}

/// Parses a chat completion. `choices[0].message.content` may be a string, a list of chunks
/// (`{"type":"text","text":…}`, `{"type":"reference",…}`, `{"type":"thinking",…}` before the text
/// with reasoning models…) or `null` (nothing generated, e.g. cut at once): the text chunks are
/// joined, the others ignored.
pub fn parse_chat(body: &str) -> Result<Chat, ApiError> {
    let malformed = |detail: String| ApiError::Malformed { detail };
    let v: serde_json::Value = serde_json::from_str(body).map_err(|e| {
        let start: String = body.chars().take(40).collect();
        malformed(format!("{e}; the body starts with {start:?}"))
    })?;
    let choice = &v["choices"][0];
    if choice.is_null() {
        return Err(malformed("no choices[0]".into()));
    }
    let finish_reason = choice["finish_reason"].as_str().map(str::to_owned);
    let content = &choice["message"]["content"];
    let text = match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(chunks) => chunks
            .iter()
            .filter(|c| c["type"] == "text")
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        serde_json::Value::Null => String::new(),
        other => return Err(malformed(format!("content is {other}"))),
    };
    let tokens = |k: &str| v["usage"][k].as_u64().unwrap_or(0);
    Ok(Chat {
        content: text,
        prompt_tokens: tokens("prompt_tokens"),
        completion_tokens: tokens("completion_tokens"),
        finish_reason,
        obtained: None,
    })
}

/// An upper bound of a prompt's tokens (its bytes), for estimates before calling.
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages.iter().map(|m| m.content.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_string_and_chunked_contents() {
        let s = r#"{"choices":[{"message":{"role":"assistant","content":"Oui [AR-0001]."}}],"usage":{"prompt_tokens":50,"completion_tokens":7}}"#;
        assert_eq!(
            parse_chat(s).unwrap(),
            Chat {
                content: "Oui [AR-0001].".into(),
                prompt_tokens: 50,
                completion_tokens: 7,
                finish_reason: None,
                obtained: None,
            }
        );
        let c = r#"{"choices":[{"message":{"content":[{"type":"text","text":"Oui "},{"type":"reference","reference_ids":[0]},{"type":"text","text":"[AR-0001]."}]}}],"usage":{}}"#;
        assert_eq!(parse_chat(c).unwrap().content, "Oui [AR-0001].");
        assert!(matches!(
            parse_chat("<html>"),
            Err(ApiError::Malformed { .. })
        ));
        assert!(matches!(
            parse_chat(r#"{"choices":[]}"#),
            Err(ApiError::Malformed { .. })
        ));
    }

    #[test]
    fn reads_the_finish_reason_a_thinking_chunk_and_a_null_content() {
        // A reasoning model's reply: a `thinking` chunk (itself a list of chunks) before the text.
        let thinking = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Je cherche."}]},{"type":"text","text":"Oui [AR-0001]."}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}"#;
        let c = parse_chat(thinking).unwrap();
        assert_eq!(c.content, "Oui [AR-0001].");
        assert!(!c.is_cut());
        let cut = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Oui, la fiche"},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":4}}"#;
        assert!(parse_chat(cut).unwrap().is_cut());
        let null = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"model_length"}],"usage":{"prompt_tokens":9,"completion_tokens":0}}"#;
        let c = parse_chat(null).unwrap();
        assert_eq!((c.content.as_str(), c.is_cut()), ("", true));
        // Answers cached before the finish reason was read still load.
        let old: Chat =
            serde_json::from_str(r#"{"content":"x","prompt_tokens":1,"completion_tokens":1}"#)
                .unwrap();
        assert_eq!(old.finish_reason, None);
    }
}
