//! What « Chercher » shows around its columns — the header's lines, the guide, the methods'
//! checkboxes, the expected fiche, the line of methods that cannot run, what `mots+` changes, the
//! one-line summary — drawn from plain inputs, so that the first module ([`super::first`]) and the
//! page's panels draw the same elements. Whatever the first module draws above its columns and
//! the page's module then draws differently moves those columns under the learner's eyes.

use crate::data::{Fiche, Question};
use crate::fr::{self, dollars, labels};
use crate::lab::{Encoder, Lab, Method, Ranked};
use crate::measure::DEPTH;
use crate::mistral::{self, prices};

use super::dom::{by_id, input, replace_children, set_hidden, set_text, E};
use super::ids;
use super::results::rank_text;

/// Where requests go. A build-time setting only (the end-to-end tests build a copy of the page
/// pointed at their local mock): nothing in a URL, a link or storage can change it.
pub const API_BASE: &str = match option_env!("RAG_FICHES_TEST_API_BASE") {
    Some(base) => base,
    None => mistral::API_ORIGIN,
};

/// Whether this build talks to a test mock instead of Mistral (the page then says so).
pub fn is_test_build() -> bool {
    API_BASE != mistral::API_ORIGIN
}

/// The bundle's manifest (`data/manifeste.json`): which vectors files ship with the fiches.
#[derive(Default)]
pub struct Manifest {
    /// Mistral's vectors of the fiches (and perhaps of the exercise's questions).
    pub vecteurs: Option<String>,
    /// The local encoder's vectors of the fiches and the questions.
    pub vecteurs_local: Option<String>,
    /// The content hash of the page's head of the local model those vectors were computed with
    /// ([`crate::encoder::identity::HEAD_FIELD`]): the only model the page uses or caches.
    pub modele_local: Option<String>,
    /// The content hash of the whole model file: what pages before the head cached (81 MB),
    /// deleted from this browser when the head is fetched.
    pub modele_entier: Option<String>,
    /// The answers computed once for the exercise's questions (`reponses`).
    pub reponses: Option<String>,
}

impl Manifest {
    /// The manifest in `text`; a file that does not parse names no vectors. Read as a
    /// `serde_json::Value` (which the fiches' parser already brings), not derived: the first
    /// module carries no more deserialization code for it.
    pub fn parse(text: &str) -> Manifest {
        let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let name = |field: &str| value.get(field).and_then(|v| v.as_str()).map(str::to_owned);
        Manifest {
            vecteurs: name("vecteurs"),
            vecteurs_local: name("vecteurs_local"),
            modele_local: name(crate::encoder::identity::HEAD_FIELD),
            modele_entier: name("modele_local"),
            reponses: name("reponses"),
        }
    }
}

/// The localStorage entry of a key the learner chose to remember on this device.
pub const KEY_ENTRY: &str = "rag-fiches.cle-mistral";
/// The localStorage entry set when « Par où commencer » was dismissed on this device.
pub const GUIDE_ENTRY: &str = "rag-fiches.guide-masque";

/// The attribute the first module sets on the question box once the learner has edited it.
pub const EDITED: &str = "data-modifiee";
/// The attribute the page's module sets on the question box when it takes over: the first
/// module's listener then leaves the box and the results to it.
pub const TAKEN_OVER: &str = "data-module-page";

/// This device's localStorage, when the browser allows it.
pub fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// A localStorage entry's value.
pub fn stored(entry: &str) -> Option<String> {
    local_storage()?.get_item(entry).ok().flatten()
}

/// The session's costs, as the header's cost line counts them.
#[derive(Default)]
pub struct CostLine<'a> {
    /// Embedding tokens paid for fiche vectors, and for questions.
    pub fiches: u64,
    pub questions: u64,
    pub calls: u64,
    /// Chat tokens sent and received, their price, and the models whose price is unknown.
    pub chat_in: u64,
    pub chat_out: u64,
    pub chat_usd: f64,
    pub unknown: Vec<&'a str>,
}

/// The header: the catalogue's summary, the test build's banner, and the cost line, shown once
/// there is something to pay with (`costs`) or something paid.
pub fn header(fiches: usize, questions: usize, label: Option<&str>, costs: Option<&CostLine>) {
    let count = questions;
    let (fiches, questions) = (
        crate::fr::int(fiches as u64),
        crate::fr::int(questions as u64),
    );
    let summary = match label {
        Some(l) if count == 0 => format!("{fiches} fiches, sans questions : {l}."),
        Some(l) => format!("{fiches} fiches, {questions} questions : {l}."),
        None => format!("{fiches} fiches, {questions} questions dont on connaît la bonne fiche."),
    };
    set_text(&by_id(ids::RESUME), &summary);
    if is_test_build() {
        let banner = by_id(ids::TEST_BUILD);
        set_text(
            &banner,
            &format!("Version de test : l'API est simulée à {API_BASE}."),
        );
        set_hidden(&banner, false);
    }
    let line = by_id(ids::COUTS);
    set_hidden(&line, costs.is_none());
    let Some(c) = costs else { return };
    let embed = |t: u64| mistral::cost_usd(t);
    let unknown = if c.unknown.is_empty() {
        String::new()
    } else {
        format!(", prix inconnu pour {}", c.unknown.join(", "))
    };
    set_text(
        &line,
        &format!(
            "Coût de la session : vecteurs des fiches {} ({}), questions {} ({}) en {}, réponses {} + {} tokens (≈ {}{unknown}) ; total ≈ {} (tarifs relevés en {}).",
            fr::count(c.fiches, "token", "tokens"),
            dollars(embed(c.fiches)),
            fr::count(c.questions, "token", "tokens"),
            dollars(embed(c.questions)),
            fr::count(c.calls, "appel", "appels"),
            fr::int(c.chat_in),
            fr::int(c.chat_out),
            dollars(c.chat_usd),
            dollars(embed(c.fiches + c.questions) + c.chat_usd),
            prices::CHECKED
        ),
    );
}

/// The methods' checkboxes, `shown` checked. They are made once, then only (un)checked.
pub fn method_choices(shown: &[Method]) {
    let container = by_id(ids::METHODES);
    if container.child_element_count() == 0 {
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
        replace_children(&container, choices);
    }
    for m in Method::ALL {
        let choice = input(&ids::method_choice(m));
        if choice.checked() != shown.contains(&m) {
            choice.set_checked(shown.contains(&m));
        }
    }
}

/// The line under the question box: the expected fiche of the exercise's question chosen.
pub fn expected(question: Option<&Question>, fiches: &[Fiche]) {
    let text = match question {
        Some(Question {
            expected: Some(id), ..
        }) => {
            let nom = fiches
                .iter()
                .find(|f| &f.id == id)
                .map_or("", |f| f.nom.as_str());
            format!("Fiche attendue : {id} — {nom}")
        }
        Some(Question { expected: None, .. }) => {
            "Aucune fiche n'y répond : la bonne réponse est « pas dans le catalogue ».".into()
        }
        None => String::new(),
    };
    set_text(&by_id(ids::ATTENDUE), &text);
}

/// Why the Mistral-vector methods cannot run: no fiche vectors, or no way to embed the question.
pub fn mistral_blocked(fiche_vectors: bool, question_vector: bool) -> Option<&'static str> {
    match (fiche_vectors, question_vector) {
        (true, true) => None,
        (true, false) => Some("votre clé Mistral, pour plonger la question (quelques tokens)"),
        (false, _) => Some("les vecteurs des fiches (ils se calculent une fois, avec votre clé)"),
    }
}

/// Why the local encoder's methods cannot run without the vectors the page ships.
pub const LOCAL_VECTORS_MISSING: &str = "les vecteurs du modèle local, livrés avec la page";

/// One line for the methods shown that cannot run, instead of empty columns: what would enable
/// them (`blocked`, each with its reason), with a button to the settings, and with `offer_local`
/// the local model's offer to a learner without a key; and, when the local model cannot be used
/// at all (`broken`, `why`), why, in a line of its own (no setting changes that).
pub fn unavailable(
    blocked: &[(Method, &str)],
    broken: &[Method],
    why: Option<&str>,
    offer_local: bool,
) {
    let target = by_id(ids::INDISPONIBLES);
    let names = |list: &mut dyn Iterator<Item = Method>| {
        list.map(|m| m.name()).collect::<Vec<_>>().join(", ")
    };
    let mut parts = Vec::new();
    if let Some((_, reason)) = blocked.first() {
        let text = format!(
            "{} : il faut {reason}. ",
            names(&mut blocked.iter().map(|(m, _)| *m))
        );
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
        if offer_local {
            parts.push(
                E::new("span")
                    .class("sans-cle")
                    .text(&format!(
                        "Sans clé, le sens se calcule aussi dans votre navigateur, avec un \
                         autre modèle ({}\u{a0}Mo téléchargés une fois, puis quelques ko par question) : ",
                        crate::encoder::blocks::HEAD_MB
                    ))
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
        let text = format!("{} : {why}", names(&mut broken.iter().copied()));
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

/// Whether to offer the local model to a learner without a key: some Mistral method shown is
/// blocked, a local one is not shown yet, and the local one could run.
pub fn offer_local(
    blocked: &[(Method, &str)],
    shown: &[Method],
    key: bool,
    local_runs: bool,
) -> bool {
    let needs_key = blocked
        .iter()
        .any(|(m, _)| m.encoder() == Some(Encoder::Mistral));
    let local = [Method::SensLocal, Method::HybrideLocal];
    needs_key && !key && local.iter().any(|m| !shown.contains(m)) && local_runs
}

/// What `mots+` changes from `mots` for `question`, when both are shown.
pub fn changes(lab: &Lab, shown: &[Method], question: &str) {
    let target = by_id(ids::ECART);
    let both = shown.contains(&Method::MOTS) && shown.contains(&Method::MOTS_PLUS);
    if !both || question.trim().is_empty() {
        set_hidden(&target, true);
        return;
    }
    set_text(
        &target,
        &labels::mots_plus_changes(&lab.keyword_changes(question)),
    );
    set_hidden(&target, false);
}

/// The one-line summary of the columns of `runnable`: where the `expected` fiche is, or which
/// fiche leads. `search` gives a method's top [`DEPTH`], or `None` while it cannot be had yet
/// (the first module searches only by keywords: dense code stays out of it).
pub fn summary(
    lab: &Lab,
    question: &str,
    runnable: &[Method],
    expected: Option<&str>,
    search: &dyn Fn(Method) -> Option<Vec<Ranked>>,
) {
    set_text(
        &by_id(ids::RESUME_RESULTATS),
        &summary_text(lab, question, runnable, expected, search),
    );
}

fn summary_text(
    lab: &Lab,
    question: &str,
    runnable: &[Method],
    expected: Option<&str>,
    search: &dyn Fn(Method) -> Option<Vec<Ranked>>,
) -> String {
    if question.trim().is_empty() || runnable.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = runnable
        .iter()
        .map(|&m| {
            let Some(hits) = search(m) else {
                return format!("{} en attente", m.name());
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
                    Some(i) => format!("{} : {id} {}", m.name(), place(i)),
                    None => format!("{} : {id} absente des {DEPTH} premières", m.name()),
                },
                None => match hits.first() {
                    Some(r) => format!("{} : {} {}", m.name(), id_of(r), place(0)),
                    None => format!("{} : aucune fiche", m.name()),
                },
            }
        })
        .collect();
    format!("{}.", parts.join(" ; "))
}
