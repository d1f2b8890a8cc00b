//! « Chercher »: the question box, the exercise's questions, the methods shown, and one column of
//! results per method, each result with « Pourquoi ce score ? ».

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlSelectElement};

use crate::data::{Question, QuestionKind};
use crate::fr::{self, labels, messages};
use crate::lab::{Method, Ranked};
use crate::measure::DEPTH;

use super::super::dom::{by_id, input, replace_children, set_hidden, set_text, E};
use super::super::ids;
use super::super::results::{self, empty, rank_text};
use super::super::state::{LocalModel, State};
use super::Memo;

pub fn render(s: &State, memo: &mut Memo) {
    let field = input(ids::QUESTION);
    if field.value() != s.question {
        field.set_value(&s.question);
    }
    if memo.changed("exemples", s.data.epoch) {
        fill_examples(&s.data.questions);
    }
    let select: HtmlSelectElement = by_id(ids::EXEMPLES).unchecked_into();
    let value = s.example.map(|i| i.to_string()).unwrap_or_default();
    if select.value() != value {
        select.set_value(&value);
    }
    if memo.changed("methodes", ()) {
        fill_method_choices();
    }
    for m in Method::ALL {
        let choice = input(&ids::method_choice(m));
        if choice.checked() != s.shown.contains(&m) {
            choice.set_checked(s.shown.contains(&m));
        }
    }
    let expected = match s.example_question() {
        Some(Question {
            expected: Some(id), ..
        }) => {
            let nom = s
                .data
                .lab
                .fiches()
                .iter()
                .find(|f| &f.id == id)
                .map_or("", |f| f.nom.as_str());
            format!("Fiche attendue : {id} — {nom}")
        }
        Some(Question { expected: None, .. }) => {
            "Aucune fiche n'y répond : la bonne réponse est « pas dans le catalogue ».".into()
        }
        None => String::new(),
    };
    set_text(&by_id(ids::ATTENDUE), &expected);
    let q = &s.question;
    let inputs = (
        s.data.epoch,
        q,
        s.example,
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
            s.local_fiches,
            &s.local_fiches_error,
        ),
    );
    if memo.changed("resultats", inputs) {
        let runnable: Vec<Method> = s
            .shown
            .iter()
            .copied()
            .filter(|&m| unavailable(s, m).is_none())
            .collect();
        place_columns(s, memo, &runnable);
        render_unavailable(s);
        render_changes(s);
        set_text(&by_id(ids::RESUME_RESULTATS), &summary(s, &runnable));
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
                s.example,
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
                        s.local_fiches,
                    )
                }),
            );
            let fresh = memo.changed(&id, inputs);
            // While the local encoder's worker embeds a new question (5-30 ms), its column keeps
            // what it showed, marked busy, instead of flashing a status line at each keystroke.
            let embedding = local
                && matches!(s.local, LocalModel::Ready)
                && s.data.lab.local_vectors().is_some()
                && !q.trim().is_empty()
                && !s.local_qvectors.contains_key(q);
            match doc.get_element_by_id(&id) {
                Some(kept) if embedding => {
                    kept.set_attribute("aria-busy", "true").ok();
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
            let failed = s
                .local_fiches_error
                .as_ref()
                .is_some_and(|(e, _)| *e == s.data.epoch);
            return match (s.data.lab.local_vectors().is_some(), &s.local) {
                (_, LocalModel::Unavailable(_)) => {
                    Some("le modèle local, qui n'est pas disponible sur ce site")
                }
                (false, _) if !own => Some("les vecteurs du modèle local, livrés avec la page"),
                (false, _) if failed => {
                    Some("les vecteurs du modèle local pour vos fiches, dont le calcul a échoué")
                }
                _ => None,
            };
        }
        Some(crate::lab::Encoder::Mistral) => {}
    }
    match (
        s.data.lab.has_vectors(crate::lab::Encoder::Mistral),
        s.key.is_some() || s.question_vector().is_some(),
    ) {
        (true, true) => None,
        (true, false) => Some("votre clé Mistral, pour plonger la question (quelques tokens)"),
        (false, _) => Some("les vecteurs des fiches (ils se calculent une fois, avec votre clé)"),
    }
}

/// One line for the methods shown that cannot run, instead of empty columns: what would enable
/// them, with a button to the settings; and, when the local model cannot be used at all, why, in
/// a line of its own (no setting changes that).
fn render_unavailable(s: &State) {
    let target = by_id(ids::INDISPONIBLES);
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
    let names = |list: &[(Method, &str)]| {
        list.iter()
            .map(|(m, _)| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if let Some((_, reason)) = blocked.first() {
        let text = format!("{} : il faut {reason}. ", names(&blocked));
        parts.push(E::new("span").text(&text).build());
        parts.push(
            E::new("button")
                .attr("type", "button")
                .attr("id", ids::OUVRIR_REGLAGES)
                .text("Ouvrir les réglages")
                .build(),
        );
        // Most learners have no key: meaning-based search is still one click away, with the
        // model that runs in the browser (when this site ships its vectors).
        let needs_key = blocked
            .iter()
            .any(|(m, _)| m.encoder() == Some(crate::lab::Encoder::Mistral));
        let local = [Method::SensLocal, Method::HybrideLocal];
        if needs_key
            && s.key.is_none()
            && local.iter().any(|m| !s.shown.contains(m))
            && unavailable(s, Method::SensLocal).is_none()
        {
            parts.push(
                E::new("span")
                    .class("sans-cle")
                    .text(
                        "Sans clé, le sens se calcule aussi dans votre navigateur, avec un \
                         autre modèle (81\u{a0}Mo, téléchargés une fois) : ",
                    )
                    .build(),
            );
            parts.push(
                E::new("button")
                    .attr("type", "button")
                    .attr("id", ids::ESSAYER_LOCAL)
                    .text("Montrer sens local et hybride local")
                    .build(),
            );
        }
    }
    if let (Some(why), false) = (why, broken.is_empty()) {
        let text = format!("{} : {why}", names(&broken));
        parts.push(
            E::new("span")
                .class("local-indisponible")
                .text(&text)
                .build(),
        );
    }
    if parts.is_empty() {
        set_hidden(&target, true);
        return;
    }
    replace_children(&target, parts);
    set_hidden(&target, false);
}

/// What `mots+` changes from `mots` for this question, when both are shown.
fn render_changes(s: &State) {
    let target = by_id(ids::ECART);
    let both = s.shown.contains(&Method::MOTS) && s.shown.contains(&Method::MOTS_PLUS);
    if !both || s.question.trim().is_empty() {
        set_hidden(&target, true);
        return;
    }
    set_text(
        &target,
        &labels::mots_plus_changes(&s.data.lab.keyword_changes(&s.question)),
    );
    set_hidden(&target, false);
}

/// The one-line summary of every column: where the expected fiche is, or which fiche leads.
fn summary(s: &State, runnable: &[Method]) -> String {
    if s.question.trim().is_empty() || runnable.is_empty() {
        return String::new();
    }
    let lab = &s.data.lab;
    let expected = s.example_question().and_then(|q| q.expected.as_deref());
    let parts: Vec<String> = runnable
        .iter()
        .map(|&m| {
            let hits = match lab.search(m, &s.question, s.vector_for(m, &s.question), DEPTH) {
                Ok(h) => h,
                Err(_) => return format!("{} en attente", m.name()),
            };
            let hits: Vec<Ranked> = hits
                .into_iter()
                .filter(|r| m.is_dense() || r.score > 0.0)
                .collect();
            let id_of = |r: &Ranked| lab.fiches().get(r.doc).map_or("", |f| f.id.as_str());
            let place = |i: usize| match rank_text(&hits, i) {
                (r, false) if r == "1" => "en tête".to_owned(),
                (r, false) => format!("au rang {r}"),
                (r, true) => format!("aux rangs {r} ex æquo"),
            };
            match expected {
                Some(id) => match hits.iter().position(|r| id_of(r) == id) {
                    Some(i) => format!("{} : {id} {}", m.name(), place(i)),
                    None => format!("{} : {id} absente des {DEPTH} premières", m.name()),
                },
                None => match hits.first() {
                    Some(r) => format!("{} : {} {}", m.name(), id_of(r), place(0)),
                    None => format!("{} : aucune fiche", m.name()),
                },
            }
        })
        .collect();
    format!("{}.", parts.join(" ; "))
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
                        "… et {} autres (« Mesurer » les compte toutes)",
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

fn fill_method_choices() {
    let choices = Method::ALL.map(|m| {
        let id = ids::method_choice(m);
        E::new("span")
            .class("choix")
            .child(
                E::new("input")
                    .attr("type", "checkbox")
                    .attr("id", &id)
                    .attr("value", m.name())
                    .attr("data-methode", m.name()),
            )
            .child(E::new("label").attr("for", &id).text(m.name()))
            .build()
    });
    replace_children(&by_id(ids::METHODES), choices);
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
    if local && vector.is_none() {
        return local_progress(column, s, "Plongement de la question par le modèle local…");
    }
    if method.encoder() == Some(crate::lab::Encoder::Mistral) {
        if !lab.has_vectors(crate::lab::Encoder::Mistral) {
            return empty(
                column,
                "Pas encore de vecteurs des fiches : voyez le panneau « Vecteurs des fiches ».",
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
                "Cette question vient d'un lien : la plonger coûte quelques tokens de votre clé, seulement si vous le demandez.",
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
    results::ranked(
        column,
        lab,
        method,
        question,
        vector,
        expected,
        &|doc, score| why(s, method, doc, score),
    )
}

/// A local method's column while its model loads, or while the learner's fiches are embedded:
/// the step under way and its progress bar (`otherwise` when the model is ready).
fn local_progress(column: E, s: &State, otherwise: &str) -> Element {
    let (text, progress) = match (&s.local, s.local_fiches) {
        (LocalModel::Ready, Some((_, done, total))) => (
            format!(
                "Calcul des vecteurs du modèle local pour vos fiches et vos questions : {} sur {}…",
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
    let col = column.child(E::new("p").class("vide").attr("role", "status").text(&text));
    match progress {
        Some((done, max)) => col
            .child(
                E::new("progress")
                    .class("modele-progression")
                    .attr("max", &max.to_string())
                    .attr("value", &done.to_string())
                    .attr("aria-label", "Progression du modèle local"),
            )
            .build(),
        None => col.build(),
    }
}

/// « Pourquoi ce score ? » for fiche `doc` under `method`.
fn why(s: &State, method: Method, doc: usize, score: f64) -> Element {
    let lab = &s.data.lab;
    match method {
        Method::Keyword(k) => results::keyword_why(lab, k, &s.question, doc),
        Method::Sens | Method::SensLocal => E::new("p")
            .text(&format!(
                "Cosinus entre le vecteur de la question et celui de la fiche : {}. Le sens ne se décompose pas mot à mot : \
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
