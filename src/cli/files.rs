//! The files the terminal reads: regular files only, bounded in size; fiches read as a stream.

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

/// The graded qrels at `path` for `questions` over the catalogue's `fiches`; a refusal says, in
/// French, the file, the line and what to fix.
pub fn read_qrels(
    path: &str,
    questions: &[crate::data::Question],
    fiches: &[crate::data::Fiche],
) -> Result<crate::measure::graded::Qrels, String> {
    let ids = fiches.iter().map(|f| f.id.as_str()).collect();
    crate::measure::graded::Qrels::parse(&read_text(path)?, questions, &ids)
        .map_err(|e| crate::fr::messages::qrels(&e, path))
}
