//! The page's controller: loads the bundled catalogue, wires the controls, renders the views.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

use super::dom::{by_id, clear, highlighted, replace_children, E};
use crate::bm25::{Explanation, FORMULA};
use crate::data::{check_expected, parse_fiches, parse_questions, Question, QuestionKind};
use crate::lab::{Lab, Method};
use crate::measure::{Measurement, DEPTH};

/// Results shown per method for a question.
const SHOWN: usize = 5;

struct App {
    lab: Lab,
    questions: Vec<Question>,
    /// Each keyword method measured on the bundled questions, computed once at load.
    measurements: Vec<Measurement>,
}

/// `x` with `decimals` decimals and a French decimal comma.
pub fn fr(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}").replace('.', ",")
}

fn method_title(m: Method) -> &'static str {
    match m {
        Method::Mots => "mots — le BM25 du sujet",
        Method::MotsPlus => "mots+ — BM25 en français (racines, accents, mots vides)",
    }
}

async fn fetch_text(path: &str) -> Result<String, String> {
    let resp = gloo_net::http::Request::get(path)
        .send()
        .await
        .map_err(|e| format!("{path} : le réseau a échoué ({e})"))?;
    if !resp.ok() {
        return Err(format!(
            "{path} : le serveur répond {} {}",
            resp.status(),
            resp.status_text()
        ));
    }
    resp.text()
        .await
        .map_err(|e| format!("{path} : lecture impossible ({e})"))
}

/// Loads the bundled data (relative to the page, so it works under any sub-path) and starts.
pub async fn run() {
    match load().await {
        Ok(app) => {
            let app = Rc::new(RefCell::new(app));
            wire(&app);
            render_measure(&app.borrow());
            set_ready();
        }
        Err(message) => {
            let alert = by_id("erreur");
            alert.set_text_content(Some(&format!(
                "Le laboratoire n'a pas pu démarrer. {message}"
            )));
            alert.remove_attribute("hidden").ok();
            web_sys::console::error_1(&JsValue::from_str(&message));
        }
    }
}

async fn load() -> Result<App, String> {
    let fiches = fetch_text("data/fiches.jsonl").await?;
    let questions = fetch_text("data/questions.csv").await?;
    let fiches = parse_fiches(&fiches).map_err(|e| e.to_string())?;
    let questions = parse_questions(&questions).map_err(|e| e.to_string())?;
    check_expected(&fiches, &questions).map_err(|e| e.to_string())?;
    let lab = Lab::new(fiches);
    let measurements = Method::KEYWORD
        .iter()
        .map(|&m| lab.measure(m, &questions))
        .collect();
    Ok(App {
        lab,
        questions,
        measurements,
    })
}

fn set_ready() {
    if let Some(body) = super::dom::document().body() {
        body.set_attribute("data-ready", "true").ok();
    }
}

fn input() -> HtmlInputElement {
    by_id("question").unchecked_into()
}

fn wire(app: &Rc<RefCell<App>>) {
    let a = app.borrow();
    by_id("resume").set_text_content(Some(&format!(
        "{} fiches, {} questions dont on connaît la bonne fiche.",
        a.lab.fiches().len(),
        a.questions.len()
    )));
    fill_examples(&a.questions);
    drop(a);

    let on_input = {
        let app = app.clone();
        Closure::<dyn Fn()>::new(move || {
            by_id("exemples")
                .unchecked_into::<HtmlSelectElement>()
                .set_value("");
            render_search(&app.borrow(), None);
        })
    };
    input()
        .add_event_listener_with_callback("input", on_input.as_ref().unchecked_ref())
        .ok();
    on_input.forget();

    let on_example = {
        let app = app.clone();
        Closure::<dyn Fn()>::new(move || {
            let select: HtmlSelectElement = by_id("exemples").unchecked_into();
            let Ok(i) = select.value().parse::<usize>() else {
                return;
            };
            let app = app.borrow();
            let Some(q) = app.questions.get(i) else {
                return;
            };
            input().set_value(&q.text);
            render_search(&app, Some(i));
        })
    };
    by_id("exemples")
        .add_event_listener_with_callback("change", on_example.as_ref().unchecked_ref())
        .ok();
    on_example.forget();

    for (tab, view) in [
        ("onglet-chercher", "vue-chercher"),
        ("onglet-mesurer", "vue-mesurer"),
    ] {
        let show = Closure::<dyn Fn()>::new(move || show_view(view));
        by_id(tab)
            .add_event_listener_with_callback("click", show.as_ref().unchecked_ref())
            .ok();
        show.forget();
    }
    render_search(&app.borrow(), None);
}

fn show_view(view: &str) {
    for (tab, v) in [
        ("onglet-chercher", "vue-chercher"),
        ("onglet-mesurer", "vue-mesurer"),
    ] {
        let selected = v == view;
        by_id(tab)
            .set_attribute("aria-selected", if selected { "true" } else { "false" })
            .ok();
        let section = by_id(v);
        if selected {
            section.remove_attribute("hidden").ok();
        } else {
            section.set_attribute("hidden", "").ok();
        }
    }
}

fn fill_examples(questions: &[Question]) {
    let select = by_id("exemples");
    let groups = [
        (QuestionKind::Exacte, "Références exactes"),
        (QuestionKind::Courante, "Questions courantes"),
        (QuestionKind::Absente, "Sans réponse dans le catalogue"),
    ];
    for (kind, label) in groups {
        let options = questions
            .iter()
            .enumerate()
            .filter(|(_, q)| q.kind == kind)
            .map(|(i, q)| {
                E::new("option")
                    .attr("value", &i.to_string())
                    .text(&q.text)
                    .build()
            });
        let group = E::new("optgroup")
            .attr("label", label)
            .children(options)
            .build();
        select.append_child(&group).ok();
    }
}

/// Renders the results of every keyword method for the question in the box. `example` is the
/// index of the chosen example question, whose expected fiche is then marked.
fn render_search(app: &App, example: Option<usize>) {
    let question = input().value();
    let expected = example.and_then(|i| app.questions.get(i));
    let note = by_id("attendue");
    match expected {
        Some(Question {
            expected: Some(id), ..
        }) => {
            let nom = app
                .lab
                .fiches()
                .iter()
                .find(|f| &f.id == id)
                .map_or("", |f| f.nom.as_str());
            note.set_text_content(Some(&format!("Fiche attendue : {id} — {nom}")));
        }
        Some(Question { expected: None, .. }) => note.set_text_content(Some(
            "Aucune fiche n'y répond : la bonne réponse est « pas dans le catalogue ».",
        )),
        None => note.set_text_content(None),
    }
    let expected_id = expected.and_then(|q| q.expected.as_deref());
    let columns = Method::KEYWORD
        .iter()
        .map(|&m| render_column(app, m, &question, expected_id));
    replace_children(&by_id("resultats"), columns);
}

fn render_column(app: &App, method: Method, question: &str, expected: Option<&str>) -> Element {
    let column = E::new("section")
        .class("colonne")
        .attr("data-methode", method.name());
    let column = column.child(E::new("h2").text(method_title(method)));
    if question.trim().is_empty() {
        return column
            .child(
                E::new("p")
                    .class("vide")
                    .text("Tapez une question ou choisissez un exemple."),
            )
            .build();
    }
    let index = app.lab.bm25(method);
    let analyzer = method.analyzer();
    let query_terms: HashSet<String> = analyzer.terms(question).into_iter().collect();
    if query_terms.is_empty() {
        return column
            .child(E::new("p").class("vide").text(
                "La question ne garde aucun mot après analyse (mots vides, ponctuation) : rien à chercher.",
            ))
            .build();
    }
    let hits: Vec<_> = app
        .lab
        .search(method, question, SHOWN)
        .into_iter()
        .filter(|r| r.score > 0.0)
        .collect();
    if hits.is_empty() {
        return column
            .child(
                E::new("p").class("vide").text(
                    "Aucune fiche ne contient un mot de la question : toutes ont un score nul.",
                ),
            )
            .build();
    }
    let items = hits.iter().enumerate().map(|(i, r)| {
        let fiche = &app.lab.fiches()[r.doc];
        let marks: Vec<(usize, usize)> = analyzer
            .analyze(&fiche.texte)
            .into_iter()
            .filter(|t| query_terms.contains(&t.term))
            .map(|t| (t.start, t.end))
            .collect();
        let is_expected = expected == Some(fiche.id.as_str());
        let head = E::new("div")
            .class("tete")
            .child(E::new("span").class("rang").text(&format!("{}", i + 1)))
            .child(E::new("span").class("id").text(&fiche.id))
            .child(
                E::new("span")
                    .class("score")
                    .attr("title", "score BM25")
                    .text(&fr(r.score, 2)),
            );
        let head = if is_expected {
            head.child(E::new("span").class("badge").text("fiche attendue"))
        } else {
            head
        };
        let why = E::new("details")
            .class("pourquoi")
            .child(E::new("summary").text("Pourquoi ce score ?"))
            .child(render_explanation(&index.explain(question, r.doc), method));
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
            .child(highlighted("p", &fiche.texte, &marks))
            .child(why)
            .build()
    });
    let column = column.child(E::new("ol").class("resultats").children(items));
    match expected {
        Some(id) if !hits.iter().any(|r| app.lab.fiches()[r.doc].id == id) => {
            let rank = app
                .lab
                .search(method, question, DEPTH)
                .iter()
                .position(|r| app.lab.fiches()[r.doc].id == id);
            let text = match rank {
                Some(p) => format!("La fiche attendue {id} n'est qu'au rang {}.", p + 1),
                None => format!("La fiche attendue {id} n'est pas dans les {DEPTH} premières."),
            };
            column.child(E::new("p").class("hors").text(&text)).build()
        }
        _ => column.build(),
    }
}

fn render_explanation(e: &Explanation, method: Method) -> Element {
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
            fr(t.idf, 3),
            t.tf.to_string(),
            fr(t.norm, 3),
            fr(t.contribution, 3),
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
        E::new("td").text(&fr(e.score, 3)).build(),
    ]);
    let mut notes = vec![
        E::new("p").class("formule").text(FORMULA).build(),
        E::new("p").text(&format!(
            "k1 = {} ; b = {} ; N = {} fiches ; longueur de cette fiche : {} termes ; longueur moyenne : {}. Analyse : {}.",
            fr(e.params.k1, 2),
            fr(e.params.b, 2),
            e.n,
            e.doc_len,
            fr(e.avg_len, 2),
            method.analyzer().describe()
        ))
        .build(),
    ];
    if !e.dropped.is_empty() {
        notes.push(
            E::new("p")
                .text(&format!("Mots ignorés : {}.", e.dropped.join(", ")))
                .build(),
        );
    }
    let table = E::new("table")
        .class("explication")
        .child(E::new("thead").child(head))
        .child(E::new("tbody").children(rows).child(total))
        .build();
    E::new("div")
        .children(std::iter::once(table).chain(notes))
        .build()
}

fn render_measure(app: &App) {
    let target = by_id("mesures");
    clear(&target);
    for (m, &method) in app.measurements.iter().zip(Method::KEYWORD.iter()) {
        let head = E::new("tr").children(
            [
                "Type",
                "Questions",
                "Bonne fiche en tête",
                "Dans les 5 premières",
                "MRR@10",
            ]
            .iter()
            .map(|h| E::new("th").attr("scope", "col").text(h).build()),
        );
        let rows = m.kinds.iter().map(|k| {
            E::new("tr")
                .attr("data-type", k.kind.as_str())
                .children([
                    E::new("th")
                        .attr("scope", "row")
                        .text(&format!("{}s", k.kind.as_str()))
                        .build(),
                    E::new("td").text(&k.questions.to_string()).build(),
                    E::new("td")
                        .class("hit1")
                        .text(&format!("{}/{}", k.hit1, k.questions))
                        .build(),
                    E::new("td")
                        .class("hit5")
                        .text(&format!("{}/{}", k.hit5, k.questions))
                        .build(),
                    E::new("td").text(&fr(k.mrr10, 2)).build(),
                ])
                .build()
        });
        let table = E::new("table")
            .class("mesure")
            .child(E::new("caption").text(&format!(
                "Méthode {} sur {} questions",
                m.method,
                m.questions.len()
            )))
            .child(E::new("thead").child(head))
            .child(E::new("tbody").children(rows));
        let missed: Vec<Element> = m
            .kinds
            .iter()
            .flat_map(|k| k.missed.iter().map(move |q| (k.kind, q)))
            .map(|(kind, q)| {
                E::new("li")
                    .text(&format!("{q} ({})", kind.as_str()))
                    .build()
            })
            .collect();
        let missed = if missed.is_empty() {
            E::new("p")
                .text("Aucune question ratée dans les 5 premières.")
                .build()
        } else {
            E::new("div")
                .child(E::new("h4").text("Ratées (bonne fiche hors des 5 premières)"))
                .child(E::new("ul").class("ratees").children(missed))
                .build()
        };
        let seed = E::new("details")
            .class("sortie")
            .child(E::new("summary").text("Sortie au format du programme du sujet (mesurer.py)"))
            .child(E::new("pre").class("rapport").text(&m.seed_report()));
        let section = E::new("section")
            .class("methode")
            .attr("data-methode", method.name())
            .child(E::new("h3").text(method_title(method)))
            .child(table)
            .child(missed)
            .child(seed)
            .build();
        target.append_child(&section).ok();
    }
}
