//! The terminal's side of the network: a blocking client for Mistral's embeddings API (ureq),
//! following the core's batching and retry policy. The client is native only (the page uses
//! `fetch`); on wasm32 the terminal fronts still compile, with the fake embedder alone.

#[cfg(not(target_arch = "wasm32"))]
use std::time::Duration;

use crate::mistral;
#[cfg(not(target_arch = "wasm32"))]
use crate::mistral::{ApiError, ApiKey, Attempt, CallKind, Next};
use crate::search::embed::{Embedder, FakeEmbedder};

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

/// `secs` after the Unix epoch as an ISO 8601 UTC timestamp, to the second (Howard Hinnant's
/// days-to-civil algorithm: no date crate for one line of a file).
pub fn iso_utc(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Updates the manifest beside `out` (`manifeste.json`, where the page looks for what ships)
/// with `fields`, keeping its other fields; `what` names the file just written, for the messages.
/// No manifest there: nothing to do (`Ok(false)`).
pub fn update_manifest(
    out: &str,
    what: &str,
    fields: Vec<(&str, serde_json::Value)>,
) -> Result<bool, String> {
    let manifest = std::path::Path::new(out).with_file_name("manifeste.json");
    if !manifest.exists() {
        return Ok(false);
    }
    let old = read_text(&manifest.to_string_lossy())?;
    let mut value: serde_json::Value = serde_json::from_str(&old).map_err(|e| {
        format!(
            "{} is not JSON ({e}): the {what} are written, the manifest is left as it is",
            manifest.display()
        )
    })?;
    let Some(map) = value.as_object_mut() else {
        return Err(format!(
            "{} is not a JSON object: the {what} are written, the manifest is left as it is",
            manifest.display()
        ));
    };
    for (k, v) in fields {
        map.insert(k.to_owned(), v);
    }
    std::fs::write(&manifest, value.to_string() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    Ok(true)
}

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
            TerminalEmbedder::Local(m) => Ok(texts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let v = m.embed(t);
                    progress(i + 1, texts.len());
                    v
                })
                .collect()),
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

/// Why a terminal program stops. Only a usage error (an unknown flag, a missing value) prints the
/// usage; any other failure is one line, with a hint where one helps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// `--help`: the usage, exit 0.
    Help,
    /// The command line is wrong: the message, then the usage, exit 2.
    Usage(String),
    /// The command line is right but the work failed (a file, the API): the message, exit 2.
    Run(String),
}

impl From<String> for Fail {
    fn from(message: String) -> Fail {
        Fail::Run(message)
    }
}

impl From<&str> for Fail {
    fn from(message: &str) -> Fail {
        Fail::Run(message.to_owned())
    }
}

/// Writes `args` to standard output. A reader that has left (`mesurer | head`) ends the program
/// quietly with success, as Unix tools do; any other failure to write ends it with status 2.
/// `println!` would panic on the closed pipe.
pub fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// `print!` for the terminal fronts, through [`write_out`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::write_out(format_args!($($t)*)) };
}

/// `println!` for the terminal fronts, through [`write_out`].
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::write_out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

/// The terminal fronts' exit: success; `--help` prints the usage; a usage error prints the
/// message and the usage; any other error prints the message and a one-line hint; both exit with
/// status 2, never a panic.
pub fn finish(name: &str, usage: &str, result: Result<(), Fail>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(Fail::Help) => {
            crate::outln!("{usage}");
            std::process::ExitCode::SUCCESS
        }
        Err(Fail::Usage(e)) => {
            eprintln!("{name}: {e}");
            eprintln!("{usage}");
            std::process::ExitCode::from(2)
        }
        Err(Fail::Run(e)) => {
            eprintln!("{name}: {e}");
            eprintln!("({name} --help lists the options)");
            std::process::ExitCode::from(2)
        }
    }
}

/// The program's arguments; one that is not UTF-8 is a usage error, not a panic.
pub fn args() -> Result<Vec<String>, Fail> {
    std::env::args_os()
        .skip(1)
        .map(|a| {
            a.into_string().map_err(|a| {
                Fail::Usage(format!(
                    "the argument {} is not UTF-8 text",
                    a.to_string_lossy()
                ))
            })
        })
        .collect()
}

/// Files the terminal reads whole are refused beyond this size: a vectors file of 130,000 fiches
/// is 256 MiB. Fiches are read as a stream instead, up to a limit on memory ([`read_fiches`]).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// `path`'s metadata, if it is a regular file: a FIFO would block, a device such as /dev/zero
/// never ends, a directory is no file.
fn regular_file(path: &str) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, a socket or a device)"
        };
        return Err(format!("cannot read {path}: it is {what}; give a file"));
    }
    Ok(meta)
}

/// How many bytes of fiches the terminal reads before it stops: a quarter of the memory this
/// machine has available (`MemAvailable` of /proc/meminfo; 4 GiB where there is none), as the
/// fiches and the index built over them peak at several times the file's size (`mots+`,
/// BENCHMARKS.md). `RAG_FICHES_MEMOIRE` (bytes) sets the available memory instead (the tests').
/// Returns (the limit, the memory available).
pub fn fiches_limit() -> (u64, u64) {
    let available = std::env::var("RAG_FICHES_MEMOIRE")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .or_else(|| {
            let info = std::fs::read_to_string("/proc/meminfo").ok()?;
            let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(4 << 30);
    (available / 4, available)
}

/// The fiches of `path` (`fiches.jsonl`), read as a stream: the file is never held whole, so a
/// catalogue takes about what its fiches and index need. Stops, saying so in English and in
/// French, when the fiches read pass [`fiches_limit`].
pub fn read_fiches(path: &str) -> Result<Vec<crate::data::Fiche>, String> {
    use std::io::BufRead;
    regular_file(path)?;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let (limit, available) = fiches_limit();
    let mut lines = crate::data::FicheLines::new(crate::data::nfc);
    let mut buf = Vec::new();
    let (mut line, mut read) = (0usize, 0u64);
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        if n == 0 {
            break;
        }
        line += 1;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            format!(
                "{path}, line {line}: not UTF-8 text (byte {} of the file); save it as UTF-8",
                read + e.valid_up_to() as u64 + 1
            )
        })?;
        read += n as u64;
        if read > limit {
            // In kB or MB, with one decimal; the French with its comma.
            let size = |b: u64| {
                let (v, en, fr) = match b {
                    0..=9_999_999 => (b as f64 / 1e3, "kB", "ko"),
                    _ => (b as f64 / 1e6, "MB", "Mo"),
                };
                (
                    format!("{v:.1} {en}"),
                    format!("{} {fr}", crate::fr::decimal(v, 1)),
                )
            };
            let [(r, rf), (l, lf), (a, af)] = [read, limit, available].map(size);
            return Err(format!(
                "{path}: stopped at line {line}: {r} of fiches read, more than this machine can hold with their index ({l}: a quarter of its {a} of available memory) / arrêté à la ligne {line} : {rf} de fiches lus, plus que cette machine ne peut en tenir avec leur index ({lf} : le quart de ses {af} de mémoire disponible)"
            ));
        }
        let raw = text.strip_suffix('\n').unwrap_or(text);
        lines.push(line, raw).map_err(|e| format!("{path}: {e}"))?;
    }
    lines.finish().map_err(|e| format!("{path}: {e}"))
}

/// The bytes of a file the terminal was given: a regular file (a FIFO would block, a device such
/// as /dev/zero never ends) of at most [`MAX_FILE_BYTES`].
pub fn read_bytes(path: &str) -> Result<Vec<u8>, String> {
    let meta = regular_file(path)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "cannot read {path}: {} bytes, over the limit of {MAX_FILE_BYTES} bytes",
            meta.len()
        ));
    }
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "cannot read {path}: over the limit of {MAX_FILE_BYTES} bytes"
        ));
    }
    Ok(bytes)
}

/// The text of a file the terminal was given (see [`read_bytes`]), or the line of its first byte
/// that is not UTF-8.
pub fn read_text(path: &str) -> Result<String, String> {
    String::from_utf8(read_bytes(path)?).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!(
            "{path}, line {line}: not UTF-8 text (byte {} of the file); save it as UTF-8",
            at + 1
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{check_api_base, iso_utc};

    #[test]
    fn timestamps_are_iso_utc_days_and_leap_years_included() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(1_796_425_981), "2026-12-04T23:13:01Z");
        assert_eq!(iso_utc(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn the_key_goes_only_to_mistral_or_a_loopback_mock() {
        for ok in [
            "https://api.mistral.ai",
            "http://127.0.0.1:8788",
            "http://localhost:9",
            "http://[::1]:8080",
            "http://127.0.0.1",
        ] {
            assert!(check_api_base(ok).is_ok(), "{ok}");
        }
        for refused in [
            "https://api.mistral.ai.example.com",
            "http://api.mistral.ai",
            "http://127.0.0.1.example.com",
            "http://localhost:80@evil.example",
            "http://127.0.0.1:",
            "https://evil.example",
            "",
        ] {
            assert!(check_api_base(refused).is_err(), "{refused}");
        }
    }
}
