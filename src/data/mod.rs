//! The seed's two files: `fiches.jsonl` (one JSON object a line) and `questions.csv`
//! (`;`-separated, header `type;question;fiche_attendue`).
//!
//! Parsing is strict where a wrong file would silently give wrong measurements (missing fields,
//! unknown question types, duplicate ids) and lenient where the seed's own files allow it (CRLF, a
//! trailing newline, blank lines, a UTF-8 BOM). Every error names the line and the field, so a
//! learner editing a file by hand can find the mistake.

/// What the learner gives the page: file kinds, size limits, checked before reading.
pub mod intake;
/// NumPy's `.npy` format (the seed's `vecteurs.npy`), shape-checked only.
pub mod npy;
/// Fiche vectors read a slice at a time, their exact values kept outside memory (the worker's).
pub mod stored;
/// A deterministic synthetic catalogue (1k to 50k fiches) for measuring scale.
pub mod synth;
/// The fiche vectors file: safetensors, f16, fingerprinted metadata, and its checks.
pub mod vectors;

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// One product sheet of the catalogue. Only `texte` is searched; `nom` and `famille` are shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fiche {
    pub id: String,
    pub famille: String,
    pub nom: String,
    pub texte: String,
}

/// What a question measures (the seed's `type` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QuestionKind {
    /// Quotes a reference as the catalogue writes it: finding the right variant.
    Exacte,
    /// Everyday words that the fiche may not use.
    Courante,
    /// No fiche answers: the right answer is « pas dans le catalogue ».
    Absente,
}

impl QuestionKind {
    /// The two kinds that have an expected fiche, in the order the seed prints them.
    pub const ANSWERABLE: [QuestionKind; 2] = [QuestionKind::Exacte, QuestionKind::Courante];

    pub fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Exacte => "exacte",
            QuestionKind::Courante => "courante",
            QuestionKind::Absente => "absente",
        }
    }

    pub fn parse(s: &str) -> Option<QuestionKind> {
        match s {
            "exacte" => Some(QuestionKind::Exacte),
            "courante" => Some(QuestionKind::Courante),
            "absente" => Some(QuestionKind::Absente),
            _ => None,
        }
    }
}

/// One line of `questions.csv`. `expected` is `None` exactly when `kind` is `Absente`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub kind: QuestionKind,
    pub text: String,
    pub expected: Option<String>,
}

/// Why a fiches or questions file was refused. Lines are counted from 1, as an editor shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataError {
    /// The file is empty or holds only blank lines.
    Empty { file: &'static str },
    /// The file holds its header line and nothing after it.
    HeaderOnly { file: &'static str },
    /// A line of `fiches.jsonl` is not a JSON object: where (the column of the line, when the
    /// parser knows it) and why.
    Json {
        line: usize,
        column: Option<usize>,
        problem: JsonProblem,
    },
    /// A required field is absent.
    MissingField {
        file: &'static str,
        line: usize,
        field: &'static str,
    },
    /// A field that must be a string holds another JSON type.
    WrongType {
        file: &'static str,
        line: usize,
        field: &'static str,
        found: JsonType,
    },
    /// A field that must say something is empty (an id, a texte, a question).
    EmptyField {
        file: &'static str,
        line: usize,
        field: &'static str,
    },
    /// An id with a space, tab, line break or invisible character ([`is_invisible`]): TREC files
    /// and citations `[AR-0040]` need it whole, and it must not look like another id.
    IdWithSpace { line: usize, id: String },
    /// The same fiche id twice (also when equal only after Unicode NFC normalisation): results
    /// could not tell them apart.
    DuplicateId {
        id: String,
        first_line: usize,
        line: usize,
    },
    /// The CSV header is not `type;question;fiche_attendue`.
    BadHeader { found: String },
    /// A CSV row that the reader could not split (unbalanced quotes, wrong field count).
    Csv { line: usize, message: String },
    /// `type` is not one of exacte, courante, absente.
    UnknownKind { line: usize, found: String },
    /// An answerable question without an expected fiche, or an absente with one.
    ExpectedMismatch { line: usize, kind: QuestionKind },
    /// The expected fiche id is not in the catalogue the questions are measured on.
    UnknownExpected { line: usize, id: String },
}

/// The JSON type found where a string was expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    Number,
    Bool,
    Null,
    List,
    Object,
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::Number => "a number",
            JsonType::Bool => "true or false",
            JsonType::Null => "null",
            JsonType::List => "a list",
            JsonType::Object => "an object",
        })
    }
}

/// Why a fiches line is not a JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonProblem {
    /// Not JSON: a missing quote, comma or brace, a stray character.
    Syntax,
    /// The line stops before the object is closed.
    Truncated,
    /// Valid JSON, but not an object (a list, a string, a number).
    NotObject,
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Empty { file } => write!(f, "{file}: the file is empty"),
            DataError::HeaderOnly { file } => {
                write!(f, "{file}: the header line is there, no question follows it")
            }
            DataError::Json {
                line,
                column,
                problem,
            } => {
                let at = column.map_or(String::new(), |c| format!(", column {c}"));
                let why = match problem {
                    JsonProblem::Syntax => "invalid JSON",
                    JsonProblem::Truncated => "the JSON object ends too early",
                    JsonProblem::NotObject => "a JSON value that is not an object",
                };
                write!(f, "fiches.jsonl, line {line}{at}: not a JSON object ({why})")
            }
            DataError::MissingField { file, line, field } => {
                write!(f, "{file}, line {line}: missing field \"{field}\" (a text is expected)")
            }
            DataError::WrongType {
                file,
                line,
                field,
                found,
            } => write!(
                f,
                "{file}, line {line}: field \"{field}\" must be a string, found {found}"
            ),
            DataError::EmptyField { file, line, field } => {
                write!(f, "{file}, line {line}: field \"{field}\" is empty")
            }
            DataError::IdWithSpace { line, id } => write!(
                f,
                "fiches.jsonl, line {line}: id {id:?} holds a space, a line break or an invisible character; ids must be one visible word (TREC files and citations need them whole)"
            ),
            DataError::DuplicateId { id, first_line, line } => write!(
                f,
                "fiches.jsonl, line {line}: id \"{id}\" already used on line {first_line}; ids must be unique"
            ),
            DataError::BadHeader { found } => write!(
                f,
                "questions.csv, line 1: expected the header \"type;question;fiche_attendue\", found \"{found}\""
            ),
            DataError::Csv { line, message } => write!(f, "questions.csv, line {line}: {message}"),
            DataError::UnknownKind { line, found } => write!(
                f,
                "questions.csv, line {line}: field \"type\" is \"{found}\"; expected exacte, courante or absente"
            ),
            DataError::ExpectedMismatch { line, kind } => match kind {
                QuestionKind::Absente => write!(
                    f,
                    "questions.csv, line {line}: an absente question must leave \"fiche_attendue\" empty"
                ),
                _ => write!(
                    f,
                    "questions.csv, line {line}: field \"fiche_attendue\" is empty; a {} question needs the id of its fiche",
                    kind.as_str()
                ),
            },
            DataError::UnknownExpected { line, id } => write!(
                f,
                "questions.csv, line {line}: fiche_attendue \"{id}\" is not an id of the fiches"
            ),
        }
    }
}

impl std::error::Error for DataError {}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses `fiches.jsonl`: one object a line with string fields `id`, `famille`, `nom`, `texte`
/// (other fields are ignored). Blank lines are skipped; ids must be unique and non-empty.
pub fn parse_fiches(text: &str) -> Result<Vec<Fiche>, DataError> {
    parse_fiches_with(text, nfc)
}

/// How ids are brought to Unicode NFC before duplicates are looked for: [`nfc`], or in the page
/// the JavaScript engine's `String.prototype.normalize("NFC")` (`web::nfc`): `unicode-normalization`'s
/// tables were 122 kB of the page's module (62 kB gzipped, measured), for what every browser
/// already has. The two agree (a browser-ring test).
pub type IdNormalizer = fn(&str) -> String;

/// [`parse_fiches`] with ids compared through `normalize`.
pub fn parse_fiches_with(text: &str, normalize: IdNormalizer) -> Result<Vec<Fiche>, DataError> {
    crate::steps::run_ready(parse_fiches_pausing(text, normalize, |_| {
        std::future::ready(())
    }))
}

/// Lines of `fiches.jsonl` parsed between two pauses of [`parse_fiches_pausing`].
pub const LINES_PER_STEP: usize = 128;

/// [`parse_fiches`], awaiting `pause(lines read)` after every [`LINES_PER_STEP`] lines: the page
/// yields to its event loop there.
pub async fn parse_fiches_pausing<F, Fut>(
    text: &str,
    normalize: IdNormalizer,
    mut pause: F,
) -> Result<Vec<Fiche>, DataError>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut lines = FicheLines::new(normalize);
    // The byte-order mark is taken off the first line by `push`.
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        if line % LINES_PER_STEP == 0 {
            pause(line).await;
        }
        lines.push(line, raw)?;
    }
    lines.finish()
}

/// Fiches read line by line: [`parse_fiches`] feeds it a whole text, the terminal a file as it
/// reads it (`cli::read_fiches`), so that a large catalogue is never held twice.
pub struct FicheLines {
    fiches: Vec<Fiche>,
    seen: std::collections::HashMap<String, usize>,
    normalize: IdNormalizer,
}

impl FicheLines {
    pub fn new(normalize: IdNormalizer) -> FicheLines {
        FicheLines {
            fiches: Vec::new(),
            seen: std::collections::HashMap::new(),
            normalize,
        }
    }

    /// Line number `line` (from 1), without its `\n`: a fiche, or a blank line skipped.
    pub fn push(&mut self, line: usize, raw: &str) -> Result<(), DataError> {
        const FILE: &str = "fiches.jsonl";
        let raw = if line == 1 { strip_bom(raw) } else { raw };
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() {
            return Ok(());
        }
        let value: serde_json::Value = serde_json::from_str(raw).map_err(|e| DataError::Json {
            line,
            column: Some(e.column()),
            problem: match e.classify() {
                serde_json::error::Category::Eof => JsonProblem::Truncated,
                _ => JsonProblem::Syntax,
            },
        })?;
        let obj = value.as_object().ok_or(DataError::Json {
            line,
            column: None,
            problem: JsonProblem::NotObject,
        })?;
        // Each field: present, a string, and not blank (the README promises all four).
        let field = |name: &'static str| -> Result<String, DataError> {
            let found = match obj.get(name) {
                None => {
                    return Err(DataError::MissingField {
                        file: FILE,
                        line,
                        field: name,
                    })
                }
                Some(serde_json::Value::String(s)) if s.trim().is_empty() => {
                    return Err(DataError::EmptyField {
                        file: FILE,
                        line,
                        field: name,
                    })
                }
                Some(serde_json::Value::String(s)) => return Ok(s.clone()),
                Some(serde_json::Value::Number(_)) => JsonType::Number,
                Some(serde_json::Value::Bool(_)) => JsonType::Bool,
                Some(serde_json::Value::Null) => JsonType::Null,
                Some(serde_json::Value::Array(_)) => JsonType::List,
                Some(serde_json::Value::Object(_)) => JsonType::Object,
            };
            Err(DataError::WrongType {
                file: FILE,
                line,
                field: name,
                found,
            })
        };
        let fiche = Fiche {
            id: field("id")?,
            famille: field("famille")?,
            nom: field("nom")?,
            texte: field("texte")?,
        };
        if fiche
            .id
            .chars()
            .any(|c| c.is_whitespace() || is_invisible(c))
        {
            return Err(DataError::IdWithSpace { line, id: fiche.id });
        }
        // One id equality everywhere: ids are kept in NFC, and expected ids, runs and answers
        // are compared in NFC too.
        let canonical = (self.normalize)(&fiche.id);
        if let Some(&first_line) = self.seen.get(&canonical) {
            return Err(DataError::DuplicateId {
                id: fiche.id,
                first_line,
                line,
            });
        }
        self.seen.insert(canonical.clone(), line);
        self.fiches.push(Fiche {
            id: canonical,
            ..fiche
        });
        Ok(())
    }

    /// The fiches read, in order; none is an error.
    pub fn finish(self) -> Result<Vec<Fiche>, DataError> {
        if self.fiches.is_empty() {
            return Err(DataError::Empty {
                file: "fiches.jsonl",
            });
        }
        Ok(self.fiches)
    }
}

/// `text` in Unicode Normalization Form C: the terminal's [`IdNormalizer`] (the page passes the
/// browser's).
pub fn nfc(text: &str) -> String {
    if text.is_ascii() {
        return text.to_owned();
    }
    unicode_normalization::UnicodeNormalization::nfc(text).collect()
}

/// Characters that show nothing or change how the rest shows: zero-width spaces and joiners, the
/// byte-order mark, the soft hyphen, bidirectional controls (embeddings, overrides, isolates, the
/// Arabic letter mark) and letters drawn blank (the Braille blank, the Hangul fillers). An id
/// holding one would look like another and be another.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
    )
}

/// Parses `questions.csv` as Python's `csv.DictReader(delimiter=";")` reads it: a header
/// `type;question;fiche_attendue`, quoted fields allowed, CRLF or LF. Expected ids are brought to
/// NFC by [`nfc`], as fiche ids are (the page uses [`parse_questions_with`] and the browser's, so
/// that its modules carry no normalization tables).
pub fn parse_questions(text: &str) -> Result<Vec<Question>, DataError> {
    parse_questions_with(text, nfc)
}

/// [`parse_questions`] with expected ids brought to NFC through `normalize`.
pub fn parse_questions_with(
    text: &str,
    normalize: IdNormalizer,
) -> Result<Vec<Question>, DataError> {
    const FILE: &str = "questions.csv";
    let text = strip_bom(text);
    if text.trim().is_empty() {
        return Err(DataError::Empty { file: FILE });
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut questions = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| DataError::Csv {
            line: e.position().map_or(i + 1, |p| p.line() as usize),
            message: e.to_string(),
        })?;
        let line = record.position().map_or(i + 1, |p| p.line() as usize);
        if i == 0 {
            let header: Vec<&str> = record.iter().collect();
            if header != ["type", "question", "fiche_attendue"] {
                return Err(DataError::BadHeader {
                    found: header.join(";"),
                });
            }
            continue;
        }
        if record.len() == 1 && record[0].trim().is_empty() {
            continue;
        }
        if record.len() != 3 {
            return Err(DataError::Csv {
                line,
                message: format!(
                    "expected 3 fields separated by \";\", found {} (is the separator a \";\"?)",
                    record.len()
                ),
            });
        }
        let kind = QuestionKind::parse(&record[0]).ok_or_else(|| DataError::UnknownKind {
            line,
            found: record[0].to_owned(),
        })?;
        let text = record[1].to_owned();
        if text.trim().is_empty() {
            return Err(DataError::EmptyField {
                file: FILE,
                line,
                field: "question",
            });
        }
        let expected = match (kind, record[2].trim()) {
            (QuestionKind::Absente, "") => None,
            (QuestionKind::Absente, _) | (_, "") => {
                return Err(DataError::ExpectedMismatch { line, kind })
            }
            (_, id) => Some(normalize(id)),
        };
        questions.push(Question {
            kind,
            text,
            expected,
        });
    }
    if questions.is_empty() {
        return Err(DataError::HeaderOnly { file: FILE });
    }
    Ok(questions)
}

/// Checks that every expected fiche of `questions` is in `fiches`, naming the first that is not.
pub fn check_expected(fiches: &[Fiche], questions: &[Question]) -> Result<(), DataError> {
    // The expected ids looked for among the fiches, rather than a set of every fiche's id: a
    // large catalogue's set is a long task of the page's thread.
    let mut found: HashMap<&str, bool> = questions
        .iter()
        .filter_map(|q| q.expected.as_deref())
        .map(|id| (id, false))
        .collect();
    if !found.is_empty() {
        for f in fiches {
            if let Some(seen) = found.get_mut(f.id.as_str()) {
                *seen = true;
            }
        }
    }
    for (i, q) in questions.iter().enumerate() {
        if let Some(id) = &q.expected {
            if !found.get(id.as_str()).copied().unwrap_or(false) {
                // Line numbers: header is line 1, so question i sits on line i + 2 when the file
                // has no blank or multi-line rows, which is the only case worth pointing into.
                return Err(DataError::UnknownExpected {
                    line: i + 2,
                    id: id.clone(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
