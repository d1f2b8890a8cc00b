//! Every sentence the page writes keeps French typography (`fr::typography`): the string literals
//! of the code that builds the page's text (the `fr` module, the page's model and its panels,
//! « Améliorer »'s reports, the journal, the link's notes, the analysers' and BM25's explanations) and the text of `www/index.html`. The
//! builders' outputs are checked too: every error message by `fr::messages`'s tests, and the
//! rendered page, in three engines, by `tests/e2e/browsers.test.mjs`. Test modules are left out:
//! their inputs are data (the exercise's questions are written as they are).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use rag_fiches::fr::typography::faults;
use std::path::{Path, PathBuf};

/// The page's sentence builders.
const SOURCES: &[&str] = &[
    "src/fr",
    "src/page",
    "src/web",
    "src/improve",
    "src/search",
    "src/journal.rs",
    "src/link.rs",
    "src/steps.rs",
];

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            rust_files(&entry.unwrap().path(), out);
        }
    } else if path.extension().is_some_and(|e| e == "rs")
        && path.file_name().is_some_and(|n| n != "tests.rs")
    {
        out.push(path.to_owned());
    }
}

/// The contents of the ordinary string literals of Rust `source`, before its first
/// `#[cfg(test)]` that is not an out-of-line `mod tests;` (this code base puts test modules last): comments, characters, lifetimes, raw
/// and byte strings skipped.
fn literals(source: &str) -> Vec<String> {
    // An out-of-line `#[cfg(test)] mod tests;` hides nothing after it.
    let source = source.replace("#[cfg(test)]\nmod tests;", "");
    let code = source.split("#[cfg(test)]").next().unwrap_or("");
    let chars: Vec<char> = code.chars().collect();
    let (mut i, n) = (0, chars.len());
    let mut out = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < n {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < n && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < n && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if (c == 'r' || c == 'b') && (i == 0 || !ident(chars[i - 1])) && {
            let mut j = i + 1;
            if c == 'b' && chars.get(j) == Some(&'r') {
                j += 1;
            }
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"') && (c == 'r' || j > i + 1 || chars.get(i + 1) == Some(&'"'))
        } {
            // A raw or byte string: skipped to its end.
            let mut j = i + 1;
            if chars[j] == 'r' {
                j += 1;
            }
            let hashes = chars[j..].iter().take_while(|&&h| h == '#').count();
            j += hashes + 1;
            let raw = c == 'r' || chars[i + 1] == 'r';
            loop {
                if !raw && chars[j] == '\\' {
                    j += 2;
                    continue;
                }
                if chars[j] == '"' && chars[j + 1..].iter().take(hashes).all(|&h| h == '#') {
                    break;
                }
                j += 1;
            }
            i = j + 1 + hashes;
        } else if c == '\'' {
            // A character ('x', '\n', '\u{202f}') or a lifetime ('a).
            let close = chars[i + 1..]
                .iter()
                .take(12)
                .position(|&q| q == '\'')
                .map(|p| i + 1 + p);
            i = match close {
                Some(end) if end == i + 2 || chars[i + 1] == '\\' => end + 1,
                _ => i + 1,
            };
        } else if c == '"' {
            let mut j = i + 1;
            let mut text = String::new();
            while chars[j] != '"' {
                if chars[j] == '\\' {
                    // An escape: « \n » is a line's end, the rest stands for a character that is
                    // no space.
                    text.push(if chars[j + 1] == 'n' { '\n' } else { 'x' });
                    j += 2;
                    // A line continuation swallows the next line's indentation.
                    if chars[j - 1] == '\n' {
                        text.pop();
                        while chars[j].is_whitespace() {
                            j += 1;
                        }
                    }
                    continue;
                }
                text.push(chars[j]);
                j += 1;
            }
            out.push(text);
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn the_literal_scanner_sees_sentences_and_skips_code() {
    let source = r##"
        // a comment : not a sentence
        let c = '"'; let l: &'a str = "Méthode : mots"; let r = r#"raw : "skipped""#;
        let b = b"bytes : x"; let e = "échappé \" puis ; ici";
        #[cfg(test)]
        mod tests { const T: &str = "test : data"; }
    "##;
    assert_eq!(
        literals(source),
        vec![
            "Méthode : mots".to_owned(),
            "échappé x puis ; ici".to_owned()
        ]
    );
}

#[test]
fn every_sentence_the_page_writes_keeps_french_typography() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for source in SOURCES {
        rust_files(&root.join(source), &mut files);
    }
    assert!(files.len() > 40, "{} files", files.len());
    let mut wrong = Vec::new();
    let mut sentences = 0;
    for file in &files {
        for text in literals(&std::fs::read_to_string(file).unwrap()) {
            sentences += 1;
            for fault in faults(&text) {
                wrong.push(format!(
                    "{}: {fault:?}",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(sentences > 1000, "{sentences} literals");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_pages_html_keeps_french_typography() {
    let html =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/index.html"))
            .unwrap();
    // Its text and attributes, without scripts, styles and comments.
    let (mut text, mut attributes) = (String::new(), String::new());
    let mut rest = html.as_str();
    while let Some(start) = rest.find('<') {
        text.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = ["<script", "<style", "<!--"]
            .iter()
            .zip(["</script>", "</style>", "-->"])
            .find(|(open, _)| tail.starts_with(*open))
            .map(|(_, close)| tail.find(close).unwrap() + close.len())
            .unwrap_or_else(|| {
                let close = tail.find('>').unwrap();
                // Attribute values are text too (aria-label, title, content).
                for value in tail[..close].split('"').skip(1).step_by(2) {
                    attributes.push_str(value);
                    attributes.push('\n');
                }
                close + 1
            });
        // A tag adds no space: « <strong>x</strong> : » is the text « x : ».
        rest = &tail[end..];
    }
    text.push_str(rest);
    // A sign at the start of an indented source line counts as after a space: the HTML collapses
    // the indentation to one space, and that space breaks.
    let faults = [faults(&text), faults(&attributes)].concat();
    assert!(faults.is_empty(), "{faults:#?}");
    assert!(text.contains("Par où commencer"));
}
