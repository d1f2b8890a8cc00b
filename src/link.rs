//! The page's shareable state, carried in the URL fragment (`#vue=mesurer&q=…&m=mots,hybride`): what
//! a teacher sends to say "look at this question under mots and hybride". It never holds the key
//! or anything secret, and reading a fragment ignores whatever it does not know: a crafted link can
//! choose a view, a question and methods, nothing else.

use crate::lab::Method;

/// The methods shown when a link names none: both keyword methods, meaning and their fusion.
pub const DEFAULT_METHODS: [Method; 4] = [
    Method::MOTS,
    Method::MOTS_PLUS,
    Method::Sens,
    Method::Hybride(crate::lab::Keyword::Mots),
];

/// Questions longer than this in a link are cut (a link is not a way to ship text).
pub const MAX_QUESTION_CHARS: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Chercher,
    Mesurer,
    /// « Améliorer »: change the search, watch every question move.
    Ameliorer,
    /// « Questions »: the question set, and the pool of the methods' first fiches judged by hand.
    Questions,
}

/// Which question set the page measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuestionSet {
    /// The exercise's 40 questions, bundled with the page.
    #[default]
    Exercice,
    /// The learner's own files, loaded in this browser (a link can only say so, never carry them).
    VosDonnees,
}

/// Whether pages of other people or projects can share this page's origin, and so read its
/// localStorage and IndexedDB: every project page of a GitHub user is served from
/// `<user>.github.io` (GitLab Pages likewise from `<group>.gitlab.io`).
pub fn shared_origin(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    ["github.io", "gitlab.io"]
        .iter()
        .any(|d| host.ends_with(&format!(".{d}")))
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewState {
    pub view: View,
    pub question: Option<String>,
    /// Methods shown; empty means the page's default.
    pub methods: Vec<Method>,
    pub set: QuestionSet,
    /// The pair compared question by question in « Mesurer » (A against B).
    pub compare: Option<(Method, Method)>,
    /// « Améliorer »'s settings: what differs from their method, keys prefixed with `r`.
    pub settings: Option<crate::improve::Settings>,
    /// The settings' values the link carried and that were refused, each said in French (never
    /// written back into a link).
    pub refused: Vec<String>,
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn methods(value: &str) -> Vec<Method> {
    let mut out: Vec<Method> = Vec::new();
    for name in value.split(',') {
        if let Some(m) = Method::parse(name) {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

impl ViewState {
    /// The fragment, without the leading `#`.
    pub fn to_fragment(&self) -> String {
        let mut parts = Vec::new();
        match self.view {
            View::Mesurer => parts.push("vue=mesurer".to_owned()),
            View::Ameliorer => parts.push("vue=ameliorer".to_owned()),
            View::Questions => parts.push("vue=questions".to_owned()),
            View::Chercher => {}
        }
        if let Some(q) = &self.question {
            // Cut as `from_fragment` reads it: a pasted 100 kB question makes no 100 kB URL.
            let q: String = q.chars().take(MAX_QUESTION_CHARS).collect();
            parts.push(format!("q={}", encode(&q)));
        }
        if !self.methods.is_empty() {
            let names: Vec<&str> = self.methods.iter().map(|m| m.name()).collect();
            parts.push(format!("m={}", encode(&names.join(","))));
        }
        if self.set == QuestionSet::VosDonnees {
            parts.push("jeu=vos-donnees".to_owned());
        }
        if let Some((a, b)) = self.compare {
            parts.push(format!(
                "comparer={}",
                encode(&format!("{},{}", a.name(), b.name()))
            ));
        }
        if let Some(settings) = &self.settings {
            for (k, v) in settings.to_link() {
                parts.push(format!("r{k}={}", encode(&v)));
            }
        }
        parts.join("&")
    }

    /// Reads a fragment (with or without `#`). Unknown keys and values are ignored.
    pub fn from_fragment(fragment: &str) -> ViewState {
        let mut state = ViewState::default();
        let mut settings: Vec<(String, String)> = Vec::new();
        for pair in fragment.trim_start_matches('#').split('&') {
            let Some((key, value)) = pair.split_once('=') else {
                continue;
            };
            let value = decode(value);
            match key {
                "vue" if value == "mesurer" => state.view = View::Mesurer,
                "vue" if value == "chercher" => state.view = View::Chercher,
                "vue" if value == "ameliorer" => state.view = View::Ameliorer,
                "vue" if value == "questions" => state.view = View::Questions,
                "q" => {
                    let q: String = value.chars().take(MAX_QUESTION_CHARS).collect();
                    if !q.trim().is_empty() {
                        state.question = Some(q);
                    }
                }
                "m" => state.methods = methods(&value),
                "jeu" if value == "vos-donnees" => state.set = QuestionSet::VosDonnees,
                "comparer" => {
                    if let [a, b] = methods(&value)[..] {
                        state.compare = Some((a, b));
                    }
                }
                other => {
                    if let Some(k) = other.strip_prefix('r') {
                        settings.push((k.to_owned(), value));
                    }
                }
            }
        }
        if let Some((settings, refused)) = crate::improve::Settings::from_link_said(&settings) {
            state.settings = Some(settings);
            state.refused = refused;
        }
        state
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn github_and_gitlab_pages_share_their_origin_a_custom_domain_does_not() {
        for host in ["alice.github.io", "Alice.GitHub.io.", "team.gitlab.io"] {
            assert!(shared_origin(host), "{host}");
        }
        for host in [
            "labo.example.org",
            "127.0.0.1",
            "github.io.example.com",
            "notgithub.io",
        ] {
            assert!(!shared_origin(host), "{host}");
        }
    }

    use super::*;
    use crate::lab::Keyword;

    #[test]
    fn every_state_round_trips() {
        let states = [
            ViewState::default(),
            ViewState {
                view: View::Mesurer,
                question: Some("Un isolant qui ne brûle pas ? 100% & co=#x+y".into()),
                methods: vec![Method::MOTS, Method::Hybride(Keyword::MotsPlus)],
                set: QuestionSet::VosDonnees,
                compare: Some((Method::Hybride(Keyword::Mots), Method::MOTS_PLUS)),
                settings: None,
                refused: Vec::new(),
            },
            ViewState {
                view: View::Ameliorer,
                settings: Some(crate::improve::Settings {
                    b: 0.0,
                    enrich: vec![crate::improve::Enrichment {
                        id: "AR-0063".into(),
                        words: "ne brûle pas & 100%".into(),
                        product: false,
                    }],
                    ..crate::improve::Settings::of(Method::MOTS)
                }),
                ..Default::default()
            },
            ViewState {
                question: Some("é 🙂 \u{200b}".into()),
                ..Default::default()
            },
        ];
        for s in states {
            assert_eq!(
                ViewState::from_fragment(&s.to_fragment()),
                s,
                "{}",
                s.to_fragment()
            );
            assert_eq!(
                ViewState::from_fragment(&format!("#{}", s.to_fragment())),
                s
            );
        }
    }

    #[test]
    fn a_fragment_is_readable_and_names_methods() {
        let s = ViewState {
            view: View::Mesurer,
            question: Some("joint époxy".into()),
            methods: vec![Method::MOTS, Method::Hybride(Keyword::Mots)],
            ..Default::default()
        };
        assert_eq!(
            s.to_fragment(),
            "vue=mesurer&q=joint%20%C3%A9poxy&m=mots%2Chybride"
        );
    }

    #[test]
    fn unknown_keys_secrets_and_markup_are_ignored_or_kept_as_text() {
        let s = ViewState::from_fragment("#key=sk-123&api=http://evil&apiUrl=x&m=mots,magie,mots&vue=<b>&q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E");
        assert_eq!(s.methods, vec![Method::MOTS]);
        assert_eq!(s.view, View::Chercher);
        // The question is only ever text: the page puts it in an input's value.
        assert_eq!(s.question.as_deref(), Some("<img src=x onerror=alert(1)>"));
        assert!(!s.to_fragment().contains("key") && !s.to_fragment().contains("evil"));
    }

    #[test]
    fn broken_escapes_and_long_questions_do_not_panic() {
        for f in [
            "q=%",
            "q=%E",
            "q=%ZZ",
            "q=%C3",
            "=",
            "&&&",
            "q",
            "m=",
            "comparer=mots",
        ] {
            let _ = ViewState::from_fragment(f);
        }
        let long = format!("q={}", "a".repeat(10_000));
        assert_eq!(
            ViewState::from_fragment(&long).question.unwrap().len(),
            MAX_QUESTION_CHARS
        );
    }

    #[test]
    fn b14_a_long_question_is_written_into_the_fragment_with_the_cut_it_is_read_with() {
        let state = ViewState {
            question: Some("é".repeat(100_000)),
            ..ViewState::default()
        };
        let fragment = state.to_fragment();
        let back = ViewState::from_fragment(&fragment);
        assert_eq!(back.question.unwrap().chars().count(), MAX_QUESTION_CHARS);
        assert!(
            fragment.len() < 10 * MAX_QUESTION_CHARS,
            "{}",
            fragment.len()
        );
    }
}
