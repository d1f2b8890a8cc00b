//! The learner's own files, sorted before anything is read: which file is the fiches, which the
//! questions, which the vectors, by name; each checked against its size limit from the size the
//! browser reports, so that a file too large is refused without being read into memory.

use crate::data::vectors::MAX_FILE_BYTES;

/// `fiches.jsonl` at most this large (the bundled one is 70 kB; 50k synthetic fiches are 17 MB).
pub const MAX_FICHES_BYTES: u64 = 20 << 20;
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

    /// The largest file of this kind the lab reads, in bytes.
    pub fn max_bytes(self) -> u64 {
        match self {
            FileKind::Fiches => MAX_FICHES_BYTES,
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

/// Sorts `files` (name, size in bytes) into fiches, questions and vectors; every problem found is
/// returned, not just the first.
pub fn sort_files(files: &[(String, u64)]) -> Result<Selection, Vec<IntakeError>> {
    let mut errors = Vec::new();
    let mut fiches: Option<(usize, FileKind)> = None;
    let mut questions: Option<(usize, FileKind)> = None;
    let mut vectors: Option<(usize, FileKind)> = None;
    for (i, (name, bytes)) in files.iter().enumerate() {
        let Some(kind) = FileKind::of(name) else {
            errors.push(IntakeError::Unrecognised { name: name.clone() });
            continue;
        };
        if *bytes > kind.max_bytes() {
            errors.push(IntakeError::TooLarge {
                name: name.clone(),
                bytes: *bytes,
                max: kind.max_bytes(),
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
        let s = sort_files(&files(&[
            ("Q.CSV", 10),
            ("mes-fiches.JSONL", 10),
            ("v.npy", 10),
        ]))
        .unwrap();
        assert_eq!(s.fiches, 1);
        assert_eq!(s.questions, Some(0));
        assert_eq!(s.vectors, Some((2, FileKind::Npy)));
    }

    #[test]
    fn refuses_unknown_too_large_doubled_and_missing_files_all_at_once() {
        let e = sort_files(&files(&[
            ("notes.txt", 1),
            ("a.jsonl", MAX_FICHES_BYTES + 1),
            ("q.csv", 1),
            ("r.csv", 1),
        ]))
        .unwrap_err();
        assert_eq!(
            e,
            vec![
                IntakeError::Unrecognised {
                    name: "notes.txt".into()
                },
                IntakeError::TooLarge {
                    name: "a.jsonl".into(),
                    bytes: MAX_FICHES_BYTES + 1,
                    max: MAX_FICHES_BYTES
                },
                IntakeError::Twice {
                    first: "q.csv".into(),
                    second: "r.csv".into()
                },
            ]
        );
        assert_eq!(
            sort_files(&files(&[("q.csv", 1)])).unwrap_err(),
            vec![IntakeError::NoFiches]
        );
        // Fiches alone are a catalogue.
        assert_eq!(
            sort_files(&files(&[("f.jsonl", 1)])),
            Ok(Selection {
                fiches: 0,
                questions: None,
                vectors: None
            })
        );
        assert!(FileKind::of("sans-extension").is_none());
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
