//! The local model file's identity: its content hash, which the build names in
//! `data/manifeste.json` (`modele_local`), and the key the page caches it under. A cached model is
//! used only if it is byte for byte the one the page names; the worker checks the hash of what it
//! receives before preparing it.

use sha2::{Digest, Sha256};

/// Where the page is served the local model, relative to the page.
pub const MODEL_FILE: &str = "data/modele-local.safetensors";

/// The manifest's field naming the page's model head ([`super::blocks::HEAD_FILE`]) by the
/// content hash of its bytes once decompressed.
pub const HEAD_FIELD: &str = "modele_local_tete";

/// `sha256:` and the hex SHA-256 of `bytes`: the form the manifest and the worker use.
pub fn content_hash(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The browser cache's key for the model whose content hash is `hash`: a model of other bytes
/// (another build) has another key, so it is never taken for this one.
pub fn cache_key(hash: &str) -> String {
    format!("{MODEL_FILE}#{hash}")
}
