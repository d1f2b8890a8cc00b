//! The learner's own files, sorted before anything is read: which file is the fiches, which the
//! questions, which the vectors, by name; each checked against its size limit from the size the
//! browser reports, so that a file too large is refused without being read into memory.

use crate::data::vectors::MAX_FILE_BYTES;

/// The page's memory per byte of `fiches.jsonl`: its module's memory once a catalogue is read,
/// parsed and indexed, over the file's size (the module's memory never shrinks: it is the peak),
/// measured on 100,000 synthetic fiches (BENCHMARKS.md, « 100,000 fiches in the page ») and
/// raised to leave room for the indexes « Améliorer » builds beside the catalogue's.
pub const PAGE_BYTES_PER_FICHES_BYTE: u64 = 6;

/// The memory assumed where the browser does not say (`navigator.deviceMemory` is Chromium's):
/// a phone's 4 GiB.
pub const DEFAULT_DEVICE_GIB: f64 = 4.0;

/// The most the page gives a catalogue whatever the device: wasm32 addresses 4 GiB, and the
/// page's module holds more than the catalogue.
pub const MAX_PAGE_BYTES: u64 = 2 << 30;

/// The largest `fiches.jsonl` the page reads on a device of `device_gib` GiB (as the browser
/// says, `None` where it does not): the catalogue may take a quarter of the device's memory, as
/// `mesurer` takes a quarter of the memory available, at [`PAGE_BYTES_PER_FICHES_BYTE`].
pub fn fiches_limit(device_gib: Option<f64>) -> u64 {
    let gib = device_gib
        .filter(|g| g.is_finite() && *g > 0.0)
        .unwrap_or(DEFAULT_DEVICE_GIB);
    let quarter = (gib * (1u64 << 30) as f64 / 4.0).min(MAX_PAGE_BYTES as f64) as u64;
    quarter / PAGE_BYTES_PER_FICHES_BYTE
}
/// `questions.csv` at most this large (the bundled one is 3 kB).
pub const MAX_QUESTIONS_BYTES: u64 = 2 << 20;

/// What a file is, from its name's extension (case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `.jsonl` (or `.json`): the fiches.
    Fiches,
    /// `.csv`: the questions.
    Questions,
    /// `.safetensors`: a vectors file made by this project (fingerprinted).
    Vectors,
    /// `.npy`: the seed's `vecteurs.npy` (shape-checked only).
    Npy,
}

impl FileKind {
    /// The kind of a file named `name`, or `None` for a name the lab does not read.
    pub fn of(name: &str) -> Option<FileKind> {
        let lower = name.to_lowercase();
        let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
        match ext {
            "jsonl" | "json" => Some(FileKind::Fiches),
            "csv" => Some(FileKind::Questions),
            "safetensors" => Some(FileKind::Vectors),
            "npy" => Some(FileKind::Npy),
            _ => None,
        }
    }

    /// The largest file of this kind the lab reads, in bytes, the fiches up to `fiches_max`
    /// ([`fiches_limit`]).
    pub fn max_bytes(self, fiches_max: u64) -> u64 {
        match self {
            FileKind::Fiches => fiches_max,
            FileKind::Questions => MAX_QUESTIONS_BYTES,
            FileKind::Vectors | FileKind::Npy => MAX_FILE_BYTES as u64,
        }
    }
}

/// Why a set of files cannot be loaded, before any of them is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntakeError {
    /// A file whose name says nothing the lab reads.
    Unrecognised { name: String },
    /// A file over its kind's limit.
    TooLarge { name: String, bytes: u64, max: u64 },
    /// Fiches over what this device's memory allows ([`fiches_limit`]).
    FichesTooLarge { name: String, bytes: u64, max: u64 },
    /// Two files of one kind: which one was meant is not guessed.
    Twice { first: String, second: String },
    /// No fiches among the files (the questions and the vectors go with fiches).
    NoFiches,
    /// A file that is not UTF-8 text: `line` holds the first invalid byte.
    NotUtf8 { name: String, line: usize },
}

/// The files chosen, by index into the list given to [`sort_files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub fiches: usize,
    /// The questions, if given: a catalogue alone is searched, and measured once it has some.
    pub questions: Option<usize>,
    /// A vectors file (`.safetensors` or `.npy`), if one was given.
    pub vectors: Option<(usize, FileKind)>,
}

/// Sorts `files` (name, size in bytes) into fiches (at most `fiches_max` bytes: [`fiches_limit`]),
/// questions and vectors; every problem found is returned, not just the first.
pub fn sort_files(files: &[(String, u64)], fiches_max: u64) -> Result<Selection, Vec<IntakeError>> {
    let mut errors = Vec::new();
    let mut fiches: Option<(usize, FileKind)> = None;
    let mut questions: Option<(usize, FileKind)> = None;
    let mut vectors: Option<(usize, FileKind)> = None;
    for (i, (name, bytes)) in files.iter().enumerate() {
        let Some(kind) = FileKind::of(name) else {
            errors.push(IntakeError::Unrecognised { name: name.clone() });
            continue;
        };
        let max = kind.max_bytes(fiches_max);
        if *bytes > max {
            errors.push(match kind {
                FileKind::Fiches => IntakeError::FichesTooLarge {
                    name: name.clone(),
                    bytes: *bytes,
                    max,
                },
                _ => IntakeError::TooLarge {
                    name: name.clone(),
                    bytes: *bytes,
                    max,
                },
            });
            continue;
        }
        let slot = match kind {
            FileKind::Fiches => &mut fiches,
            FileKind::Questions => &mut questions,
            FileKind::Vectors | FileKind::Npy => &mut vectors,
        };
        match slot {
            Some((first, _)) => errors.push(IntakeError::Twice {
                first: files[*first].0.clone(),
                second: name.clone(),
            }),
            None => *slot = Some((i, kind)),
        }
    }
    if errors.is_empty() && fiches.is_none() {
        errors.push(IntakeError::NoFiches);
    }
    match fiches {
        Some((f, _)) if errors.is_empty() => Ok(Selection {
            fiches: f,
            questions: questions.map(|(q, _)| q),
            vectors,
        }),
        _ => Err(errors),
    }
}

/// The text of a file, or the line of its first byte that is not UTF-8.
pub fn utf8_text(name: &str, bytes: Vec<u8>) -> Result<String, IntakeError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        IntakeError::NotUtf8 {
            name: name.to_owned(),
            line,
        }
    })
}

/// Bytes checked between two pauses of [`utf8_text_pausing`].
pub const UTF8_STEP_BYTES: usize = 1 << 20;

/// [`utf8_text`] in steps of [`UTF8_STEP_BYTES`], awaiting `pause` between them, so that 20 MB of
/// fiches are not checked in one task of the page's thread. The text is copied into its `String`
/// step by step (safe code cannot skip the second check of `String::from_utf8`); bytes that are
/// not UTF-8 are reported like [`utf8_text`] does.
pub async fn utf8_text_pausing<F, Fut>(
    name: &str,
    bytes: Vec<u8>,
    mut pause: F,
) -> Result<String, IntakeError>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut text = String::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let mut end = bytes.len().min(at + UTF8_STEP_BYTES);
        // A character cut by the step's end goes to the next step: back over its continuation
        // bytes (at most three in UTF-8; more means the bytes are not UTF-8, found below).
        let floor = end.saturating_sub(3).max(at + 1);
        while end < bytes.len() && end > floor && bytes[end] & 0xC0 == 0x80 {
            end -= 1;
        }
        match std::str::from_utf8(&bytes[at..end]) {
            Ok(s) => text.push_str(s),
            Err(_) => return utf8_text(name, bytes),
        }
        at = end;
        pause(at).await;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepped_check_equals_the_one_go_check() {
        let stepped = |bytes: Vec<u8>| {
            crate::steps::run_ready(utf8_text_pausing("f.jsonl", bytes, |_| {
                std::future::ready(())
            }))
        };
        // Characters of 2, 3 and 4 bytes cut by every step's end, over several steps.
        let text = "aé€😀".repeat(UTF8_STEP_BYTES / 3);
        assert_eq!(stepped(text.clone().into_bytes()).unwrap(), text);
        let mut bad = text.clone().into_bytes();
        bad.extend_from_slice(b"\nbad \xff here\n");
        assert_eq!(stepped(bad.clone()), utf8_text("f.jsonl", bad));
        // Cut at the very end: not UTF-8, reported, never a panic.
        let mut cut = text.into_bytes();
        cut.push(0xe2);
        assert_eq!(stepped(cut.clone()), utf8_text("f.jsonl", cut));
        assert_eq!(stepped(Vec::new()).unwrap(), "");
    }

    fn files(list: &[(&str, u64)]) -> Vec<(String, u64)> {
        list.iter().map(|(n, b)| (n.to_string(), *b)).collect()
    }

    #[test]
    fn sorts_files_by_extension_whatever_their_case() {
        let s = sort_files(
            &files(&[("Q.CSV", 10), ("mes-fiches.JSONL", 10), ("v.npy", 10)]),
            100,
        )
        .unwrap();
        assert_eq!(s.fiches, 1);
        assert_eq!(s.questions, Some(0));
        assert_eq!(s.vectors, Some((2, FileKind::Npy)));
    }

    #[test]
    fn refuses_unknown_too_large_doubled_and_missing_files_all_at_once() {
        let e = sort_files(
            &files(&[
                ("notes.txt", 1),
                ("a.jsonl", 101),
                ("q.csv", 1),
                ("r.csv", 1),
            ]),
            100,
        )
        .unwrap_err();
        assert_eq!(
            e,
            vec![
                IntakeError::Unrecognised {
                    name: "notes.txt".into()
                },
                IntakeError::FichesTooLarge {
                    name: "a.jsonl".into(),
                    bytes: 101,
                    max: 100
                },
                IntakeError::Twice {
                    first: "q.csv".into(),
                    second: "r.csv".into()
                },
            ]
        );
        assert_eq!(
            sort_files(&files(&[("q.csv", 1)]), 100).unwrap_err(),
            vec![IntakeError::NoFiches]
        );
        // Fiches alone are a catalogue.
        assert_eq!(
            sort_files(&files(&[("f.jsonl", 1)]), 100),
            Ok(Selection {
                fiches: 0,
                questions: None,
                vectors: None
            })
        );
        assert!(FileKind::of("sans-extension").is_none());
    }

    #[test]
    fn the_fiches_limit_follows_the_devices_memory() {
        let per = PAGE_BYTES_PER_FICHES_BYTE;
        // A quarter of the device, at the measured bytes per byte of fiches.
        assert_eq!(fiches_limit(Some(8.0)), (2 << 30) / per);
        assert_eq!(fiches_limit(Some(0.5)), (128 << 20) / per);
        // Not said, or nonsense: a 4 GiB phone's.
        for unknown in [
            None,
            Some(0.0),
            Some(-1.0),
            Some(f64::NAN),
            Some(f64::INFINITY),
        ] {
            assert_eq!(fiches_limit(unknown), (1 << 30) / per, "{unknown:?}");
        }
        // Never past what the page's module can hold.
        assert_eq!(fiches_limit(Some(64.0)), MAX_PAGE_BYTES / per);
        // 100,000 fiches of 300 bytes on the devices most phones are.
        assert!(fiches_limit(None) > 30_000_000);
    }

    #[test]
    fn names_the_line_of_the_first_byte_that_is_not_utf8() {
        let bytes = b"ok\nok\nbad \xff here\n".to_vec();
        assert_eq!(
            utf8_text("f.jsonl", bytes),
            Err(IntakeError::NotUtf8 {
                name: "f.jsonl".into(),
                line: 3
            })
        );
        assert_eq!(utf8_text("f", b"fine".to_vec()).unwrap(), "fine");
    }
}
