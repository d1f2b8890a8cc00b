//! One column of results, from the lab alone: the page's « Chercher » and the first module
//! ([`super::first`], which draws the keyword columns of a shared link before the page's own
//! module has arrived) build the same elements from the same code.

use std::collections::HashSet;

use web_sys::Element;

use crate::fr::{self, labels, messages};
use crate::lab::{tie_span, Keyword, Lab, Method, Ranked};
use crate::measure::DEPTH;
use crate::search::analysis::window;
use crate::search::bm25::{Explanation, FORMULA};

use super::dom::{highlighted, scroller, E};
use super::ids;

/// Results shown per method for a question.
const SHOWN: usize = 5;
/// Highlights per fiche at most: a giant fiche repeating a query word stays cheap to draw.
const MAX_MARKS: usize = 200;
/// Characters of a fiche's text a result shows: a longer fiche shows an excerpt and says it is
/// cut. A learner's catalogue of six 3 MB fiches drew 32 MB of text per question (five results
/// per column, each analysed for its highlights) and held the page for many seconds.
const EXCERPT_CHARS: usize = 1_000;
/// Bytes of a long fiche searched for a keyword method's first match, so that its excerpt shows
/// it: this bounds the work per result. A fiche whose first match lies further shows its
/// beginning.
const MATCH_SEARCH_BYTES: usize = 16 << 10;
/// Characters shown before that first match.
const BEFORE_MATCH_CHARS: usize = 150;

/// What a result shows of a fiche's text.
struct Excerpt<'a> {
    shown: &'a str,
    /// Characters of the text before `shown`.
    skipped: usize,
    /// The text's length in characters, when `shown` is not all of it.
    total: Option<usize>,
}

/// At most [`EXCERPT_CHARS`] characters of `text` ([`window`]): its beginning, or, when its first
/// match (the byte offset `first`) does not fall inside the beginning, from a word's start about
/// [`BEFORE_MATCH_CHARS`] before that match. A fiche of ordinary length shows whole.
fn excerpt(text: &str, first: Option<usize>) -> Excerpt<'_> {
    let (start, end) = window(text, first, EXCERPT_CHARS, BEFORE_MATCH_CHARS);
    Excerpt {
        shown: &text[start..end],
        skipped: text[..start].chars().count(),
        total: (start > 0 || end < text.len()).then(|| text.chars().count()),
    }
}

/// The line under a cut excerpt: which characters of how many it shows.
fn cut_note(e: &Excerpt<'_>) -> Option<String> {
    let total = e.total?;
    Some(if e.skipped == 0 {
        format!(
            "… (les {} premiers caractères d'une fiche qui en compte {})",
            fr::int(EXCERPT_CHARS as u64),
            fr::int(total as u64)
        )
    } else {
        format!(
            "… (les caractères {} à {}, autour du premier mot trouvé, d'une fiche qui en compte {})",
            fr::int(e.skipped as u64 + 1),
            fr::int((e.skipped + e.shown.chars().count()) as u64),
            fr::int(total as u64)
        )
    })
}

/// A column's frame: its section and title, before its content.
pub fn frame(method: Method) -> E {
    E::new("section")
        .class("colonne")
        .attr("id", &ids::column(method))
        .attr("data-methode", method.name())
        .child(E::new("h3").text(labels::method_title(method)))
}

/// « Pourquoi ce score ? » for fiche `doc` under the keyword method `k`: its BM25 explanation.
pub fn keyword_why(lab: &Lab, k: Keyword, question: &str, doc: usize) -> Element {
    let id = lab.fiches().get(doc).map_or("", |f| f.id.as_str());
    let label = format!("Détail du score de {id} sous {}", Method::Keyword(k).name());
    explanation(&lab.explain(k, question, doc), k, &label)
}

/// The results of `method` for `question` in `column` (its [`frame`]): the first [`SHOWN`], each
/// with its rank (ties said), score, excerpt with highlights and « Pourquoi ce score ? »; and where
/// the `expected` fiche is when it is not among them. `vector` is the question's, for dense
/// methods.
///
/// « Pourquoi ce score ? » is left closed and empty, with the fiche (`data-doc`) and its score
/// (`data-score`): the page builds it when it is first opened. Built with every column, its
/// tables were three quarters of the columns' elements (440 of 575 for four columns), rebuilt at
/// each keystroke.
pub fn ranked(
    column: E,
    lab: &Lab,
    method: Method,
    question: &str,
    vector: Option<&[f32]>,
    expected: Option<&str>,
) -> Element {
    let query_terms: HashSet<String> = match method {
        Method::Keyword(k) => k.analyzer().terms(question).into_iter().collect(),
        _ => HashSet::new(),
    };
    if matches!(method, Method::Keyword(_)) && query_terms.is_empty() {
        return empty(
            column,
            "La question ne garde aucun mot après analyse (mots vides, ponctuation) : rien à chercher.",
        );
    }
    let hits = match lab.search(method, question, vector, DEPTH) {
        Ok(h) => h,
        Err(e) => return empty(column, &messages::search(&e)),
    };
    let visible: Vec<_> = hits
        .iter()
        .take(SHOWN)
        .filter(|r| !matches!(method, Method::Keyword(_)) || r.score > 0.0)
        .collect();
    if visible.is_empty() {
        return empty(
            column,
            "Aucune fiche ne contient un mot de la question : toutes ont un score nul.",
        );
    }
    let items = visible.iter().enumerate().filter_map(|(i, r)| {
        let fiche = lab.fiches().get(r.doc)?;
        let first = match method {
            Method::Keyword(k) if fiche.texte.len() > EXCERPT_CHARS => {
                k.analyzer()
                    .first_match(&fiche.texte, &query_terms, MATCH_SEARCH_BYTES)
            }
            _ => None,
        };
        let part = excerpt(&fiche.texte, first);
        let marks = match method {
            Method::Keyword(k) => {
                k.analyzer()
                    .highlight_spans(part.shown, &query_terms, MAX_MARKS)
            }
            _ => Vec::new(),
        };
        let is_expected = expected == Some(fiche.id.as_str());
        let (rank, tied) = rank_text(&hits, i);
        let head = E::new("div")
            .class("tete")
            .child(E::new("span").class("rang").text(&rank))
            .child(E::new("span").class("id").text(&fiche.id))
            .child(
                E::new("span")
                    .class("score")
                    .text(&fr::decimal(r.score, method.display_decimals())),
            );
        let head = if tied {
            head.child(E::new("span").class("exaequo").attr("title", "même score : l'ordre entre elles est celui de la règle d'égalité, pas du mérite").text("ex æquo"))
        } else {
            head
        };
        let head = if is_expected {
            head.child(E::new("span").class("badge").text("fiche attendue"))
        } else {
            head
        };
        let why = E::new("details")
            .class("pourquoi")
            .attr("data-doc", &r.doc.to_string())
            .attr("data-score", &r.score.to_string())
            .child(E::new("summary").text("Pourquoi ce score ?"));
        Some(
            E::new("li")
                .class(if is_expected {
                    "resultat attendue"
                } else {
                    "resultat"
                })
                .attr("data-id", &fiche.id)
                .child(head)
                .child(E::new("p").class("nom").text(&fiche.nom))
                .child(E::new("p").class("famille").text(&fiche.famille))
                .child(highlighted("p", part.shown, &marks))
                .children(
                    cut_note(&part).map(|note| E::new("p").class("coupe").text(&note).build()),
                )
                .child(why)
                .build(),
        )
    });
    let column = column.child(E::new("ol").class("resultats").children(items));
    let id_of = |doc: usize| lab.fiches().get(doc).map(|f| f.id.as_str());
    match expected {
        Some(id) if !visible.iter().any(|r| id_of(r.doc) == Some(id)) => {
            let text = match hits.iter().position(|r| id_of(r.doc) == Some(id)) {
                Some(p) => match rank_text(&hits, p) {
                    (r, false) => format!("La fiche attendue {id} n'est qu'au rang {r}."),
                    (r, true) => format!("La fiche attendue {id} n'est qu'aux rangs {r}, ex æquo."),
                },
                None => format!("La fiche attendue {id} n'est pas dans les {DEPTH} premières."),
            };
            column.child(E::new("p").class("hors").text(&text)).build()
        }
        _ => column.build(),
    }
}

/// The rank as a learner should read it: « 2 », or « 2–5 ex æquo » when scores tie.
pub fn rank_text(hits: &[Ranked], i: usize) -> (String, bool) {
    match tie_span(hits, i) {
        (a, b) if a == b => ((i + 1).to_string(), false),
        (a, b) => (format!("{}–{}", a + 1, b + 1), true),
    }
}

/// `column` with only `text` in it: why it shows no result.
pub fn empty(column: E, text: &str) -> Element {
    column.child(E::new("p").class("vide").text(text)).build()
}

/// The BM25 explanation: one row per question term, the sum, the formula and the parameters.
fn explanation(e: &Explanation, keyword: Keyword, label: &str) -> Element {
    let header = ["mot", "terme", "df", "idf", "tf", "norme", "apport"];
    let head = E::new("tr").children(
        header
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
    );
    let rows = e.terms.iter().map(|t| {
        let cells = [
            t.word.clone(),
            t.term.clone(),
            t.df.to_string(),
            fr::decimal(t.idf, 3),
            t.tf.to_string(),
            fr::decimal(t.norm, 3),
            fr::decimal(t.contribution, 3),
        ];
        E::new("tr")
            .class(if t.tf == 0 { "absent" } else { "" })
            .children(cells.iter().map(|c| E::new("td").text(c).build()))
            .build()
    });
    let total = E::new("tr").class("total").children([
        E::new("th")
            .attr("scope", "row")
            .attr("colspan", "6")
            .text("score (somme des apports)")
            .build(),
        E::new("td").text(&fr::decimal(e.score, 3)).build(),
    ]);
    let mut notes = vec![
        E::new("p").class("formule").text(FORMULA).build(),
        E::new("p")
            .text(&format!(
                "k1 = {} ; b = {} ; N = {} fiches ; longueur de cette fiche : {} termes ; longueur moyenne : {}. Analyse : {}.",
                fr::decimal(e.params.k1, 2),
                fr::decimal(e.params.b, 2),
                fr::int(e.n as u64),
                fr::int(e.doc_len as u64),
                fr::decimal(e.avg_len, 2),
                keyword.analyzer().describe()
            ))
            .build(),
    ];
    if !e.dropped.is_empty() {
        notes.push(
            E::new("p")
                .text(&format!("Mots ignorés : {}.", e.dropped.join(", ")))
                .build(),
        );
    }
    let table = E::new("table")
        .class("explication")
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(rows).child(total))
        .build();
    let table = scroller(label, table);
    E::new("div")
        .children(std::iter::once(table).chain(notes))
        .build()
}
