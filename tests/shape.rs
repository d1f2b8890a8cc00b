//! The code's shape, checked: a rule about structure that no test checks does not hold past the
//! next feature. Each test reads the sources and ARCHITECTURE.md as a newcomer would:
//! - a file under `src/` over [`LONG`] lines is listed, with its reason, in ARCHITECTURE.md's
//!   « Files over 600 lines », and at most [`MAX_LONG`] are;
//! - no comment under `src/` carries a date or a timing figure (measurements live in
//!   BENCHMARKS.md, history in CHANGELOG.md and the commits);
//! - the module map of `src/lib.rs` and ARCHITECTURE.md name the modules that exist, and the
//!   lists of ARCHITECTURE.md name the files that exist;
//! - the README stays short, the guide undated, and history has its own file (CHANGELOG.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Lines past which a file must give its reason.
const LONG: usize = 600;
/// Files over [`LONG`] lines allowed at all.
const MAX_LONG: usize = 3;
/// The section of ARCHITECTURE.md that lists them.
const LONG_SECTION: &str = "## Files over 600 lines";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            rust_files(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_owned());
    }
}

/// Every Rust file under `src/`, as (path from the root with `/`, text).
fn sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(root())
                .unwrap()
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let text = read(&p);
            (name, text)
        })
        .collect()
}

/// The lines of ARCHITECTURE.md's `heading` section, up to the next heading of its level or
/// above.
fn section(doc: &str, heading: &str) -> Vec<String> {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let ends = |l: &str| {
        let hashes = l.chars().take_while(|c| *c == '#').count();
        hashes > 0 && hashes <= level && l[hashes..].starts_with(' ')
    };
    doc.lines()
        .skip_while(|l| l.trim_end() != heading)
        .skip(1)
        .take_while(|l| !ends(l))
        .map(str::to_owned)
        .collect()
}

/// The files a « Files over 600 lines » section lists: `- \`path\`: reason`, with the reason.
fn listed_long_files(doc: &str) -> Vec<(String, String)> {
    section(doc, LONG_SECTION)
        .iter()
        .filter_map(|l| {
            let rest = l.strip_prefix("- `")?;
            let (path, reason) = rest.split_once('`')?;
            let reason = reason.trim_start_matches(':').trim();
            path.starts_with("src/")
                .then(|| (path.to_owned(), reason.to_owned()))
        })
        .collect()
}

/// What is wrong with the long files of `files` against ARCHITECTURE.md's list `listed`.
fn long_file_faults(files: &[(String, usize)], listed: &[(String, String)]) -> Vec<String> {
    let mut faults = Vec::new();
    let long: Vec<&(String, usize)> = files.iter().filter(|(_, n)| *n > LONG).collect();
    for (path, lines) in &long {
        match listed.iter().find(|(p, _)| p == path) {
            None => faults.push(format!(
                "{path} has {lines} lines and is not listed, with its reason, under « {LONG_SECTION} » in ARCHITECTURE.md: split it along its seams, or say why it is one thing"
            )),
            Some((_, reason)) if reason.split_whitespace().count() < 4 => faults.push(format!(
                "{path} is listed under « {LONG_SECTION} » without a reason"
            )),
            Some(_) => {}
        }
    }
    for (path, _) in listed {
        match files.iter().find(|(p, _)| p == path) {
            None => faults.push(format!(
                "{path} is listed under « {LONG_SECTION} » but does not exist"
            )),
            Some((_, n)) if *n <= LONG => faults.push(format!(
                "{path} is listed under « {LONG_SECTION} » but has {n} lines: take it off the list"
            )),
            Some(_) => {}
        }
    }
    if long.len() > MAX_LONG {
        faults.push(format!(
            "{} files under src/ have over {LONG} lines (at most {MAX_LONG}): {}",
            long.len(),
            long.iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    faults
}

#[test]
fn files_over_600_lines_are_few_and_listed_with_their_reason() {
    let files: Vec<(String, usize)> = sources()
        .into_iter()
        .map(|(p, t)| (p, t.lines().count()))
        .collect();
    let doc = read(&root().join("ARCHITECTURE.md"));
    let listed = listed_long_files(&doc);
    let faults = long_file_faults(&files, &listed);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_long_files_guard_fails_on_a_fourth_file_or_one_not_listed() {
    let reason = "one cohesive thing, read together".to_owned();
    let listed = vec![
        ("src/a.rs".to_owned(), reason.clone()),
        ("src/b.rs".to_owned(), reason.clone()),
        ("src/c.rs".to_owned(), reason.clone()),
    ];
    let mut files = vec![
        ("src/a.rs".to_owned(), 700),
        ("src/b.rs".to_owned(), 650),
        ("src/c.rs".to_owned(), 601),
        ("src/d.rs".to_owned(), 600),
    ];
    assert!(long_file_faults(&files, &listed).is_empty());
    files[3].1 = 601;
    let faults = long_file_faults(&files, &listed);
    assert!(
        faults
            .iter()
            .any(|f| f.starts_with("src/d.rs has 601 lines")),
        "{faults:?}"
    );
    let mut four = listed.clone();
    four.push(("src/d.rs".to_owned(), reason));
    let faults = long_file_faults(&files, &four);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].starts_with("4 files under src/"), "{faults:?}");
    // A listed file that shrank, and one listed with no reason.
    files[3].1 = 90;
    let mut stale = listed.clone();
    stale.push(("src/d.rs".to_owned(), "big".to_owned()));
    stale[0].1 = String::new();
    let faults = long_file_faults(&files, &stale);
    assert_eq!(faults.len(), 2, "{faults:?}");
    // The section is read from ARCHITECTURE.md's own form.
    let doc = format!(
        "# A\n\n{LONG_SECTION}\n\nIntro.\n- `src/a.rs`: {}\n  continued.\n- `src/b.rs`: x y z w\n\n## Next\n- `src/z.rs`: not this section\n",
        "one cohesive thing"
    );
    assert_eq!(
        listed_long_files(&doc),
        vec![
            ("src/a.rs".to_owned(), "one cohesive thing".to_owned()),
            ("src/b.rs".to_owned(), "x y z w".to_owned())
        ]
    );
}

/// The comment on a line of Rust, if any: a whole-line comment (`//`, `///`, `//!`), or one after
/// code when no string is open before it.
fn comment(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if let Some(c) = t.strip_prefix("//") {
        return Some(c);
    }
    let at = line.find(" // ")?;
    line[..at]
        .matches('"')
        .count()
        .is_multiple_of(2)
        .then(|| &line[at + 4..])
}

fn digits_at(chars: &[char], i: usize) -> usize {
    chars[i..].iter().take_while(|c| c.is_ascii_digit()).count()
}

fn number(chars: &[char], i: usize, n: usize) -> u32 {
    chars[i..i + n]
        .iter()
        .fold(0, |v, c| v * 10 + c.to_digit(10).unwrap_or(0))
}

/// A date in `text`: « 2026-12-03 », « 2026-08 », or a month and day « 12-03 ». A timestamp's
/// format written as an example (« 2026-12-04T23:13:01Z ») is not one.
fn date_in(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            && (i == 0
                || !(chars[i - 1].is_alphanumeric()
                    || matches!(chars[i - 1], '-' | '.' | ',' | '_')));
        if !starts {
            i += 1;
            continue;
        }
        let n = digits_at(&chars, i);
        let j = i + n;
        if chars.get(j) == Some(&'-') && j + 1 < chars.len() && chars[j + 1].is_ascii_digit() {
            let m = digits_at(&chars, j + 1);
            let end = j + 1 + m;
            let after = chars.get(end).copied();
            let ends = !after.is_some_and(|c| c.is_alphanumeric() || c == '_');
            let first = number(&chars, i, n);
            let second = number(&chars, j + 1, m);
            let year =
                n == 4 && (1990..2100).contains(&first) && m == 2 && (1..=12).contains(&second);
            let timestamp = year && after == Some('-') && chars.get(end + 3) == Some(&'T');
            let day = n == 2 && m == 2 && (1..=12).contains(&first) && (1..=31).contains(&second);
            if (year && !timestamp && (ends || after == Some('-')))
                || (day && ends && after != Some('-'))
            {
                return Some(chars[i..end].iter().collect());
            }
            i = end;
            continue;
        }
        i = j;
    }
    None
}

/// A timing figure in `text`: a number (« 3.5 », « 1,730 », « 60-69 ») followed by a unit of
/// time (ms, µs, ns, s, min, h).
fn timing_in(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit()
            || (i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
        {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || (matches!(chars[j], '.' | ',' | '-' | '–')
                    && chars.get(j + 1).is_some_and(char::is_ascii_digit)))
        {
            j += 1;
        }
        let mut k = j;
        if chars
            .get(k)
            .is_some_and(|c| matches!(c, ' ' | '\u{a0}' | '\u{202f}'))
        {
            k += 1;
        }
        let unit: String = chars[k..]
            .iter()
            .take_while(|c| c.is_alphabetic())
            .collect();
        if matches!(unit.as_str(), "ms" | "µs" | "us" | "ns" | "s" | "min" | "h") {
            return Some(chars[i..k + unit.chars().count()].iter().collect());
        }
        i = j.max(i + 1);
    }
    None
}

#[test]
fn no_comment_under_src_carries_a_date_or_a_timing() {
    let mut faults = Vec::new();
    for (path, text) in sources() {
        for (n, line) in text.lines().enumerate() {
            let Some(c) = comment(line) else { continue };
            if let Some(d) = date_in(c) {
                faults.push(format!("{path}:{}: a date in a comment (« {d} »): history goes to CHANGELOG.md or the commit", n + 1));
            }
            if let Some(t) = timing_in(c) {
                faults.push(format!("{path}:{}: a timing in a comment (« {t} »): figures go to BENCHMARKS.md with their command, or name the constant", n + 1));
            }
        }
    }
    assert!(
        faults.is_empty(),
        "{} comment(s):\n{}",
        faults.len(),
        faults.join("\n")
    );
}

#[test]
fn the_date_and_timing_finders_see_what_they_should_and_nothing_else() {
    for dated in [
        "measured 2026-12-03, night",
        "checked on 2026-08 against",
        "(Node's V8, 12-03)",
        "BENCHMARKS.md, 11-30 late",
    ] {
        assert!(date_in(dated).is_some(), "{dated}");
    }
    for undated in [
        "« 2026-12-04T23:13:01Z » → « 4 décembre 2026 »",
        "AR-0063 and AR-0001",
        "RFC 8259, u8 in 17 chunks",
        "1-5 of them",
        "5-30 of them",
        "50-69 values",
        "12-03-99 is not a date",
        "x_12-03",
    ] {
        assert!(date_in(undated).is_none(), "{undated}");
    }
    for timed in [
        "took 178 ms",
        "3.5\u{a0}ms",
        "1,730 ms",
        "60-69 ms",
        "after 10 s",
        "2–39 ms",
        "0.022 ms per read",
        "an hour, 1 h",
    ] {
        assert!(timing_in(timed).is_some(), "{timed}");
    }
    for untimed in [
        "512 values, 3 × 256",
        "the 40 questions",
        "a u32 in LEB128",
        "1 second place",
        "8 MB; 4 shards",
        "f32 bits",
    ] {
        assert!(timing_in(untimed).is_none(), "{untimed}");
    }
}

/// The modules `src/lib.rs` declares.
fn lib_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_owned())
        .collect()
}

/// The layers that are not core rooms: the page's model, the shell and the worker.
const LAYERS: [&str; 3] = ["page", "web", "worker"];

#[test]
fn the_maps_name_the_modules_that_exist() {
    let lib = read(&root().join("src/lib.rs"));
    let doc = read(&root().join("ARCHITECTURE.md"));
    let modules = lib_modules(&lib);
    assert!(modules.len() >= 10, "{modules:?}");
    // lib.rs's own map: one item per module.
    let mapped: BTreeSet<String> = lib
        .lines()
        .skip_while(|l| l.trim_end() != "//! # Layers")
        .take_while(|l| l.trim_end() != "//! # Glossary")
        .filter_map(|l| l.strip_prefix("//! - "))
        .filter_map(|l| {
            let l = l.trim_start_matches('[');
            let name = l.strip_prefix('`')?.split('`').next()?;
            Some(name.to_owned())
        })
        .collect();
    assert_eq!(
        mapped, modules,
        "src/lib.rs's « # Layers » list and its `pub mod`s differ"
    );
    // ARCHITECTURE.md's table of the core's rooms.
    let rooms: BTreeSet<String> = section(&doc, "## The core, by room")
        .iter()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect();
    let core: BTreeSet<String> = modules
        .iter()
        .filter(|m| !LAYERS.contains(&m.as_str()))
        .cloned()
        .collect();
    assert_eq!(
        rooms, core,
        "ARCHITECTURE.md's « The core, by room » and src/lib.rs differ"
    );
    // The three-layer drawing names every core room.
    let drawing = section(&doc, "## Three layers").join("\n");
    for m in &core {
        assert!(
            drawing.contains(m.as_str()),
            "the three-layer drawing of ARCHITECTURE.md does not name `{m}`"
        );
    }
}

/// The files of `dir` (module names, `mod.rs` left out).
fn module_files(dir: &str) -> BTreeSet<String> {
    std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .filter(|n| n != "mod")
        .collect()
}

/// The backquoted names in ARCHITECTURE.md after `lead`, up to the closing `end`.
fn named_after(doc: &str, lead: &str, end: char) -> BTreeSet<String> {
    let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = flat
        .find(lead)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md no longer says « {lead} »"));
    let rest = &flat[at + lead.len()..];
    let list = &rest[..rest.find(end).unwrap_or(rest.len())];
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_lists_of_architecture_md_name_the_files_that_exist() {
    let doc = read(&root().join("ARCHITECTURE.md"));
    assert_eq!(
        named_after(&doc, "`update` is split by concern:", '.'),
        module_files("src/page/update"),
        "ARCHITECTURE.md's concerns of `update` and src/page/update/ differ"
    );
    assert_eq!(
        named_after(&doc, "`web/tasks/` (", ')'),
        module_files("src/web/tasks"),
        "ARCHITECTURE.md's tasks and src/web/tasks/ differ"
    );
}

/// Lines the README may have: what the lab is and how to use it now, the rest linked.
const README_LINES: usize = 250;

#[test]
fn the_references_say_what_holds_now_and_history_has_its_own_file() {
    let readme = read(&root().join("README.md"));
    let n = readme.lines().count();
    assert!(
        n <= README_LINES,
        "README.md has {n} lines (at most {README_LINES}): move the detail to docs/GUIDE.md"
    );
    assert!(
        readme.contains("(CHANGELOG.md)"),
        "README.md does not link CHANGELOG.md"
    );
    let changelog = read(&root().join("CHANGELOG.md"));
    assert!(
        changelog.contains("keepachangelog.com"),
        "CHANGELOG.md does not say its form"
    );
    assert!(
        changelog.lines().any(|l| l == "## [Unreleased]"),
        "CHANGELOG.md has no « ## [Unreleased] »"
    );
    let guide = read(&root().join("docs/GUIDE.md"));
    let dated: Vec<String> = guide
        .lines()
        .enumerate()
        .filter_map(|(i, l)| date_in(l).map(|d| format!("docs/GUIDE.md:{}: « {d} »", i + 1)))
        .collect();
    assert!(
        dated.is_empty(),
        "the guide says what holds now, with no dated passage (history goes to CHANGELOG.md):\n{}",
        dated.join("\n")
    );
}

#[test]
fn numbers_are_written_the_french_way_in_one_leaf() {
    let leaf = read(&root().join("src/fr/numbers.rs"));
    let body = leaf.split("#[cfg(test)]").next().unwrap_or("");
    for import in ["crate::", "super::", "rag_fiches::"] {
        assert!(
            !body.contains(import),
            "src/fr/numbers.rs imports `{import}…`: it is a leaf every module may import"
        );
    }
    let copies: Vec<String> = sources()
        .into_iter()
        .filter(|(p, _)| p != "src/fr/numbers.rs")
        .flat_map(|(p, t)| {
            t.lines()
                .enumerate()
                .filter(|(_, l)| l.contains(".replace('.', \",\")"))
                .map(|(i, _)| format!("{p}:{}", i + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        copies.is_empty(),
        "a decimal comma written by hand (use crate::fr::numbers): {}",
        copies.join(", ")
    );
}

/// The variants of `enum name` in `text`, one per line at the enum's first indent.
fn variants(text: &str, name: &str) -> Vec<String> {
    let start = text
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("no `pub enum {name}`"));
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| *l != "}")
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|l| {
            l.split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

/// Variants the page's top-level message may have: one per feature and a few of the runtime's.
const MAX_MSG: usize = 20;

#[test]
fn the_page_message_has_one_variant_per_feature_each_read_by_its_update() {
    let msg = read(&root().join("src/page/msg.rs"));
    let top = variants(&msg, "Msg");
    assert!(
        top.len() <= MAX_MSG,
        "`Msg` has {} variants (at most {MAX_MSG}): a new message goes in its feature's enum",
        top.len()
    );
    let mut updates = String::new();
    for (path, text) in sources() {
        if path.starts_with("src/page/update/") {
            updates.push_str(&text);
        }
    }
    let features: Vec<&String> = top
        .iter()
        .filter(|v| msg.contains(&format!("{v}({v}Msg)")))
        .collect();
    assert!(features.len() >= 8, "features found: {features:?}");
    for feature in features {
        let sub = format!("{feature}Msg");
        assert!(!variants(&msg, &sub).is_empty(), "`{sub}` has no variant");
        assert!(
            updates.contains(&format!("msg: {sub}")),
            "no function of src/page/update/ takes a `{sub}`: each feature's message has its update"
        );
    }
}

#[test]
fn the_shell_keeps_its_handles_in_the_runtime_and_no_task_reads_the_state() {
    let mut faults = Vec::new();
    for (path, text) in sources() {
        if !path.starts_with("src/web/") {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("thread_local!") && path != "src/web/runtime.rs" {
                faults.push(format!(
                    "{path}:{}: thread_local! outside the runtime",
                    i + 1
                ));
            }
            if code.contains(".peek(") && path.starts_with("src/web/tasks/") {
                faults.push(format!(
                    "{path}:{}: a task reads the state (give its work what it needs)",
                    i + 1
                ));
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// ARCHITECTURE.md's worked example holds: « Demander au juge » (a control with one paid call)
/// is named in four files under `src/` and nowhere else, the rest being every such control's.
#[test]
fn a_control_with_one_paid_call_lives_in_four_files() {
    let files: BTreeSet<String> = sources()
        .into_iter()
        .filter(|(_, t)| t.contains("Control::Judge") || t.contains("JudgeRequested"))
        .map(|(p, _)| p)
        .chain(["src/page/jobs.rs".to_owned()])
        .collect();
    let expected: BTreeSet<String> = [
        "src/page/jobs.rs",
        "src/page/msg.rs",
        "src/page/update/answer.rs",
        "src/web/panels/answer.rs",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(files, expected);
    let jobs = read(&root().join("src/page/jobs.rs"));
    assert!(variants(&jobs, "Control").contains(&"Judge".to_owned()));
    let doc = read(&root().join("ARCHITECTURE.md"));
    for f in &expected {
        let short = f.trim_start_matches("src/");
        assert!(
            doc.contains(short),
            "ARCHITECTURE.md's example does not name {short}"
        );
    }
}

/// Names of the ids a stale reply used to be recognised by.
const STALENESS_IDS: [&str; 5] = ["epoch", "generation", "ticket", "seq", "latest"];

/// The staleness id a line of code declares or binds as a field, if any.
fn staleness_field(line: &str) -> Option<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .collect();
    STALENESS_IDS.into_iter().find(|id| {
        words.iter().any(|w| {
            w.strip_prefix(id) == Some(":") || *w == *id && code.contains(&format!("{id}:"))
        })
    })
}

#[test]
fn the_staleness_finder_sees_ids_in_fields_and_nothing_else() {
    assert_eq!(staleness_field("        epoch: u64,"), Some("epoch"));
    assert_eq!(
        staleness_field("    FichesProgress { epoch: u64, done: usize },"),
        Some("epoch")
    );
    assert_eq!(
        staleness_field("    Dense { set: u64, ticket: u64 },"),
        Some("ticket")
    );
    assert_eq!(staleness_field("        question: String,"), None);
    assert_eq!(
        staleness_field("    /// the catalogue's epoch: u64 ids"),
        None
    );
    assert_eq!(staleness_field("    Waiting(Option<Wait>),"), None);
    assert_eq!(staleness_field("        sequence: Vec<u8>,"), None);
}

/// Staleness is decided by the job tracker alone (ARCHITECTURE.md, « Staleness »): no message
/// and no report of the page carries an id to compare with the state's, and the catalogue's
/// epoch is read only where a job's key is made (`State::job_key`) and where a new catalogue
/// takes the next one (`update/catalogue.rs`).
#[test]
fn staleness_is_decided_by_the_job_keys_alone() {
    let mut faults = Vec::new();
    let msg = read(&root().join("src/page/msg.rs"));
    let jobs = read(&root().join("src/page/jobs.rs"));
    let report = &jobs[jobs.find("pub enum Report {").unwrap()..];
    let report = &report[..report.find("\n}\n").unwrap()];
    for (name, text) in [("src/page/msg.rs", msg.as_str()), ("Report", report)] {
        for line in text.lines() {
            if let Some(id) = staleness_field(line) {
                faults.push(format!("{name}: « {} » carries `{id}`", line.trim()));
            }
        }
    }
    for (path, text) in sources() {
        if !path.starts_with("src/page/") {
            continue;
        }
        let allowed = matches!(
            path.as_str(),
            "src/page/state.rs" | "src/page/update/catalogue.rs"
        );
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains(".epoch") && !allowed {
                faults.push(format!(
                    "{path}:{}: the catalogue's epoch read outside `State::job_key`",
                    i + 1
                ));
            }
        }
    }
    let state = read(&root().join("src/page/state.rs"));
    assert_eq!(
        state.matches(".epoch").count(),
        1,
        "src/page/state.rs reads the epoch once, in `job_key`"
    );
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    let doc = read(&root().join("ARCHITECTURE.md"));
    let staleness = section(&doc, "### Staleness");
    let paragraphs = staleness
        .split(|l| l.trim().is_empty())
        .filter(|p| !p.is_empty())
        .count();
    assert!(
        staleness.join(" ").contains("job_key"),
        "ARCHITECTURE.md's « Staleness » names `State::job_key`"
    );
    assert_eq!(
        paragraphs, 1,
        "ARCHITECTURE.md describes staleness in one paragraph"
    );
}
