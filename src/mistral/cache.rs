//! The keys under which the page keeps what cost money to compute (IndexedDB), built in one place
//! so that what is stored and what is looked up cannot drift apart. Each key holds everything the
//! value depends on: a value is reused only for exactly the same input.

use sha2::{Digest, Sha256};

use super::chat::Message;

/// The fiche vectors file of a catalogue: the model and the fingerprint of the texts embedded
/// (see [`crate::data::vectors::fingerprint`]).
pub fn fiche_vectors(model: &str, fingerprint: &str) -> String {
    format!("{model}|{fingerprint}")
}

/// One question's vector: the model and the exact text embedded.
pub fn question_vector(model: &str, question: &str) -> String {
    format!("{model}|{question}")
}

/// A chat answer: a SHA-256 of the model and of every message sent, each length-prefixed, so that
/// the same fiche ids with other texts (another catalogue) never reuse an answer.
pub fn answer(model: &str, messages: &[Message]) -> String {
    let mut h = Sha256::new();
    let mut part = |s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    part(model);
    for m in messages {
        part(&m.role);
        part(&m.content);
    }
    let digest = h.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("chat|{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }

    #[test]
    fn an_answer_key_changes_with_the_model_and_any_text_sent() {
        let base = answer("m", &[msg("system", "a"), msg("user", "[AR-1] x")]);
        assert_ne!(
            base,
            answer("n", &[msg("system", "a"), msg("user", "[AR-1] x")])
        );
        assert_ne!(
            base,
            answer("m", &[msg("system", "a"), msg("user", "[AR-1] y")])
        );
        // Length prefixes: moving a boundary between two texts gives another key.
        assert_ne!(
            answer("m", &[msg("ab", "c")]),
            answer("m", &[msg("a", "bc")])
        );
        assert_eq!(
            base,
            answer("m", &[msg("system", "a"), msg("user", "[AR-1] x")])
        );
    }

    #[test]
    fn vector_keys_hold_the_model() {
        assert_eq!(
            question_vector("mistral-embed", "Un joint ?"),
            "mistral-embed|Un joint ?"
        );
        assert_eq!(fiche_vectors("mistral-embed", "abc"), "mistral-embed|abc");
    }
}
