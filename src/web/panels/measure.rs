//! « Mesurer »: every method measured on the same questions (tables, bars, grid, a pair compared,
//! thresholds, exports, the seed's report), and the dense methods' part: what measuring them
//! costs, the button, the progress.

use web_sys::Element;

use crate::data::QuestionKind;
use crate::fr::{self, dollars, labels};
use crate::lab::Method;
use crate::measure::{compare, Measurement};
use crate::mistral;

use super::super::dom::options;
use super::super::dom::{by_id, replace_children, set_hidden, E};
use super::super::ids;
use super::{charts, pairs, Memo};
use crate::page::{embed_estimate, Phase, State};

/// What « Mesurer » says over a catalogue that has no question naming its fiche: why nothing is
/// measured, and how to get questions.
fn nothing_to_measure() -> Vec<Element> {
    vec![section("Rien à mesurer\u{a0}: ce catalogue n'a pas de questions", "partie-sans-questions")
        .child(E::new("p").text(
            "Mesurer, c'est compter, question par question, si chaque méthode met la bonne fiche en tête ou dans \
             les 5 premières\u{a0}: il faut des questions dont on connaît la bonne fiche. Chargez-les avec vos \
             fiches\u{a0}: un fichier .csv, une question par ligne, au format «\u{202f}type;question;fiche_attendue\u{202f}» \
             (type exacte, courante ou absente\u{202f}; fiche_attendue vide pour une question sans réponse dans le \
             catalogue).",
        ))
        .child(E::new("p").text(
            "En attendant, «\u{202f}Chercher\u{202f}» interroge vos fiches avec chaque méthode, et les questions que \
             vous y validez sans réponse s'inscrivent ci-dessous.",
        ))
        .build()]
}

pub fn render(s: &State, memo: &mut Memo) {
    let measurable = s.data.measurable();
    set_hidden(&by_id(ids::MESURES_REPONSES), !measurable);
    if !measurable {
        if memo.changed("mesures", (s.data.epoch, "sans questions")) {
            replace_children(&by_id(ids::MESURES), nothing_to_measure());
            replace_children(&by_id(ids::MESURES_SENS), Vec::new());
            memo.forget("mesures-sens");
        }
        return;
    }
    let methods: Vec<&str> = s
        .data
        .measurements
        .iter()
        .chain(&s.data.runs)
        .map(|m| m.method.as_str())
        .collect();
    let inputs = (
        s.data.epoch,
        s.data.measure_version,
        &methods,
        &s.data.ui.grid_sort,
        s.data.ui.grid_limit,
        s.compared_pair(),
        &s.data.ui.run_messages,
        s.data.judging.version,
    );
    // Built over several turns of the event loop, the first part at once: at 50,000 fiches the
    // whole view in one task was a long task (half of it the browser's layout).
    if memo.changed("mesures", inputs) {
        let ms = measured(s);
        let mut children = part(s, &ms, 0);
        children.extend((1..PARTS).map(|i| {
            memo.forget(&format!("mesures-{i}"));
            E::new("div")
                .class("mesures-suite")
                .attr("id", &format!("mesures-{i}"))
                .build()
        }));
        replace_children(&by_id(ids::MESURES), children);
        memo.defer();
    } else if let Some(i) = (1..PARTS).find(|i| memo.changed(&format!("mesures-{i}"), ())) {
        let ms = measured(s);
        replace_children(&by_id(&format!("mesures-{i}")), part(s, &ms, i));
        if i + 1 < PARTS {
            memo.defer();
        }
    }
    let missing = s
        .data
        .questions
        .iter()
        .filter(|q| !s.qvectors.contains_key(&q.text))
        .count();
    let dense_inputs = (
        s.data.epoch,
        s.data.has_mistral_measurements(),
        s.data.lab.has_vectors(crate::lab::Encoder::Mistral),
        s.key.is_some(),
        missing,
        &s.data.ui.dense,
        &s.data.ui.dense_message,
        s.measuring_of(Method::Sens).map(|m| (m.done, m.total)),
    );
    if memo.changed("mesures-sens", dense_inputs) {
        replace_children(&by_id(ids::MESURES_SENS), dense_part(s, missing));
    }
}

fn section(title: &str, id: &str) -> E {
    E::new("section")
        .class("partie")
        .attr("id", id)
        .child(E::new("h3").text(title))
}

/// « Mesurer »'s view is built in this many parts, one per turn (see [`part`]).
const PARTS: usize = 4;

fn measured(s: &State) -> Vec<Measurement> {
    s.data.measured().into_iter().cloned().collect()
}

/// Part `i` of the view: the tables and bars; the grid and the pair compared; every pair; the
/// thresholds, imports, exports and each method's detail.
fn part(s: &State, ms: &[Measurement], i: usize) -> Vec<Element> {
    match i {
        0 => vec![section(
            "Toutes les méthodes, les mêmes questions",
            "partie-tableaux",
        )
        .child(charts::comparison_tables(ms))
        .children(pairs::leaders(ms))
        .children(charts::graded_table(ms, &s.data.judging.qrels))
        .child(charts::bars(ms))
        .build()],
        1 => grid_and_pair(s, ms),
        2 => pairs::all_pairs(ms).into_iter().collect(),
        _ => thresholds_and_exports(s, ms),
    }
}

fn grid_and_pair(s: &State, ms: &[Measurement]) -> Vec<Element> {
    let names: Vec<&str> = ms.iter().map(|m| m.method.as_str()).collect();
    let mut out = Vec::new();
    let order = charts::grid_order(ms, s.data.ui.grid_sort.as_deref());
    out.push(
        section("Question par question", "partie-grille")
            .child(charts::question_grid(ms, &order, s.data.ui.grid_limit))
            .build(),
    );
    if let Some((a, b)) = s.compared_pair() {
        let ma = ms.iter().find(|m| m.method == a);
        let mb = ms.iter().find(|m| m.method == b);
        let sentences: Vec<Element> = match (ma, mb) {
            (Some(ma), Some(mb)) => QuestionKind::ANSWERABLE
                .iter()
                .map(|&kind| {
                    let p = compare::paired(ma, mb, kind);
                    // The gap of `a` over `b`, with its interval and the questions it would take.
                    let rr = |m| crate::measure::stats::reciprocal_ranks(m, kind);
                    let gap = crate::measure::stats::paired(&rr(mb), &rr(ma));
                    let said = labels::gap_sentence(&format!("MRR@10 ({a} − {b})"), &gap, &|x| {
                        fr::decimal(x, 3)
                    });
                    E::new("p")
                        .attr("data-type", kind.as_str())
                        .text(&format!(
                            "{} {said}",
                            labels::paired_sentence(&a, &b, kind, &p)
                        ))
                        .build()
                })
                .collect(),
            _ => Vec::new(),
        };
        let selects = E::new("div")
            .class("ligne")
            .child(E::new("label").attr("for", ids::COMPARER_A).text("Méthode"))
            .child(
                E::new("select")
                    .attr("id", ids::COMPARER_A)
                    .children(options(names.iter().map(|n| (*n, *n)), Some(a.as_str()))),
            )
            .child(E::new("label").attr("for", ids::COMPARER_B).text("contre"))
            .child(
                E::new("select")
                    .attr("id", ids::COMPARER_B)
                    .children(options(names.iter().map(|n| (*n, *n)), Some(b.as_str()))),
            );
        let index = |name: &str| ms.iter().position(|m| m.method == name);
        let figures = match (index(&a), index(&b)) {
            (Some(i), Some(j)) if i != j => pairs::compared(ms, i, j),
            _ => Vec::new(),
        };
        let note = (!figures.is_empty()).then(|| {
            E::new("p")
                .class("legende")
                .text(pairs::COMPARED_NOTE)
                .build()
        });
        out.push(
            section("Une méthode contre une autre", "partie-paire")
                .child(selects)
                .child(E::new("div").attr("id", "comparaison").children(sentences))
                .child(
                    E::new("div")
                        .attr("id", "comparaison-mesures")
                        .children(figures)
                        .children(note),
                )
                .build(),
        );
    }
    out
}

fn thresholds_and_exports(s: &State, ms: &[Measurement]) -> Vec<Element> {
    let names: Vec<&str> = ms.iter().map(|m| m.method.as_str()).collect();
    let mut out = Vec::new();
    out.push(
        section("Les questions sans réponse : un seuil de score suffit-il ?", "partie-seuils")
            .child(E::new("p").class("intro").text(
                "Chaque point est le meilleur score d'une question qui a une réponse, chaque croix celui d'une question \
                 sans réponse ; le trait vertical est le seuil de refus. Il est calibré comme dans le cours : candidats à \
                 mi-chemin entre deux scores voisins, le plus juste gagne, le plus bas à égalité ; calibré sur les \
                 questions de rang impair (1re, 3e, 5e…), testé sur les autres.",
            ))
            .children(ms.iter().map(super::threshold::strip_plot))
            .build(),
    );
    let export = |what: &str, label: &str| {
        E::new("button")
            .attr("type", "button")
            .attr("data-export", what)
            .text(label)
            .build()
    };
    let mut exports = vec![
        export("csv", "mesures.csv"),
        export("json", "mesures.json"),
        export("qrels", "qrels.txt"),
    ];
    for name in &names {
        exports.push(export(
            &format!("run:{name}"),
            &format!("run-{}.txt", crate::measure::export::run_name(name)),
        ));
    }
    out.push(import_section(s));
    out.push(
        section("Exporter", "partie-exports")
            .child(E::new("p").text(
                "Les mesures en CSV et JSON ; chaque méthode au format TREC, avec les jugements (qrels), pour vérifier \
                 nos chiffres avec trec_eval ou ranx (voir le README).",
            ))
            .child(E::new("div").class("ligne").children(exports))
            .build(),
    );
    out.push(
        E::new("details")
            .class("detail-methodes")
            .child(E::new("summary").text("Détail par méthode, avec la sortie au format du sujet"))
            .children(
                ms.iter().filter_map(|m| {
                    Method::parse(&m.method).map(|method| method_section(m, method))
                }),
            )
            .build(),
    );
    out
}

/// « Importer un run »: any engine's results on these questions, measured beside ours.
fn import_section(s: &State) -> Element {
    let mut part = section("Importer le run d'un autre moteur", "partie-runs")
        .child(E::new("p").class("intro").text(
            "Faites tourner Elasticsearch, OpenSearch, Qdrant, Lucene ou tantivy sur les questions exportées, puis \
             rapportez leur run au format TREC (une ligne par résultat : « qid Q0 fiche rang score nom », les qid \
             q01, q02… dans l'ordre des questions, comme l'export qrels.txt). Il est mesuré comme nos méthodes, \
             avec les mêmes questions, et rien ne quitte votre navigateur.",
        ))
        .child(
            E::new("div")
                .class("ligne")
                .child(
                    E::new("label")
                        .attr("for", ids::IMPORTER_RUN)
                        .text("Importer un run (.txt)"),
                )
                .child(
                    E::new("input")
                        .attr("type", "file")
                        .attr("id", ids::IMPORTER_RUN)
                        .attr("accept", ".txt,.run,.trec,text/plain")
                        .attr("multiple", ""),
                ),
        );
    let said: Vec<Element> = s
        .data
        .ui
        .run_messages
        .iter()
        .map(|r| match r {
            Ok(t) => E::new("p").class("run-ok").text(t).build(),
            Err(t) => E::new("p")
                .class("erreur-api")
                .attr("role", "alert")
                .text(t)
                .build(),
        })
        .collect();
    part = part.child(E::new("div").attr("id", "run-etat").children(said));
    if !s.data.runs.is_empty() {
        part = part.child(
            E::new("button")
                .attr("type", "button")
                .attr("data-retirer-runs", "")
                .text(&format!(
                    "Retirer les runs importés ({})",
                    s.data.runs.len()
                )),
        );
    }
    part.build()
}

/// One method's table, its misses and the seed's text. Each row's type carries its number of
/// questions (a column of its own made the table too wide for a phone's screen).
fn method_section(m: &Measurement, method: Method) -> Element {
    let head = E::new("tr").children(
        [
            "Type",
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
            .child(E::new("th").attr("scope", "row").text(&format!(
                "{}s ({})",
                k.kind.as_str(),
                k.questions
            )))
            .children(charts::stat_cells(k))
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
    let missed: Vec<Element> = charts::capped(
        m.kinds
            .iter()
            .flat_map(|k| k.missed.iter().map(move |q| (k.kind, q)))
            .map(|(kind, q)| {
                E::new("li")
                    .text(&format!("{q} ({})", kind.as_str()))
                    .build()
            }),
        "questions ratées",
    );
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
        .child(
            E::new("pre")
                .class("rapport")
                .attr("tabindex", "0")
                .attr(
                    "aria-label",
                    &format!("Sortie de mesurer.py pour {}", m.method),
                )
                .text(&m.seed_report()),
        );
    E::new("section")
        .class("methode")
        .attr("data-methode", method.name())
        .child(E::new("h3").text(labels::method_title(method)))
        .child(super::super::dom::scroller(
            &format!("Mesure de {}", m.method),
            table.build(),
        ))
        .child(missed)
        .child(seed)
        .build()
}

/// The dense methods' part: nothing once measured; else what it takes and costs, and the button.
fn dense_part(s: &State, missing: usize) -> Vec<Element> {
    if let Some(m) = s.measuring_of(Method::Sens) {
        let text = format!(
            "Mesure de sens, hybride et hybride+ en cours : {} questions sur {}…",
            m.done, m.total
        );
        return vec![E::new("p")
            .attr("id", ids::MESURE_SENS_ETAT)
            .attr("role", "status")
            .text(&text)
            .build()];
    }
    if s.data.has_mistral_measurements() {
        if s.data.questions_shipped == 0 {
            return Vec::new();
        }
        let from = match s.data.label {
            Some(_) => "avec votre fichier de vecteurs",
            None => "avec la page",
        };
        let text = format!(
            "Vecteurs des questions fournis {from} ({}) : aucune clé nécessaire pour mesurer sens et hybride. Une question que vous tapez, elle, demande votre clé.",
            s.data.questions_shipped
        );
        return vec![E::new("p")
            .attr("id", ids::MESURE_SENS_ETAT)
            .class("fournis")
            .text(&text)
            .build()];
    }
    let tokens = embed_estimate(
        s.data
            .questions
            .iter()
            .filter(|q| !s.qvectors.contains_key(&q.text))
            .map(|q| q.text.as_str()),
    );
    let cost = |t: u64| {
        format!(
            "au plus {} tokens ({})",
            fr::int(t),
            dollars(mistral::cost_usd(t))
        )
    };
    let text = if let Some(message) = &s.data.ui.dense_message {
        message.clone()
    } else if let Phase::Running { done, total } = s.data.ui.dense {
        format!("Plongement des questions… {done} sur {total}")
    } else if !s.data.lab.has_vectors(crate::lab::Encoder::Mistral) {
        "sens et hybride : il faut d'abord les vecteurs des fiches (panneau « Vecteurs des fiches »).".to_owned()
    } else if missing == 0 {
        "Toutes les questions ont déjà leur vecteur : mesurer sens et hybride ne coûte rien."
            .to_owned()
    } else if s.key.is_none() {
        format!(
            "sens et hybride : entrez votre clé Mistral ; plonger les {missing} questions coûte {}.",
            cost(tokens)
        )
    } else {
        format!(
            "Plonger les {missing} questions restantes : {}, en une requête.",
            cost(tokens)
        )
    };
    let mut out = vec![E::new("p")
        .attr("id", ids::MESURE_SENS_ETAT)
        .text(&text)
        .build()];
    if s.data.lab.has_vectors(crate::lab::Encoder::Mistral) && (s.key.is_some() || missing == 0) {
        out.push(
            E::new("button")
                .attr("id", ids::MESURER_SENS)
                .attr("type", "button")
                .flag("disabled", s.data.ui.dense.is_running())
                .text("Mesurer sens et hybride")
                .build(),
        );
    }
    out
}
