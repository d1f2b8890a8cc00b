//! « Chercher »: the question box, the exercise's questions, the methods shown, and one column of
//! results per method, each result with « Pourquoi ce score ? ».

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement};

use crate::data::{Question, QuestionKind};
use crate::fr::{self, labels, messages};
use crate::lab::Method;

use super::super::dom::{by_id, input, replace_children, set_hidden, set_text, E};
use super::super::results::{self, empty};
use super::super::{frame, ids};
use super::Memo;
use crate::page::{LocalModel, State};

pub fn render(s: &State, memo: &mut Memo) {
    let field = input(ids::QUESTION);
    if field.value() != s.question {
        field.set_value(&s.question);
    }
    if memo.changed("exemples", s.data.epoch) {
        fill_examples(&s.data.questions);
        // A catalogue alone has no questions to pick from.
        let none = s.data.questions.is_empty();
        let label = by_id(ids::EXEMPLES_ETIQUETTE);
        set_hidden(&label, none);
        set_hidden(&by_id(ids::EXEMPLES), none);
        set_text(
            &label,
            if s.data.label.is_none() {
                "ou une des questions de l'exercice"
            } else {
                "ou une de vos questions"
            },
        );
    }
    let select: HtmlSelectElement = by_id(ids::EXEMPLES).unchecked_into();
    let value = s.data.ui.example.map(|i| i.to_string()).unwrap_or_default();
    if select.value() != value {
        select.set_value(&value);
    }
    frame::method_choices(&s.shown);
    frame::expected(s.example_question(), s.data.lab.fiches());
    let q = &s.question;
    let inputs = (
        s.data.epoch,
        q,
        s.data.ui.example,
        &s.shown,
        s.data
            .lab
            .vectors_info(crate::lab::Encoder::Mistral)
            .map(|v| v.count),
        s.key.is_some(),
        s.question_from_link,
        s.question_vector().is_some(),
        s.dense_inputs(),
        s.search_error.as_ref().filter(|(e, _)| e == q),
        (
            s.data.lab.local_vectors().is_some(),
            s.local_qvectors.contains_key(q),
            s.local.key(),
            s.data.ui.local_texts,
            &s.data.ui.local_error,
            (s.local_not_kept, s.local_download_ok),
            s.local_rows,
        ),
        s.ready,
    );
    if memo.changed("resultats", inputs) {
        let runnable: Vec<Method> = s
            .shown
            .iter()
            .copied()
            .filter(|&m| unavailable(s, m).is_none())
            .collect();
        place_columns(s, memo, &runnable);
        frame::changes(&s.data.lab, &s.shown, q);
        // Until the vectors, the journal and a remembered key are read, what cannot run is not
        // known: the line above the columns keeps what the first module drew, instead of
        // changing twice above them as each arrives.
        if s.ready {
            render_unavailable(s);
            let expected = s.example_question().and_then(|x| x.expected.as_deref());
            let search = |m: Method| {
                s.data
                    .lab
                    .search(m, q, s.vector_for(m, q), crate::measure::DEPTH)
                    .ok()
            };
            frame::summary(&s.data.lab, q, &runnable, expected, &search);
        }
    }
}

/// The columns of `runnable`, in order. A column whose own inputs did not change keeps its
/// elements: when the local encoder's vector arrives, only « sens local » and « hybride local »
/// are rebuilt, not every column with its fiches and score tables.
fn place_columns(s: &State, memo: &mut Memo, runnable: &[Method]) {
    let container = by_id(ids::RESULTATS);
    let doc = super::super::dom::document();
    let q = &s.question;
    let columns: Vec<Element> = runnable
        .iter()
        .map(|&m| {
            let id = ids::column(m);
            let mistral = m.encoder() == Some(crate::lab::Encoder::Mistral);
            let local = m.encoder() == Some(crate::lab::Encoder::Local);
            let inputs = (
                s.data.epoch,
                q,
                s.data.ui.example,
                mistral.then(|| {
                    (
                        s.data
                            .lab
                            .vectors_info(crate::lab::Encoder::Mistral)
                            .map(|v| v.count),
                        s.key.is_some(),
                        s.question_from_link,
                        s.question_vector().is_some(),
                        s.dense_inputs(),
                        s.search_error.as_ref().filter(|(e, _)| e == q),
                    )
                }),
                local.then(|| {
                    (
                        s.data.lab.local_vectors().is_some(),
                        s.local_qvectors.contains_key(q),
                        s.local.key(),
                        s.data.ui.local_texts,
                        (s.local_not_kept, s.local_download_ok),
                        s.local_rows,
                    )
                }),
            );
            let fresh = memo.changed(&id, inputs);
            // While the local encoder's worker embeds a new question (a moment), its column keeps
            // what it showed, marked busy, instead of flashing a status line at each keystroke.
            // Once the question needs blocks of the model's rows (a download, which may be slow
            // or hang), the column says so itself and the previous question's results go: on a
            // phone, greyed results read as the answer.
            let embedding = local
                && matches!(s.local, LocalModel::Ready)
                && s.data.lab.local_vectors().is_some()
                && !q.trim().is_empty()
                && !s.local_qvectors.contains_key(q);
            match doc.get_element_by_id(&id) {
                Some(kept) if embedding => {
                    kept.set_attribute("aria-busy", "true").ok();
                    waiting_for_rows(&kept, rows_text(s).as_deref());
                    kept
                }
                Some(kept) if !fresh => kept,
                _ => column(s, m),
            }
        })
        .collect();
    let children = container.children();
    let same = children.length() as usize == columns.len()
        && columns
            .iter()
            .enumerate()
            .all(|(i, c)| children.item(i as u32).as_ref() == Some(c));
    if !same {
        replace_children(&container, columns);
    }
}

/// Why `method` cannot run for the question in the box, if it cannot: what would enable it.
fn unavailable(s: &State, method: Method) -> Option<&'static str> {
    match method.encoder() {
        None => return None,
        Some(crate::lab::Encoder::Local) => {
            let own = s.data.label.is_some();
            let failed = s.data.ui.local_error.is_some();
            return match (s.data.lab.local_vectors().is_some(), &s.local) {
                (_, LocalModel::Unavailable(_)) => {
                    Some("le modèle local, qui n'est pas disponible sur ce site")
                }
                (false, _) if !own => Some(frame::LOCAL_VECTORS_MISSING),
                (false, _) if failed => {
                    Some("les vecteurs du modèle local pour vos fiches, dont le calcul a échoué")
                }
                _ => None,
            };
        }
        Some(crate::lab::Encoder::Mistral) => {}
    }
    frame::mistral_blocked(
        s.data.lab.has_vectors(crate::lab::Encoder::Mistral),
        s.key.is_some() || s.question_vector().is_some(),
    )
}

/// The line of methods shown that cannot run, and why ([`frame::unavailable`]).
fn render_unavailable(s: &State) {
    let why = match &s.local {
        LocalModel::Unavailable(why) => Some(why.as_str()),
        _ => None,
    };
    type Blocked<'a> = Vec<(Method, &'a str)>;
    let (broken, blocked): (Blocked, Blocked) = s
        .shown
        .iter()
        .filter_map(|&m| Some((m, unavailable(s, m)?)))
        .partition(|(m, _)| why.is_some() && m.encoder() == Some(crate::lab::Encoder::Local));
    let broken: Vec<Method> = broken.into_iter().map(|(m, _)| m).collect();
    let offer = frame::offer_local(
        &blocked,
        &s.shown,
        s.key.is_some(),
        unavailable(s, Method::SensLocal).is_none(),
    );
    frame::unavailable(&blocked, &broken, why, offer);
}

/// Questions of each type listed in the examples.
const EXAMPLES_CAP: usize = 300;

fn fill_examples(questions: &[Question]) {
    let select = by_id(ids::EXEMPLES);
    let first = E::new("option")
        .attr("value", "")
        .text("— choisir une question —")
        .build();
    let groups = [
        QuestionKind::Exacte,
        QuestionKind::Courante,
        QuestionKind::Absente,
    ]
    .map(|kind| {
        let of_kind: Vec<(usize, &Question)> = questions
            .iter()
            .enumerate()
            .filter(|(_, q)| q.kind == kind)
            .collect();
        // A list of 76,000 options is no list to pick from: the first ones, then a count.
        let more = of_kind.len().saturating_sub(EXAMPLES_CAP);
        let options = of_kind
            .iter()
            .take(EXAMPLES_CAP)
            .map(|(i, q)| {
                E::new("option")
                    .attr("value", &i.to_string())
                    .text(&q.text)
                    .build()
            })
            .chain((more > 0).then(|| {
                E::new("option")
                    .attr("disabled", "")
                    .text(&format!(
                        "… et {} autres (« Mesurer » les compte toutes)",
                        crate::fr::int(more as u64)
                    ))
                    .build()
            }));
        let label = match kind {
            QuestionKind::Exacte => "Références exactes",
            QuestionKind::Courante => "Questions courantes",
            QuestionKind::Absente => "Sans réponse dans le catalogue",
        };
        E::new("optgroup")
            .attr("label", label)
            .children(options)
            .build()
    });
    replace_children(&select, std::iter::once(first).chain(groups));
}

/// The column of `method` for the question in the box.
fn column(s: &State, method: Method) -> Element {
    let column = results::frame(method);
    let question = s.question.as_str();
    let local = method.encoder() == Some(crate::lab::Encoder::Local);
    let lab = &s.data.lab;
    // The learner's fiches without the local encoder's vectors: what is under way, even before
    // a question is typed.
    if local && lab.local_vectors().is_none() {
        return local_progress(
            column,
            s,
            "Calcul des vecteurs du modèle local pour vos fiches…",
        );
    }
    if question.trim().is_empty() {
        return empty(column, "Tapez une question ou choisissez un exemple.");
    }
    let vector = s.vector_for(method, question);
    if local && vector.is_none() && s.local_waits_for_gesture() {
        let ask = E::new("p").class("vide").text(
            "Cette question vient d'un lien : la plonger avec le modèle local demande de le télécharger (une fois, gardé ensuite dans ce navigateur), seulement si vous le demandez.",
        );
        let button = E::new("button")
            .attr("type", "button")
            .attr("data-charger-modele", "")
            .text(&format!(
                "Charger le modèle local ({}\u{a0}Mo, une fois)",
                crate::encoder::blocks::HEAD_MB
            ));
        return column.child(ask).child(button).build();
    }
    if local && vector.is_none() {
        return local_progress(column, s, "Plongement de la question par le modèle local…");
    }
    if method.encoder() == Some(crate::lab::Encoder::Mistral) {
        if !lab.has_vectors(crate::lab::Encoder::Mistral) {
            return empty(
                column,
                "Pas encore de vecteurs des fiches : voyez le panneau « Vecteurs des fiches ».",
            );
        }
        if let Some((_, message)) = s.search_error.as_ref().filter(|(q, _)| q == question) {
            let p = E::new("p")
                .class("erreur-api")
                .attr("role", "alert")
                .text(message);
            return column.child(p).build();
        }
        if vector.is_none() && s.key.is_some() && s.question_from_link {
            let ask = E::new("p").class("vide").text(
                "Cette question vient d'un lien : la plonger coûte quelques tokens de votre clé, seulement si vous le demandez.",
            );
            let button = E::new("button")
                .attr("type", "button")
                .attr("data-plonger", "")
                .text("Plonger la question");
            return column.child(ask).child(button).build();
        }
        if vector.is_none() {
            let text = if s.key.is_none() {
                "Entrez votre clé Mistral pour que la question soit plongée (quelques tokens)."
            } else {
                "Plongement de la question…"
            };
            return empty(column, text);
        }
    }
    let expected = s.example_question().and_then(|q| q.expected.as_deref());
    let column = if local && s.local_not_kept {
        column.child(E::new("p").class("note").text(
            "Modèle local utilisé sans être gardé dans ce navigateur (stockage refusé : fenêtre privée ou espace plein) : il sera chargé à nouveau à la prochaine visite.",
        ))
    } else {
        column
    };
    results::ranked(column, lab, method, question, vector, expected)
}

/// Builds a « Pourquoi ce score ? » of the columns ([`results::ranked`]) the first time it opens,
/// for the question in the box (whose columns these are: they are rebuilt when it changes).
pub fn fill_why(s: &State, details: &Element) {
    if !details.class_list().contains("pourquoi") || details.child_element_count() > 1 {
        return;
    }
    let method = details
        .closest(".colonne")
        .ok()
        .flatten()
        .and_then(|c| c.get_attribute("data-methode"))
        .and_then(|name| Method::parse(&name));
    let doc = details
        .get_attribute("data-doc")
        .and_then(|d| d.parse::<usize>().ok());
    let score = details
        .get_attribute("data-score")
        .and_then(|d| d.parse::<f64>().ok());
    if let (Some(method), Some(doc), Some(score)) = (method, doc, score) {
        details.append_child(&why(s, method, doc, score)).ok();
    }
}

/// What the blocks of the model's rows for the question have done, while they arrive.
fn rows_text(s: &State) -> Option<String> {
    let (done, total, bytes) = s.local_rows?;
    Some(format!(
        "Chargement des lignes du modèle local pour cette question\u{a0}: {} blocs sur {} ({} ko)…",
        fr::int(u64::from(done)),
        fr::int(u64::from(total)),
        fr::int(bytes.div_ceil(1000))
    ))
}

/// A column kept busy while its question waits for blocks of the model's rows says so inside
/// itself (`text`), and its previous results go: after a moment, by the style sheet
/// (`.attend-lignes`), so that blocks arriving at once flash nothing between two keystrokes,
/// while a slow or hung download never leaves the previous question's results to read as the
/// answer.
fn waiting_for_rows(column: &Element, text: Option<&str>) {
    let line = column.query_selector(".attente-lignes").ok().flatten();
    match (text, line) {
        (Some(text), Some(line)) => {
            if line.text_content().as_deref() != Some(text) {
                line.set_text_content(Some(text));
            }
        }
        (Some(text), None) => {
            let line = E::new("p").class("attente-lignes").text(text).build();
            let heading = column.first_element_child();
            let after = heading.and_then(|h| h.next_sibling());
            column.insert_before(&line, after.as_ref()).ok();
            column.class_list().add_1("attend-lignes").ok();
        }
        (None, Some(line)) => {
            line.remove();
            column.class_list().remove_1("attend-lignes").ok();
        }
        (None, None) => {}
    }
}

/// A local method's column while its model loads, or while the learner's fiches are embedded:
/// the step under way and its progress bar (`otherwise` when the model is ready).
fn local_progress(column: E, s: &State, otherwise: &str) -> Element {
    let (text, progress) = match (&s.local, s.data.ui.local_texts) {
        (LocalModel::Ready, _) if s.local_rows.is_some() => {
            let (done, total, _) = s.local_rows.unwrap_or_default();
            (
                rows_text(s).unwrap_or_default(),
                Some((u64::from(done), u64::from(total))),
            )
        }
        (LocalModel::Ready, Some((done, total))) => (
            format!(
                "Calcul des vecteurs du modèle local pour vos fiches et vos questions : {} sur {}…",
                fr::int(done as u64),
                fr::int(total as u64)
            ),
            Some((done as u64, total as u64)),
        ),
        (LocalModel::Fetching { done, total }, _) => (
            s.local.status().unwrap_or_default(),
            total.map(|t| (*done, t)),
        ),
        (LocalModel::Preparing(p), _) => (
            s.local.status().unwrap_or_default(),
            Some((u64::from(*p), 100)),
        ),
        (other, _) => (other.status().unwrap_or_else(|| otherwise.to_owned()), None),
    };
    let mut col = column.child(E::new("p").class("vide").attr("role", "status").text(&text));
    if let Some((done, max)) = progress {
        col = col.child(
            E::new("progress")
                .class("modele-progression")
                .attr("max", &max.to_string())
                .attr("value", &done.to_string())
                .attr("aria-label", "Progression du modèle local"),
        );
    }
    // A large file on a slow link: the learner can stop it.
    if matches!(s.local, LocalModel::Fetching { .. }) {
        col = col.child(
            E::new("button")
                .attr("type", "button")
                .attr("data-annuler-modele", "")
                .text("Annuler le téléchargement"),
        );
    }
    col.build()
}

/// « Pourquoi ce score ? » for fiche `doc` under `method`.
fn why(s: &State, method: Method, doc: usize, score: f64) -> Element {
    let lab = &s.data.lab;
    match method {
        Method::Keyword(k) => results::keyword_why(lab, k, &s.question, doc),
        Method::Sens | Method::SensLocal => E::new("p")
            .text(&format!(
                "Cosinus entre le vecteur de la question et celui de la fiche : {}. Le sens ne se décompose pas mot à mot : \
                 deux textes proches par le sens ont des vecteurs proches, même sans mot commun.",
                fr::decimal(score, 4)
            ))
            .build(),
        Method::Hybride(_) | Method::HybrideLocal => match lab.explain_fusion(method, &s.question, s.vector_for(method, &s.question), doc) {
            Ok(e) => E::new("ul")
                .children(labels::fusion_lines(method, &e).iter().map(|l| E::new("li").text(l).build()))
                .build(),
            Err(e) => E::new("p").text(&messages::search(&e)).build(),
        },
    }
}
