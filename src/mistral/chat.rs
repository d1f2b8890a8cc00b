//! Mistral's chat completions as pure functions: the request body, the response (a string or a
//! list of chunks), the models the page offers and what a call costs.

use serde::{Deserialize, Serialize};

use super::ApiError;

pub const CHAT_PATH: &str = "/v1/chat/completions";
pub const DEFAULT_MODEL: &str = "mistral-small-latest";
/// Models the page offers (the learner's key decides which they may use).
pub const MODELS: [&str; 3] = [
    "mistral-small-latest",
    "mistral-medium-latest",
    "mistral-large-latest",
];

/// Indicative prices of mistral-small-latest, US dollars per million tokens (input, output), to
/// check on Mistral's pricing page: the page labels costs computed with them as estimates.
pub const SMALL_USD_PER_MILLION: (f64, f64) = (0.10, 0.30);

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
}

/// Parses a chat completion. `choices[0].message.content` may be a string or a list of chunks
/// (`{"type":"text","text":…}`, `{"type":"reference",…}`…): the text chunks are joined, the others
/// ignored.
pub fn parse_chat(body: &str) -> Result<Chat, ApiError> {
    let malformed = |detail: String| ApiError::Malformed { detail };
    let v: serde_json::Value = serde_json::from_str(body).map_err(|e| {
        let start: String = body.chars().take(40).collect();
        malformed(format!("{e}; the body starts with {start:?}"))
    })?;
    let content = &v["choices"][0]["message"]["content"];
    let text = match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(chunks) => chunks
            .iter()
            .filter(|c| c["type"] == "text")
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        serde_json::Value::Null => return Err(malformed("no choices[0].message.content".into())),
        other => return Err(malformed(format!("content is {other}"))),
    };
    let tokens = |k: &str| v["usage"][k].as_u64().unwrap_or(0);
    Ok(Chat {
        content: text,
        prompt_tokens: tokens("prompt_tokens"),
        completion_tokens: tokens("completion_tokens"),
    })
}

/// Estimated cost in US dollars of a call to mistral-small-latest.
pub fn cost_usd(prompt_tokens: u64, completion_tokens: u64) -> f64 {
    let (i, o) = SMALL_USD_PER_MILLION;
    (prompt_tokens as f64 * i + completion_tokens as f64 * o) / 1_000_000.0
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
                completion_tokens: 7
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
}
