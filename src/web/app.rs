//! The page's controller: loads the bundled catalogue, wires the controls, renders the views.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    Element, HtmlButtonElement, HtmlInputElement, HtmlProgressElement, HtmlSelectElement,
};

use super::answer_view;
use super::api::{self, Call};
use super::dom::{by_id, clear, fr, fr_int, highlighted, replace_children, E};
use super::measure_view as mv;
use super::store;
use crate::answer::{self, AnswerOutcome};
use crate::data::vectors::{VectorSet, VectorsError};
use crate::data::{
    check_expected, parse_fiches, parse_questions, DataError, Question, QuestionKind,
};
use crate::lab::{Keyword, Lab, Method, QuestionVectors};
use crate::link::{View, ViewState};
use crate::measure::compare;
use crate::measure::export;
use crate::measure::{Measurement, DEPTH};
use crate::mistral::{self, ApiKey};
use crate::search::bm25::{Explanation, FORMULA};

/// Results shown per method for a question.
const SHOWN: usize = 5;
/// Typing pauses this long before a question is embedded (each embedding costs).
const DEBOUNCE_MS: u32 = 400;

#[derive(Default)]
struct Costs {
    /// Tokens paid for the fiche vectors in this browser (0 when shipped or cached).
    fiches: u64,
    questions: u64,
    calls: u64,
    /// Chat tokens sent and received (answers).
    chat_in: u64,
    chat_out: u64,
}

struct App {
    lab: RefCell<Lab>,
    questions: RefCell<Vec<Question>>,
    /// Measurements by method, computed when their inputs are there.
    measurements: RefCell<Vec<Measurement>>,
    key: RefCell<Option<ApiKey>>,
    qvectors: RefCell<QuestionVectors>,
    shown: RefCell<Vec<Method>>,
    costs: RefCell<Costs>,
    /// Where the fiche vectors came from, for the panel.
    vectors_origin: RefCell<String>,
    /// The safetensors bytes of computed vectors, for « Télécharger ».
    computed: RefCell<Option<Vec<u8>>>,
    /// The question embedding in flight, and a counter that makes stale answers harmless.
    search_call: RefCell<Option<Call>>,
    generation: Cell<u64>,
    compute_call: RefCell<Option<Call>>,
    example: Cell<Option<usize>>,
    view: Cell<View>,
    /// The grid's sort: a method's name, or file order.
    grid_sort: RefCell<Option<String>>,
    /// The pair compared question by question: A against B.
    compare: RefCell<Option<(Method, Method)>>,
    /// Answers already obtained, by `model|method|question|ids sent` (also in IndexedDB).
    answers: RefCell<std::collections::HashMap<String, answer::Chat>>,
    answer_call: RefCell<Option<Call>>,
    /// The answers' evaluation in progress or done: its call, and its outcomes.
    eval_call: RefCell<Option<Call>>,
    eval: RefCell<Option<(Method, String, Vec<AnswerOutcome>)>>,
    eval_confirming: Cell<bool>,
    /// The bundled catalogue's texts, to come back to in one click.
    bundled: (String, String),
    /// `None` for the exercise's catalogue; the learner's files otherwise.
    dataset: RefCell<Option<String>>,
}

type Shared = Rc<App>;

fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        "0 $".into()
    } else {
        format!("{} $", fr(usd, 6))
    }
}

fn method_title(m: Method) -> &'static str {
    match m {
        Method::Keyword(Keyword::Mots) => "mots — le BM25 du sujet",
        Method::Keyword(Keyword::MotsPlus) => "mots+ — BM25 en français",
        Method::Sens => "sens — plongements mistral-embed",
        Method::Hybride(Keyword::Mots) => "hybride — fusion RRF de mots et sens",
        Method::Hybride(Keyword::MotsPlus) => "hybride+ — fusion RRF de mots+ et sens",
    }
}

fn vectors_fr(e: &VectorsError) -> String {
    match e {
        VectorsError::Model { expected, found } => {
            format!("fait avec le modèle « {found} », attendu « {expected} » : des vecteurs de modèles différents ne se comparent pas.")
        }
        VectorsError::Dim { expected, found } => format!("{found} dimensions, attendu {expected}."),
        VectorsError::Count { expected, found } => {
            format!(
                "{found} vecteurs pour {expected} fiches : il a été fait pour un autre catalogue."
            )
        }
        VectorsError::Ids {
            row,
            expected,
            found,
        } => {
            format!("la ligne {row} est la fiche {found}, attendu {expected} : il a été fait pour d'autres fiches.")
        }
        VectorsError::OtherFiches { .. } => {
            "l'empreinte des textes ne correspond pas : les fiches ont changé depuis son calcul."
                .into()
        }
        other => format!("fichier illisible ({other})."),
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

async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    let resp = gloo_net::http::Request::get(path)
        .send()
        .await
        .map_err(|e| format!("{path} : le réseau a échoué ({e})"))?;
    if !resp.ok() {
        return Err(format!("{path} : le serveur répond {}", resp.status()));
    }
    resp.binary()
        .await
        .map_err(|e| format!("{path} : lecture impossible ({e})"))
}

/// The bundle's manifest: which vectors file ships with the fiches, if any.
#[derive(serde::Deserialize, Default)]
struct Manifest {
    #[serde(default)]
    vecteurs: Option<String>,
}

/// Loads the bundled data (relative to the page, so it works under any sub-path) and starts.
pub async fn run() {
    match load().await {
        Ok(app) => {
            let app = Rc::new(app);
            wire(&app);
            load_vectors(&app).await;
            apply_fragment(&app);
            render_all(&app);
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
    let fiches_text = fetch_text("data/fiches.jsonl").await?;
    let questions_text = fetch_text("data/questions.csv").await?;
    let fiches = parse_fiches(&fiches_text).map_err(|e| data_error_fr(&e))?;
    let questions = parse_questions(&questions_text).map_err(|e| data_error_fr(&e))?;
    check_expected(&fiches, &questions).map_err(|e| data_error_fr(&e))?;
    let lab = Lab::new(fiches);
    let measurements = Method::KEYWORD
        .iter()
        .map(|&m| {
            lab.measure(m, &questions, &QuestionVectors::new())
                .expect("keyword methods need no vectors")
        })
        .collect();
    Ok(App {
        lab: RefCell::new(lab),
        questions: RefCell::new(questions),
        measurements: RefCell::new(measurements),
        key: RefCell::new(None),
        qvectors: RefCell::new(QuestionVectors::new()),
        shown: RefCell::new(vec![
            Method::MOTS,
            Method::MOTS_PLUS,
            Method::Sens,
            Method::Hybride(Keyword::Mots),
        ]),
        costs: RefCell::new(Costs::default()),
        vectors_origin: RefCell::new(String::new()),
        computed: RefCell::new(None),
        search_call: RefCell::new(None),
        generation: Cell::new(0),
        compute_call: RefCell::new(None),
        example: Cell::new(None),
        view: Cell::new(View::Chercher),
        grid_sort: RefCell::new(None),
        compare: RefCell::new(None),
        answers: RefCell::new(std::collections::HashMap::new()),
        answer_call: RefCell::new(None),
        eval_call: RefCell::new(None),
        eval: RefCell::new(None),
        eval_confirming: Cell::new(false),
        bundled: (fiches_text, questions_text),
        dataset: RefCell::new(None),
    })
}

/// Shipped vectors (named by `data/manifeste.json`), else vectors this browser computed before.
async fn load_vectors(app: &Shared) {
    let fingerprint = crate::data::vectors::fingerprint(app.lab.borrow().fiches());
    let manifest: Manifest = match fetch_text("data/manifeste.json").await {
        Ok(text) => serde_json::from_str(&text).unwrap_or_default(),
        Err(_) => Manifest::default(),
    };
    if let Some(name) = manifest.vecteurs {
        let path = format!("data/{name}");
        match fetch_bytes(&path)
            .await
            .and_then(|b| accept_vectors(app, &b).map_err(|e| vectors_fr(&e)))
        {
            Ok(()) => {
                *app.vectors_origin.borrow_mut() = format!("livrés avec la page ({name})");
                return;
            }
            Err(message) => {
                *app.vectors_origin.borrow_mut() =
                    format!("Le fichier livré {name} est refusé : {message}");
            }
        }
    }
    let cache_key = format!("{}|{fingerprint}", mistral::MODEL);
    if let Some(bytes) = store::get_bytes(store::FICHE_VECTORS, &cache_key).await {
        if accept_vectors(app, &bytes).is_ok() {
            *app.computed.borrow_mut() = Some(bytes);
            *app.vectors_origin.borrow_mut() =
                "calculés dans ce navigateur (gardés en cache)".into();
        }
    }
}

/// Checks a vectors file against the catalogue and the model, and attaches it.
fn accept_vectors(app: &Shared, bytes: &[u8]) -> Result<(), VectorsError> {
    let set = VectorSet::from_safetensors(bytes)?;
    set.check_model(mistral::MODEL, mistral::DIM)?;
    app.lab.borrow_mut().set_vectors(set)
}

fn set_ready() {
    if let Some(body) = super::dom::document().body() {
        body.set_attribute("data-ready", "true").ok();
    }
}

fn input(id: &str) -> HtmlInputElement {
    by_id(id).unchecked_into()
}

fn on(id: &str, event: &str, app: &Shared, f: impl Fn(&Shared) + 'static) {
    let app = app.clone();
    let cb = Closure::<dyn Fn()>::new(move || f(&app));
    by_id(id)
        .add_event_listener_with_callback(event, cb.as_ref().unchecked_ref())
        .ok();
    cb.forget();
}

/// One click listener on `container` for the buttons inside it, which may be re-rendered.
fn on_button(container: &Element, app: &Shared, f: impl Fn(&Shared, Element) + 'static) {
    let app = app.clone();
    let cb = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
        if let Some(Ok(Some(button))) = target.map(|t| t.closest("button")) {
            f(&app, button);
        }
    });
    container
        .add_event_listener_with_callback("click", cb.as_ref().unchecked_ref())
        .ok();
    cb.forget();
}

fn wire(app: &Shared) {
    by_id("resume").set_text_content(Some(&format!(
        "{} fiches, {} questions dont on connaît la bonne fiche.",
        app.lab.borrow().fiches().len(),
        app.questions.borrow().len()
    )));
    if api::is_test_build() {
        let banner = by_id("test-build");
        banner.set_text_content(Some(&format!(
            "Version de test : l'API est simulée à {}.",
            api::API_BASE
        )));
        banner.remove_attribute("hidden").ok();
    }
    fill_examples(&app.questions.borrow());
    fill_method_choices(app);

    on("question", "input", app, |app| {
        by_id("exemples")
            .unchecked_into::<HtmlSelectElement>()
            .set_value("");
        app.example.set(None);
        render_search(app);
        sync_url(app);
    });
    on("exemples", "change", app, |app| {
        let select: HtmlSelectElement = by_id("exemples").unchecked_into();
        let Ok(i) = select.value().parse::<usize>() else {
            return;
        };
        let Some(q) = app.questions.borrow().get(i).cloned() else {
            return;
        };
        input("question").set_value(&q.text);
        app.example.set(Some(i));
        render_search(app);
        sync_url(app);
    });
    for (tab, view) in [
        ("onglet-chercher", View::Chercher),
        ("onglet-mesurer", View::Mesurer),
    ] {
        on(tab, "click", app, move |app| {
            app.view.set(view);
            show_view(view);
            sync_url(app);
        });
    }
    on("copier-lien", "click", app, |app| {
        sync_url(app);
        let link = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        input("lien").set_value(&link);
        by_id("partage").remove_attribute("hidden").ok();
        if let Some(w) = web_sys::window() {
            let promise = w.navigator().clipboard().write_text(&link);
            wasm_bindgen_futures::spawn_local(async move {
                let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
                by_id("lien-etat").set_text_content(Some(if copied {
                    "Lien copié : il garde la vue, la question et les méthodes, jamais la clé."
                } else {
                    "Copiez ce lien : il garde la vue, la question et les méthodes, jamais la clé."
                }));
            });
        }
    });
    {
        let app = app.clone();
        let cb = Closure::<dyn Fn()>::new(move || {
            apply_fragment(&app);
            render_all(&app);
        });
        if let Some(w) = web_sys::window() {
            w.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref())
                .ok();
        }
        cb.forget();
    }
    wire_measure_lab(app);
    wire_answers(app);
    wire_own_data(app);

    // The key: in memory; in localStorage only when « retenir » is ticked.
    if let Some(saved) = store::remembered_key() {
        *app.key.borrow_mut() = ApiKey::new(&saved);
        input("cle").set_value(&saved);
        input("retenir").set_checked(true);
    }
    on("cle", "input", app, |app| {
        let raw = input("cle").value();
        *app.key.borrow_mut() = ApiKey::new(&raw);
        if input("retenir").checked() && !raw.trim().is_empty() {
            store::remember_key(raw.trim());
        }
        render_key_state(app);
        render_vectors_panel(app);
        render_search(app);
        render_dense_measure(app);
    });
    on("retenir", "change", app, |app| {
        let raw = input("cle").value();
        if input("retenir").checked() && !raw.trim().is_empty() {
            store::remember_key(raw.trim());
        } else {
            store::forget_key();
        }
        render_key_state(app);
    });
    on("oublier", "click", app, |app| {
        *app.key.borrow_mut() = None;
        input("cle").set_value("");
        input("retenir").set_checked(false);
        store::forget_key();
        render_key_state(app);
        render_vectors_panel(app);
        render_search(app);
        render_dense_measure(app);
    });
    on("calculer", "click", app, |app| {
        let app = app.clone();
        wasm_bindgen_futures::spawn_local(async move { compute_vectors(&app).await });
    });
    on("annuler-calcul", "click", app, |app| {
        if let Some(call) = app.compute_call.borrow().as_ref() {
            call.cancel();
        }
    });
    on("telecharger", "click", app, |app| {
        if let Some(bytes) = app.computed.borrow().as_ref() {
            download("vecteurs.safetensors", bytes);
        }
    });
}

fn render_all(app: &Shared) {
    render_key_state(app);
    render_vectors_panel(app);
    render_costs(app);
    render_search(app);
    render_measure(app);
    render_answer_eval(app);
}

fn show_view(view: View) {
    for (tab, v, this) in [
        ("onglet-chercher", "vue-chercher", View::Chercher),
        ("onglet-mesurer", "vue-mesurer", View::Mesurer),
    ] {
        let selected = this == view;
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

/// The state a link carries: never the key, never data.
fn current_state(app: &Shared) -> ViewState {
    let question = input("question").value();
    ViewState {
        view: app.view.get(),
        question: (!question.trim().is_empty()).then_some(question),
        methods: app.shown.borrow().clone(),
        set: if app.dataset.borrow().is_some() {
            crate::link::QuestionSet::VosDonnees
        } else {
            crate::link::QuestionSet::Exercice
        },
        compare: *app.compare.borrow(),
    }
}

/// Writes the state into the URL's fragment (replacing the history entry, not adding one).
fn sync_url(app: &Shared) {
    let fragment = format!("#{}", current_state(app).to_fragment());
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            h.replace_state_with_url(&JsValue::NULL, "", Some(&fragment))
                .ok();
        }
    }
}

/// Restores the state a link carries. Unknown keys are ignored (see `state`).
fn apply_fragment(app: &Shared) {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    let state = ViewState::from_fragment(&hash);
    if state.set == crate::link::QuestionSet::VosDonnees && app.dataset.borrow().is_none() {
        by_id("donnees-etat").set_text_content(Some(
            "Ce lien porte sur des données chargées dans un autre navigateur : elles ne voyagent pas avec le lien. \
             Chargez les mêmes fichiers pour retrouver la vue.",
        ));
    }
    app.view.set(state.view);
    show_view(state.view);
    if let Some(q) = &state.question {
        input("question").set_value(q);
        let example = app.questions.borrow().iter().position(|x| &x.text == q);
        app.example.set(example);
        let select: HtmlSelectElement = by_id("exemples").unchecked_into();
        select.set_value(&example.map(|i| i.to_string()).unwrap_or_default());
    }
    if !state.methods.is_empty() {
        *app.shown.borrow_mut() = state.methods.clone();
        for m in Method::ALL {
            if let Some(el) = super::dom::document().get_element_by_id(&choice_id(m)) {
                el.unchecked_into::<HtmlInputElement>()
                    .set_checked(state.methods.contains(&m));
            }
        }
    }
    if state.compare.is_some() {
        *app.compare.borrow_mut() = state.compare;
    }
}

fn choice_id(m: Method) -> String {
    format!("voir-{}", m.name().replace('+', "-plus"))
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

fn fill_method_choices(app: &Shared) {
    let target = by_id("methodes");
    for m in Method::ALL {
        let id = choice_id(m);
        let checkbox = E::new("input")
            .attr("type", "checkbox")
            .attr("id", &id)
            .attr("value", m.name())
            .build();
        let checkbox: HtmlInputElement = checkbox.unchecked_into();
        checkbox.set_checked(app.shown.borrow().contains(&m));
        let label = E::new("label").attr("for", &id).text(m.name()).build();
        target
            .append_child(
                &E::new("span")
                    .class("choix")
                    .child(&checkbox)
                    .child(label)
                    .build(),
            )
            .ok();
        let id_in_handler = id.clone();
        on(&id, "change", app, move |app| {
            let checked = input(&id_in_handler).checked();
            let mut shown = app.shown.borrow_mut();
            shown.retain(|x| *x != m);
            if checked {
                shown.push(m);
                shown.sort_by_key(|x| Method::ALL.iter().position(|y| y == x));
            }
            drop(shown);
            render_search(app);
            sync_url(app);
        });
    }
}

fn render_key_state(app: &Shared) {
    let text = match (
        app.key.borrow().is_some(),
        store::remembered_key().is_some(),
    ) {
        (false, _) => "Aucune clé : les méthodes sens et hybride attendent la vôtre.",
        (true, false) => "Clé en mémoire, pour cet onglet seulement.",
        (true, true) => "Clé retenue sur cet appareil (« oublier » l'efface).",
    };
    by_id("cle-etat").set_text_content(Some(text));
}

/// Counts one API call's tokens, for the fiche vectors or for questions.
fn add_cost(app: &Shared, fiches: u64, questions: u64) {
    let mut c = app.costs.borrow_mut();
    c.fiches += fiches;
    c.questions += questions;
    c.calls += 1;
}

fn render_costs(app: &Shared) {
    let c = app.costs.borrow();
    let total = mistral::cost_usd(c.fiches + c.questions) + answer::cost_usd(c.chat_in, c.chat_out);
    by_id("couts").set_text_content(Some(&format!(
        "Coût de la session : vecteurs des fiches {} tokens ({}), questions {} tokens ({}) en {} appel(s), réponses {} + {} tokens (≈ {}) ; total ≈ {}.",
        fr_int(c.fiches),
        dollars(mistral::cost_usd(c.fiches)),
        fr_int(c.questions),
        dollars(mistral::cost_usd(c.questions)),
        c.calls,
        fr_int(c.chat_in),
        fr_int(c.chat_out),
        dollars(answer::cost_usd(c.chat_in, c.chat_out)),
        dollars(total)
    )));
}

fn render_vectors_panel(app: &Shared) {
    let lab = app.lab.borrow();
    let state = by_id("vecteurs-etat");
    let origin = app.vectors_origin.borrow().clone();
    let calculer: HtmlButtonElement = by_id("calculer").unchecked_into();
    match lab.vectors() {
        Some(v) => {
            state.set_text_content(Some(&format!(
                "Vecteurs des fiches : {} × {} ({}), {}.",
                v.len(),
                v.dim,
                v.model,
                origin
            )));
            calculer.set_hidden(true);
        }
        None => {
            let tokens: usize = lab
                .fiches()
                .iter()
                .map(|f| mistral::estimate_tokens(&f.texte))
                .sum();
            let prefix = if origin.is_empty() {
                String::new()
            } else {
                format!("{origin} ")
            };
            state.set_text_content(Some(&format!(
                "{prefix}Aucun vecteur pour ces fiches : les calculer coûte au plus {} tokens, soit au plus {}, une seule fois.",
                fr_int(tokens as u64),
                dollars(mistral::cost_usd(tokens as u64))
            )));
            calculer.set_hidden(false);
            calculer
                .set_disabled(app.key.borrow().is_none() || app.compute_call.borrow().is_some());
        }
    }
    by_id("telecharger")
        .unchecked_into::<HtmlButtonElement>()
        .set_hidden(app.computed.borrow().is_none());
}

async fn compute_vectors(app: &Shared) {
    let Some(key) = app.key.borrow().clone() else {
        return;
    };
    let call = Call::new();
    *app.compute_call.borrow_mut() = Some(call.clone());
    let texts: Vec<String> = app
        .lab
        .borrow()
        .fiches()
        .iter()
        .map(|f| f.texte.clone())
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let progress: HtmlProgressElement = by_id("progression").unchecked_into();
    progress.set_max(refs.len() as f64);
    progress.set_value(0.0);
    by_id("calcul").remove_attribute("hidden").ok();
    by_id("calculer")
        .unchecked_into::<HtmlButtonElement>()
        .set_disabled(true);
    let message = by_id("calcul-message");
    message.set_text_content(Some("Calcul en cours…"));
    let mut rows: Vec<Vec<f32>> = Vec::with_capacity(refs.len());
    let mut failure = None;
    for range in mistral::batches(&refs) {
        match api::embed(&call, &key, &refs[range]).await {
            Ok(e) => {
                rows.extend(e.vectors);
                add_cost(app, e.prompt_tokens, 0);
                progress.set_value(rows.len() as f64);
                message.set_text_content(Some(&format!(
                    "{} fiches sur {}",
                    rows.len(),
                    refs.len()
                )));
                render_costs(app);
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    *app.compute_call.borrow_mut() = None;
    by_id("calcul").set_attribute("hidden", "").ok();
    let status = by_id("vecteurs-message");
    match failure {
        Some(e) => status.set_text_content(Some(&format!(
            "Calcul interrompu : {}",
            api::message_fr(&e)
        ))),
        None => {
            let fiches = app.lab.borrow().fiches().to_vec();
            let result = VectorSet::new(mistral::MODEL, &fiches, rows)
                .map(|set| set.to_safetensors())
                .and_then(|bytes| accept_vectors(app, &bytes).map(|()| bytes));
            match result {
                Ok(bytes) => {
                    let key = format!(
                        "{}|{}",
                        mistral::MODEL,
                        crate::data::vectors::fingerprint(&fiches)
                    );
                    store::put_bytes(store::FICHE_VECTORS, &key, &bytes).await;
                    *app.computed.borrow_mut() = Some(bytes);
                    *app.vectors_origin.borrow_mut() =
                        "calculés dans ce navigateur (gardés en cache)".into();
                    status.set_text_content(Some(
                        "Vecteurs calculés. « Télécharger » donne le fichier à livrer dans data/ avec la page.",
                    ));
                }
                Err(e) => {
                    status.set_text_content(Some(&format!("Vecteurs refusés : {}", vectors_fr(&e))))
                }
            }
        }
    }
    render_vectors_panel(app);
    render_search(app);
    render_dense_measure(app);
}

fn download(name: &str, bytes: &[u8]) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/octet-stream");
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let a: web_sys::HtmlAnchorElement = E::new("a")
        .attr("href", &url)
        .attr("download", name)
        .build()
        .unchecked_into();
    a.click();
    web_sys::Url::revoke_object_url(&url).ok();
}

/// Renders the results of every shown method for the question in the box, and starts the
/// question's embedding when a dense method needs it.
fn render_search(app: &Shared) {
    let question = input("question").value();
    let questions = app.questions.borrow();
    let expected = app.example.get().and_then(|i| questions.get(i));
    let note = by_id("attendue");
    match expected {
        Some(Question {
            expected: Some(id), ..
        }) => {
            let lab = app.lab.borrow();
            let nom = lab
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
    let shown = app.shown.borrow().clone();
    let columns = shown.iter().map(|&m| render_column(app, m, &question));
    replace_children(&by_id("resultats"), columns);
    refresh_answer_panel(app, &shown);
    let needs_vector = shown.iter().any(|m| m.is_dense())
        && app.lab.borrow().vectors().is_some()
        && !question.trim().is_empty()
        && !app.qvectors.borrow().contains_key(&question)
        && app.key.borrow().is_some();
    // A newer question makes every older answer stale, and cancels the request in flight.
    let generation = app.generation.get() + 1;
    app.generation.set(generation);
    if needs_vector {
        let app = app.clone();
        wasm_bindgen_futures::spawn_local(async move {
            embed_question(&app, question, generation).await
        });
    }
}

async fn embed_question(app: &Shared, question: String, generation: u64) {
    api::sleep(DEBOUNCE_MS).await;
    if app.generation.get() != generation {
        return;
    }
    if let Some(old) = app.search_call.borrow_mut().take() {
        old.cancel();
    }
    let cache_key = format!("{}|{question}", mistral::MODEL);
    let vector = match store::get_vector(store::QUESTION_VECTORS, &cache_key).await {
        Some(v) => Ok(v),
        None => {
            let Some(key) = app.key.borrow().clone() else {
                return;
            };
            let call = Call::new();
            *app.search_call.borrow_mut() = Some(call.clone());
            let result = api::embed(&call, &key, &[&question]).await;
            match result {
                Ok(mut e) => {
                    add_cost(app, 0, e.prompt_tokens);
                    render_costs(app);
                    let v = e.vectors.remove(0);
                    store::put_vector(store::QUESTION_VECTORS, &cache_key, &v).await;
                    Ok(v)
                }
                Err(e) => Err(e),
            }
        }
    };
    match vector {
        Ok(v) => {
            app.qvectors.borrow_mut().insert(question.clone(), v);
            // Only the current question's answer is shown; a stale one was still worth caching.
            if app.generation.get() == generation {
                rerender_dense_columns(app, &question);
            }
        }
        Err(crate::mistral::ApiError::Cancelled) => {}
        Err(e) => {
            if app.generation.get() == generation {
                for m in app.shown.borrow().iter().filter(|m| m.is_dense()) {
                    if let Some(col) = column_element(*m) {
                        let p = E::new("p")
                            .class("erreur-api")
                            .attr("role", "alert")
                            .text(&api::message_fr(&e))
                            .build();
                        replace_children(&col, [E::new("h2").text(method_title(*m)).build(), p]);
                    }
                }
            }
        }
    }
}

fn column_id(m: Method) -> String {
    format!("colonne-{}", m.name().replace('+', "-plus"))
}

fn column_element(m: Method) -> Option<Element> {
    super::dom::document().get_element_by_id(&column_id(m))
}

fn rerender_dense_columns(app: &Shared, question: &str) {
    let shown = app.shown.borrow().clone();
    for m in shown.into_iter().filter(|m| m.is_dense()) {
        if let Some(old) = column_element(m) {
            let new = render_column(app, m, question);
            old.replace_with_with_node_1(&new).ok();
        }
    }
}

fn empty_column(column: E, text: &str) -> Element {
    column.child(E::new("p").class("vide").text(text)).build()
}

fn render_column(app: &Shared, method: Method, question: &str) -> Element {
    let column = E::new("section")
        .class("colonne")
        .attr("id", &column_id(method))
        .attr("data-methode", method.name())
        .child(E::new("h2").text(method_title(method)));
    if question.trim().is_empty() {
        return empty_column(column, "Tapez une question ou choisissez un exemple.");
    }
    let lab = app.lab.borrow();
    let qv = app.qvectors.borrow();
    let vector = qv.get(question).map(Vec::as_slice);
    if method.is_dense() {
        if lab.vectors().is_none() {
            return empty_column(
                column,
                "Pas encore de vecteurs des fiches : voyez le panneau « Vecteurs des fiches ».",
            );
        }
        if vector.is_none() {
            let text = if app.key.borrow().is_none() {
                "Entrez votre clé Mistral pour que la question soit plongée (quelques tokens)."
            } else {
                "Plongement de la question…"
            };
            return empty_column(column, text);
        }
    }
    let keyword = match method {
        Method::Keyword(k) | Method::Hybride(k) => Some(k),
        Method::Sens => None,
    };
    let query_terms: HashSet<String> = match method {
        Method::Keyword(k) => k.analyzer().terms(question).into_iter().collect(),
        _ => HashSet::new(),
    };
    if matches!(method, Method::Keyword(_)) && query_terms.is_empty() {
        return empty_column(
            column,
            "La question ne garde aucun mot après analyse (mots vides, ponctuation) : rien à chercher.",
        );
    }
    let hits = match lab.search(method, question, vector, DEPTH) {
        Ok(h) => h,
        Err(e) => return empty_column(column, &format!("Recherche impossible : {e}")),
    };
    let visible: Vec<_> = hits
        .iter()
        .take(SHOWN)
        .filter(|r| !matches!(method, Method::Keyword(_)) || r.score > 0.0)
        .collect();
    if visible.is_empty() {
        return empty_column(
            column,
            "Aucune fiche ne contient un mot de la question : toutes ont un score nul.",
        );
    }
    let questions = app.questions.borrow();
    let expected = app
        .example
        .get()
        .and_then(|i| questions.get(i))
        .and_then(|q| q.expected.as_deref());
    let items = visible.iter().enumerate().map(|(i, r)| {
        let fiche = &lab.fiches()[r.doc];
        let marks: Vec<(usize, usize)> = match keyword {
            Some(k) if matches!(method, Method::Keyword(_)) => k
                .analyzer()
                .analyze(&fiche.texte)
                .into_iter()
                .filter(|t| query_terms.contains(&t.term))
                .map(|t| (t.start, t.end))
                .collect(),
            _ => Vec::new(),
        };
        let is_expected = expected == Some(fiche.id.as_str());
        let score = match method {
            Method::Keyword(_) => fr(r.score, 2),
            Method::Sens => fr(r.score, 3),
            Method::Hybride(_) => fr(r.score, 4),
        };
        let head = E::new("div")
            .class("tete")
            .child(E::new("span").class("rang").text(&format!("{}", i + 1)))
            .child(E::new("span").class("id").text(&fiche.id))
            .child(E::new("span").class("score").text(&score));
        let head = if is_expected { head.child(E::new("span").class("badge").text("fiche attendue")) } else { head };
        let why_body = match method {
            Method::Keyword(k) => render_explanation(&lab.explain(k, question, r.doc), k),
            Method::Sens => E::new("p")
                .text(&format!(
                    "Cosinus entre le vecteur de la question et celui de la fiche : {}. Le sens ne se décompose pas mot à mot : \
                     deux textes proches par le sens ont des vecteurs proches, même sans mot commun.",
                    fr(r.score, 4)
                ))
                .build(),
            Method::Hybride(k) => match lab.explain_fusion(k, question, vector, r.doc) {
                Ok(e) => {
                    let part = |name: &str, rank: Option<usize>| match rank {
                        Some(rank) => format!("{name} : rang {rank} → 1/(60 + {rank}) = {}", fr(1.0 / (60.0 + rank as f64), 5)),
                        None => format!("{name} : absente des 50 premières → 0"),
                    };
                    E::new("ul")
                        .child(E::new("li").text(&part(Method::Keyword(k).name(), e.keyword_rank)))
                        .child(E::new("li").text(&part("sens", e.dense_rank)))
                        .child(E::new("li").text(&format!("total : {} (constante k = 60, 50 premières de chaque liste)", fr(e.points, 5))))
                        .build()
                }
                Err(e) => E::new("p").text(&e.to_string()).build(),
            },
        };
        let why = E::new("details")
            .class("pourquoi")
            .child(E::new("summary").text("Pourquoi ce score ?"))
            .child(why_body);
        E::new("li")
            .class(if is_expected { "resultat attendue" } else { "resultat" })
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
        Some(id) if !visible.iter().any(|r| lab.fiches()[r.doc].id == id) => {
            let rank = hits.iter().position(|r| lab.fiches()[r.doc].id == id);
            let text = match rank {
                Some(p) => format!("La fiche attendue {id} n'est qu'au rang {}.", p + 1),
                None => format!("La fiche attendue {id} n'est pas dans les {DEPTH} premières."),
            };
            column.child(E::new("p").class("hors").text(&text)).build()
        }
        _ => column.build(),
    }
}

fn render_explanation(e: &Explanation, keyword: Keyword) -> Element {
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
        E::new("p")
            .text(&format!(
                "k1 = {} ; b = {} ; N = {} fiches ; longueur de cette fiche : {} termes ; longueur moyenne : {}. Analyse : {}.",
                fr(e.params.k1, 2),
                fr(e.params.b, 2),
                e.n,
                e.doc_len,
                fr(e.avg_len, 2),
                keyword.analyzer().describe()
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

fn measure_section(m: &Measurement, method: Method) -> Element {
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
            ])
            .children(mv::stat_cells(k))
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
    E::new("section")
        .class("methode")
        .attr("data-methode", method.name())
        .child(E::new("h3").text(method_title(method)))
        .child(table)
        .child(missed)
        .child(seed)
        .build()
}

/// The measurements shown in « Mesurer », in the page's method order.
fn measured(app: &Shared) -> Vec<Measurement> {
    let ms = app.measurements.borrow();
    Method::ALL
        .iter()
        .filter_map(|m| ms.iter().find(|x| x.method == m.name()).cloned())
        .collect()
}

fn section(title: &str, id: &str) -> E {
    E::new("section")
        .class("partie")
        .attr("id", id)
        .child(E::new("h3").text(title))
}

fn method_options(ms: &[Method], selected: impl Into<Option<Method>>) -> Vec<Element> {
    let selected = selected.into();
    ms.iter()
        .map(|m| {
            let o = E::new("option").attr("value", m.name()).text(m.name());
            if Some(*m) == selected {
                o.attr("selected", "").build()
            } else {
                o.build()
            }
        })
        .collect()
}

/// The default pair: the best fusion against the best single method (courantes MRR), else the
/// two first methods.
fn default_pair(ms: &[Measurement]) -> Option<(Method, Method)> {
    let mrr = |m: &&Measurement| m.kinds.get(1).map_or(0.0, |k| k.mrr10);
    let best = |fusion: bool| {
        ms.iter()
            .filter(|m| {
                Method::parse(&m.method).is_some_and(|x| matches!(x, Method::Hybride(_)) == fusion)
            })
            .max_by(|a, b| mrr(a).total_cmp(&mrr(b)))
            .and_then(|m| Method::parse(&m.method))
    };
    match (best(true), best(false)) {
        (Some(f), Some(s)) => Some((f, s)),
        _ => {
            let all = mv::methods_of(ms);
            (all.len() >= 2).then(|| (all[1], all[0]))
        }
    }
}

fn render_measure(app: &Shared) {
    let target = by_id("mesures");
    clear(&target);
    let ms = measured(app);
    let methods = mv::methods_of(&ms);
    let tables = section(
        "Toutes les méthodes, les mêmes questions",
        "partie-tableaux",
    )
    .child(mv::comparison_tables(&ms))
    .child(mv::bars(&ms));
    target.append_child(&tables.build()).ok();
    let order = mv::grid_order(&ms, app.grid_sort.borrow().as_deref());
    let grid =
        section("Question par question", "partie-grille").child(mv::question_grid(&ms, &order));
    target.append_child(&grid.build()).ok();
    let pair = app
        .compare
        .borrow()
        .filter(|(a, b)| methods.contains(a) && methods.contains(b))
        .or_else(|| default_pair(&ms));
    if let Some((a, b)) = pair {
        let ma = ms.iter().find(|m| m.method == a.name());
        let mb = ms.iter().find(|m| m.method == b.name());
        let sentences: Vec<Element> = match (ma, mb) {
            (Some(ma), Some(mb)) => QuestionKind::ANSWERABLE
                .iter()
                .map(|&kind| {
                    let p = compare::paired(ma, mb, kind);
                    let text = mv::paired_sentence(a.name(), b.name(), kind, &p);
                    E::new("p")
                        .attr("data-type", kind.as_str())
                        .text(&text)
                        .build()
                })
                .collect(),
            _ => Vec::new(),
        };
        let selects = E::new("div")
            .class("ligne")
            .child(E::new("label").attr("for", "comparer-a").text("Méthode"))
            .child(
                E::new("select")
                    .attr("id", "comparer-a")
                    .children(method_options(&methods, a)),
            )
            .child(E::new("label").attr("for", "comparer-b").text("contre"))
            .child(
                E::new("select")
                    .attr("id", "comparer-b")
                    .children(method_options(&methods, b)),
            );
        let paired = section("Une méthode contre une autre", "partie-paire")
            .child(selects)
            .child(E::new("div").attr("id", "comparaison").children(sentences));
        target.append_child(&paired.build()).ok();
    }
    let thresholds = section("Les questions sans réponse : un seuil de score suffit-il ?", "partie-seuils")
        .child(E::new("p").class("intro").text(
            "Chaque point est le meilleur score d'une question qui a une réponse, chaque croix celui d'une question \
             sans réponse ; le trait vertical est le seuil de refus. Il est calibré comme dans le cours : candidats à \
             mi-chemin entre deux scores voisins, le plus juste gagne, le plus bas à égalité ; calibré sur les \
             questions de rang pair, testé sur les autres.",
        ))
        .children(ms.iter().map(mv::strip_plot));
    target.append_child(&thresholds.build()).ok();
    let mut exports = vec![
        E::new("button")
            .attr("type", "button")
            .attr("data-export", "csv")
            .text("mesures.csv")
            .build(),
        E::new("button")
            .attr("type", "button")
            .attr("data-export", "json")
            .text("mesures.json")
            .build(),
        E::new("button")
            .attr("type", "button")
            .attr("data-export", "qrels")
            .text("qrels.txt")
            .build(),
    ];
    for m in &ms {
        let name = format!("run-{}.txt", m.method.replace('+', "-plus"));
        let button = E::new("button")
            .attr("type", "button")
            .attr("data-export", &format!("run:{}", m.method));
        exports.push(button.text(&name).build());
    }
    let export_part = section("Exporter", "partie-exports")
        .child(E::new("p").text(
            "Les mesures en CSV et JSON ; chaque méthode au format TREC, avec les jugements (qrels), pour vérifier \
             nos chiffres avec trec_eval ou ranx (voir le README).",
        ))
        .child(E::new("div").class("ligne").children(exports));
    target.append_child(&export_part.build()).ok();
    let details = E::new("details")
        .class("detail-methodes")
        .child(E::new("summary").text("Détail par méthode, avec la sortie au format du sujet"))
        .children(
            ms.iter()
                .filter_map(|m| Method::parse(&m.method).map(|method| measure_section(m, method))),
        );
    target.append_child(&details.build()).ok();
    render_dense_measure(app);
}

/// One listener for every control of « Mesurer » (they are re-rendered; the listener stays).
fn wire_measure_lab(app: &Shared) {
    on_button(&by_id("mesures"), app, |app, button| {
        if let Some(name) = button.get_attribute("data-tri") {
            *app.grid_sort.borrow_mut() = (!name.is_empty()).then_some(name);
            render_measure(app);
        } else if let Some(i) = button
            .get_attribute("data-question")
            .and_then(|v| v.parse::<usize>().ok())
        {
            let Some(q) = app.questions.borrow().get(i).cloned() else {
                return;
            };
            input("question").set_value(&q.text);
            by_id("exemples")
                .unchecked_into::<HtmlSelectElement>()
                .set_value(&i.to_string());
            app.example.set(Some(i));
            app.view.set(View::Chercher);
            show_view(View::Chercher);
            render_search(app);
            sync_url(app);
        } else if let Some(what) = button.get_attribute("data-export") {
            export_file(app, &what);
        }
    });
    let change = {
        let app = app.clone();
        Closure::<dyn Fn()>::new(move || {
            let doc = super::dom::document();
            let pick = |id: &str| {
                doc.get_element_by_id(id)
                    .and_then(|e| Method::parse(&e.unchecked_into::<HtmlSelectElement>().value()))
            };
            if let (Some(a), Some(b)) = (pick("comparer-a"), pick("comparer-b")) {
                *app.compare.borrow_mut() = Some((a, b));
                render_measure(&app);
                sync_url(&app);
            }
        })
    };
    by_id("mesures")
        .add_event_listener_with_callback("change", change.as_ref().unchecked_ref())
        .ok();
    change.forget();
}

fn export_file(app: &Shared, what: &str) {
    let ms = measured(app);
    let (name, text) = match what {
        "csv" => ("mesures.csv".to_owned(), export::csv(&ms)),
        "json" => ("mesures.json".to_owned(), export::json(&ms)),
        "qrels" => match ms.first() {
            Some(m) => ("qrels.txt".to_owned(), export::qrels(m)),
            None => return,
        },
        other => {
            let Some(method) = other.strip_prefix("run:") else {
                return;
            };
            let Some(m) = ms.iter().find(|m| m.method == method) else {
                return;
            };
            (
                format!("run-{}.txt", method.replace('+', "-plus")),
                export::trec_run(m),
            )
        }
    };
    download(&name, text.as_bytes());
}

/// The dense methods' part of « Mesurer »: their tables once every question is embedded, else
/// what it would cost and a button.
fn render_dense_measure(app: &Shared) {
    let target = by_id("mesures-sens");
    clear(&target);
    if app
        .measurements
        .borrow()
        .iter()
        .any(|m| Method::parse(&m.method).is_some_and(Method::is_dense))
    {
        return;
    }
    let lab = app.lab.borrow();
    let qv = app.qvectors.borrow();
    let questions = app.questions.borrow();
    let missing: Vec<&Question> = questions
        .iter()
        .filter(|q| !qv.contains_key(&q.text))
        .collect();
    let tokens: usize = missing
        .iter()
        .map(|q| mistral::estimate_tokens(&q.text))
        .sum();
    let text = if lab.vectors().is_none() {
        "sens et hybride : il faut d'abord les vecteurs des fiches (panneau « Vecteurs des fiches »).".to_owned()
    } else if app.key.borrow().is_none() {
        format!(
            "sens et hybride : entrez votre clé Mistral ; plonger les {} questions coûte au plus {} tokens ({}).",
            missing.len(),
            fr_int(tokens as u64),
            dollars(mistral::cost_usd(tokens as u64))
        )
    } else {
        format!(
            "Plonger les {} questions restantes : au plus {} tokens ({}), en une requête.",
            missing.len(),
            fr_int(tokens as u64),
            dollars(mistral::cost_usd(tokens as u64))
        )
    };
    target
        .append_child(
            &E::new("p")
                .attr("id", "mesure-sens-etat")
                .text(&text)
                .build(),
        )
        .ok();
    if lab.vectors().is_some() && app.key.borrow().is_some() {
        let button = E::new("button")
            .attr("id", "mesurer-sens")
            .attr("type", "button")
            .text("Mesurer sens et hybride")
            .build();
        target.append_child(&button).ok();
        on("mesurer-sens", "click", app, |app| {
            let app = app.clone();
            wasm_bindgen_futures::spawn_local(async move { measure_dense(&app).await });
        });
    }
}

async fn measure_dense(app: &Shared) {
    let Some(key) = app.key.borrow().clone() else {
        return;
    };
    if let Ok(b) = by_id("mesurer-sens").dyn_into::<HtmlButtonElement>() {
        b.set_disabled(true);
    }
    let state = by_id("mesure-sens-etat");
    state.set_text_content(Some("Plongement des questions…"));
    let mut missing: Vec<String> = Vec::new();
    let questions = app.questions.borrow().clone();
    for q in &questions {
        if app.qvectors.borrow().contains_key(&q.text) {
            continue;
        }
        let cache_key = format!("{}|{}", mistral::MODEL, q.text);
        match store::get_vector(store::QUESTION_VECTORS, &cache_key).await {
            Some(v) => {
                app.qvectors.borrow_mut().insert(q.text.clone(), v);
            }
            None => missing.push(q.text.clone()),
        }
    }
    let refs: Vec<&str> = missing.iter().map(String::as_str).collect();
    let call = Call::new();
    for range in mistral::batches(&refs) {
        match api::embed(&call, &key, &refs[range.clone()]).await {
            Ok(e) => {
                add_cost(app, 0, e.prompt_tokens);
                for (text, v) in refs[range].iter().zip(e.vectors) {
                    store::put_vector(
                        store::QUESTION_VECTORS,
                        &format!("{}|{text}", mistral::MODEL),
                        &v,
                    )
                    .await;
                    app.qvectors.borrow_mut().insert(text.to_string(), v);
                }
                render_costs(app);
            }
            Err(e) => {
                // What was embedded stays in memory and in the cache: a retry pays only the rest.
                render_dense_measure(app);
                by_id("mesure-sens-etat").set_text_content(Some(&format!(
                    "Mesure interrompue : {}",
                    api::message_fr(&e)
                )));
                return;
            }
        }
    }
    let results: Result<Vec<Measurement>, _> = [
        Method::Sens,
        Method::Hybride(Keyword::Mots),
        Method::Hybride(Keyword::MotsPlus),
    ]
    .iter()
    .map(|&m| {
        app.lab
            .borrow()
            .measure(m, &app.questions.borrow(), &app.qvectors.borrow())
    })
    .collect();
    match results {
        Ok(ms) => {
            app.measurements.borrow_mut().extend(ms);
            render_measure(app);
        }
        Err(e) => state.set_text_content(Some(&format!("Mesure impossible : {e}"))),
    }
}

/// The fiches the answer would be given: the first five of `method` for `question`.
fn fiches_for_answer(app: &Shared, method: Method, question: &str) -> Result<Vec<usize>, String> {
    let lab = app.lab.borrow();
    let qv = app.qvectors.borrow();
    lab.search(
        method,
        question,
        qv.get(question).map(Vec::as_slice),
        answer::FICHES_SENT,
    )
    .map(|hits| hits.into_iter().map(|r| r.doc).collect())
    .map_err(|e| match e {
        crate::lab::SearchError::NoVectors => {
            "Cette méthode a besoin des vecteurs des fiches.".to_owned()
        }
        crate::lab::SearchError::NoQuestionVector { .. } => {
            "La question n'est pas encore plongée : attendez ses résultats sous cette méthode."
                .to_owned()
        }
        other => other.to_string(),
    })
}

fn selected_method(id: &str) -> Option<Method> {
    super::dom::document()
        .get_element_by_id(id)
        .and_then(|e| Method::parse(&e.unchecked_into::<HtmlSelectElement>().value()))
}

fn selected_model(id: &str) -> String {
    super::dom::document()
        .get_element_by_id(id)
        .map(|e| e.unchecked_into::<HtmlSelectElement>().value())
        .filter(|m| answer::MODELS.contains(&m.as_str()))
        .unwrap_or_else(|| answer::DEFAULT_MODEL.to_owned())
}

fn fill_models(id: &str) {
    let select = by_id(id);
    for m in answer::MODELS {
        select
            .append_child(&E::new("option").attr("value", m).text(m).build())
            .ok();
    }
}

fn answer_key(model: &str, method: Method, question: &str, ids: &[&str]) -> String {
    format!("{model}|{}|{question}|{}", method.name(), ids.join(","))
}

/// Keeps the answer panel's method list in step with the methods shown, and shows exactly what a
/// call would send.
fn refresh_answer_panel(app: &Shared, shown: &[Method]) {
    let select: HtmlSelectElement = by_id("reponse-methode").unchecked_into();
    let current = Method::parse(&select.value());
    // Default: the fusion when vectors are there, else the last keyword method shown.
    let dense_ok = app.lab.borrow().vectors().is_some();
    let preferred = current
        .filter(|m| shown.contains(m))
        .or_else(|| {
            shown
                .iter()
                .rev()
                .find(|m| dense_ok && matches!(m, Method::Hybride(_)))
                .copied()
        })
        .or_else(|| shown.iter().rev().find(|m| !m.is_dense()).copied())
        .or_else(|| shown.first().copied());
    replace_children(&select, method_options(shown, preferred));
    if let Some(m) = preferred {
        select.set_value(m.name());
    }
    render_prompt_preview(app);
}

fn render_prompt_preview(app: &Shared) {
    let question = input("question").value();
    let target = by_id("envoi-texte");
    let Some(method) = selected_method("reponse-methode") else {
        target.set_text_content(Some("Choisissez une méthode affichée."));
        return;
    };
    if question.trim().is_empty() {
        target.set_text_content(Some(
            "Tapez une question : la demande envoyée s'affichera ici.",
        ));
        return;
    }
    match fiches_for_answer(app, method, &question) {
        Ok(docs) => {
            let lab = app.lab.borrow();
            let fiches: Vec<&crate::data::Fiche> = docs.iter().map(|&d| &lab.fiches()[d]).collect();
            let messages = answer::prompt(&question, &fiches);
            let text = format!(
                "POST https://api.mistral.ai{} — modèle {}, température 0, environ {} tokens au plus\n\n[system]\n{}\n\n[user]\n{}",
                answer::CHAT_PATH,
                selected_model("reponse-modele"),
                fr_int(answer::estimate_tokens(&messages) as u64),
                messages[0].content,
                messages[1].content
            );
            target.set_text_content(Some(&text));
        }
        Err(e) => target.set_text_content(Some(&e)),
    }
}

fn wire_answers(app: &Shared) {
    fill_models("reponse-modele");
    fill_models("eval-modele");
    on("reponse-methode", "change", app, render_prompt_preview);
    on("reponse-modele", "change", app, render_prompt_preview);
    on("rediger", "click", app, |app| {
        let app = app.clone();
        wasm_bindgen_futures::spawn_local(async move { answer_question(&app).await });
    });
    on_button(
        &by_id("mesures-reponses"),
        app,
        |app, button| match button.id().as_str() {
            "eval-lancer" => {
                app.eval_confirming.set(true);
                render_answer_eval(app);
            }
            "eval-annuler" => {
                app.eval_confirming.set(false);
                if let Some(call) = app.eval_call.borrow().as_ref() {
                    call.cancel();
                }
                render_answer_eval(app);
            }
            "eval-confirmer" => {
                app.eval_confirming.set(false);
                let app = app.clone();
                wasm_bindgen_futures::spawn_local(async move { evaluate_answers(&app).await });
            }
            _ => {}
        },
    );
    on("eval-modele", "change", app, render_answer_eval);
    on("eval-methode", "change", app, render_answer_eval);
}

/// Asks the model for an answer to `question` from `docs`, or reads it from the cache.
async fn obtain_answer(
    app: &Shared,
    call: &Call,
    key: &ApiKey,
    model: &str,
    method: Method,
    question: &str,
    docs: &[usize],
) -> Result<(answer::Chat, bool), crate::mistral::ApiError> {
    let (messages, ids) = {
        let lab = app.lab.borrow();
        let fiches: Vec<&crate::data::Fiche> = docs.iter().map(|&d| &lab.fiches()[d]).collect();
        let ids: Vec<String> = fiches.iter().map(|f| f.id.clone()).collect();
        (answer::prompt(question, &fiches), ids)
    };
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let cache_key = answer_key(model, method, question, &id_refs);
    if let Some(chat) = app.answers.borrow().get(&cache_key) {
        return Ok((chat.clone(), true));
    }
    if let Some(chat) = store::get_text(store::ANSWERS, &cache_key)
        .await
        .and_then(|t| serde_json::from_str::<answer::Chat>(&t).ok())
    {
        app.answers.borrow_mut().insert(cache_key, chat.clone());
        return Ok((chat, true));
    }
    let chat = api::chat(call, key, model, &messages).await?;
    {
        let mut c = app.costs.borrow_mut();
        c.chat_in += chat.prompt_tokens;
        c.chat_out += chat.completion_tokens;
        c.calls += 1;
    }
    render_costs(app);
    if let Ok(text) = serde_json::to_string(&chat) {
        store::put_text(store::ANSWERS, &cache_key, &text).await;
    }
    app.answers.borrow_mut().insert(cache_key, chat.clone());
    Ok((chat, false))
}

async fn answer_question(app: &Shared) {
    let target = by_id("reponse-resultat");
    let question = input("question").value();
    let Some(key) = app.key.borrow().clone() else {
        target.set_text_content(Some("Entrez votre clé Mistral pour demander une réponse."));
        return;
    };
    if question.trim().is_empty() {
        target.set_text_content(Some("Tapez d'abord une question."));
        return;
    }
    let Some(method) = selected_method("reponse-methode") else {
        return;
    };
    let model = selected_model("reponse-modele");
    let docs = match fiches_for_answer(app, method, &question) {
        Ok(d) => d,
        Err(e) => {
            target.set_text_content(Some(&e));
            return;
        }
    };
    if let Some(old) = app.answer_call.borrow_mut().take() {
        old.cancel();
    }
    let call = Call::new();
    *app.answer_call.borrow_mut() = Some(call.clone());
    target.set_text_content(Some("Rédaction en cours…"));
    by_id("envoi").remove_attribute("open").ok();
    let result = obtain_answer(app, &call, &key, &model, method, &question, &docs).await;
    // A newer request, or a changed question, makes this answer stale: it is not shown.
    if call.is_cancelled() || input("question").value() != question {
        return;
    }
    match result {
        Ok((chat, cached)) => {
            let lab = app.lab.borrow();
            let fiches: Vec<&crate::data::Fiche> = docs.iter().map(|&d| &lab.fiches()[d]).collect();
            let ids: Vec<&str> = fiches.iter().map(|f| f.id.as_str()).collect();
            let check = answer::check(&chat.content, &ids);
            replace_children(
                &target,
                [answer_view::render_answer(&chat, &check, &fiches, cached)],
            );
        }
        Err(e) => {
            let p = E::new("p")
                .class("erreur-api")
                .attr("role", "alert")
                .text(&api::message_fr(&e))
                .build();
            replace_children(&target, [p]);
        }
    }
}

/// « Mesurer les réponses »: the controls, the estimate and confirmation, the progress, and the
/// evaluation beside the refusal threshold.
fn render_answer_eval(app: &Shared) {
    let ms = measured(app);
    let methods = mv::methods_of(&ms);
    let select: HtmlSelectElement = by_id("eval-methode").unchecked_into();
    let current = Method::parse(&select.value());
    let method = current
        .filter(|m| methods.contains(m))
        .or_else(|| methods.last().copied());
    replace_children(&select, method_options(&methods, method));
    if let Some(m) = method {
        select.set_value(m.name());
    }
    let controls = by_id("eval-actions");
    let status = by_id("eval-etat");
    let result = by_id("eval-resultat");
    let Some(method) = method else { return };
    let model = selected_model("eval-modele");
    let running = app.eval_call.borrow().is_some();
    let tokens: usize = app
        .questions
        .borrow()
        .iter()
        .filter_map(|q| {
            let docs = fiches_for_answer(app, method, &q.text).ok()?;
            let lab = app.lab.borrow();
            let fiches: Vec<&crate::data::Fiche> = docs.iter().map(|&d| &lab.fiches()[d]).collect();
            Some(answer::estimate_tokens(&answer::prompt(&q.text, &fiches)))
        })
        .sum();
    let estimate = format!(
        "{} questions, au plus {} tokens envoyés (≈ {} $ au tarif indicatif de mistral-small, réponses en plus) ; les réponses déjà obtenues ne coûtent rien.",
        app.questions.borrow().len(),
        fr_int(tokens as u64),
        fr(answer::cost_usd(tokens as u64, 0), 4)
    );
    let buttons: Vec<Element> = if running {
        vec![E::new("button")
            .attr("type", "button")
            .attr("id", "eval-annuler")
            .text("Annuler")
            .build()]
    } else if app.eval_confirming.get() {
        vec![
            E::new("button")
                .attr("type", "button")
                .attr("id", "eval-confirmer")
                .text(&format!("Confirmer avec {model}"))
                .build(),
            E::new("button")
                .attr("type", "button")
                .attr("id", "eval-annuler")
                .text("Annuler")
                .build(),
        ]
    } else if app.key.borrow().is_none() {
        vec![E::new("span")
            .text("Entrez votre clé Mistral pour mesurer les réponses.")
            .build()]
    } else {
        vec![E::new("button")
            .attr("type", "button")
            .attr("id", "eval-lancer")
            .text("Mesurer les réponses")
            .build()]
    };
    replace_children(&controls, buttons);
    if !running {
        status.set_text_content(Some(&estimate));
    }
    let eval = app.eval.borrow();
    match eval.as_ref() {
        Some((m, mdl, outcomes)) if *m == method && *mdl == model && !outcomes.is_empty() => {
            let e = answer::evaluate(outcomes);
            let threshold = ms
                .iter()
                .find(|x| x.method == method.name())
                .and_then(compare::calibrate_split)
                .map(|c| {
                    format!(
                        "À comparer : un seuil de score sous {} (calibré sur les questions de rang pair) trie {} % des questions de test ; \
                         le modèle, lui, refuse {} des {} questions sans réponse et {} des {} qui en ont une.",
                        method.name(),
                        (c.test_accuracy * 100.0).round(),
                        e.correct_refusals,
                        e.absent,
                        e.false_refusals,
                        e.answerable
                    )
                })
                .unwrap_or_default();
            replace_children(
                &result,
                [answer_view::render_evaluation(&e, outcomes, &threshold)],
            );
        }
        _ => clear(&result),
    }
}

async fn evaluate_answers(app: &Shared) {
    let Some(key) = app.key.borrow().clone() else {
        return;
    };
    let Some(method) = selected_method("eval-methode") else {
        return;
    };
    let model = selected_model("eval-modele");
    let call = Call::new();
    *app.eval_call.borrow_mut() = Some(call.clone());
    render_answer_eval(app);
    let status = by_id("eval-etat");
    let progress = E::new("progress")
        .attr("id", "eval-progression")
        .attr("max", &app.questions.borrow().len().to_string())
        .build();
    let progress: HtmlProgressElement = progress.unchecked_into();
    by_id("eval-actions").append_child(&progress).ok();
    let mut outcomes: Vec<AnswerOutcome> = Vec::new();
    let mut failure = None;
    let questions = app.questions.borrow().clone();
    for (i, q) in questions.iter().enumerate() {
        let docs = match fiches_for_answer(app, method, &q.text) {
            Ok(d) => d,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        match obtain_answer(app, &call, &key, &model, method, &q.text, &docs).await {
            Ok((chat, _)) => {
                let lab = app.lab.borrow();
                let ids: Vec<&str> = docs.iter().map(|&d| lab.fiches()[d].id.as_str()).collect();
                outcomes.push(AnswerOutcome {
                    kind: q.kind,
                    question: q.text.clone(),
                    expected: q.expected.clone(),
                    check: answer::check(&chat.content, &ids),
                    answer: chat.content,
                });
            }
            Err(e) => {
                failure = Some(api::message_fr(&e));
                break;
            }
        }
        progress.set_value((i + 1) as f64);
        status.set_text_content(Some(&format!(
            "{} réponses sur {}",
            i + 1,
            app.questions.borrow().len()
        )));
    }
    *app.eval_call.borrow_mut() = None;
    let complete = failure.is_none();
    if complete {
        *app.eval.borrow_mut() = Some((method, model, outcomes));
    }
    render_answer_eval(app);
    if let Some(message) = failure {
        by_id("eval-etat").set_text_content(Some(&format!(
            "Mesure interrompue : {message} Les réponses déjà obtenues sont gardées : relancer ne les repaie pas."
        )));
    }
}

/// Size limits of the learner's files, checked before anything is read.
const MAX_FICHES_BYTES: f64 = 20.0 * 1024.0 * 1024.0;
const MAX_QUESTIONS_BYTES: f64 = 2.0 * 1024.0 * 1024.0;

/// A data error as the learner reads it: the file, the line, the field, what to do.
fn data_error_fr(e: &DataError) -> String {
    use crate::data::DataError as D;
    match e {
        D::Empty { file } => format!("{file} : le fichier est vide."),
        D::Json { line, message } => format!("fiches.jsonl, ligne {line} : ce n'est pas un objet JSON ({message})."),
        D::MissingField { file, line, field } => {
            format!("{file}, ligne {line} : le champ « {field} » manque (un texte est attendu).")
        }
        D::EmptyField { file, line, field } => format!("{file}, ligne {line} : le champ « {field} » est vide."),
        D::DuplicateId { id, first_line, line } => format!(
            "fiches.jsonl, ligne {line} : l'identifiant « {id} » est déjà pris ligne {first_line} ; chaque fiche doit avoir le sien."
        ),
        D::BadHeader { found } => format!(
            "questions.csv, ligne 1 : l'en-tête doit être « type;question;fiche_attendue », il est « {found} » (le séparateur est-il bien « ; » ?)."
        ),
        D::Csv { line, message } => {
            let hint = if message.contains("separated by") { " Le séparateur est-il bien « ; » ?" } else { "" };
            format!("questions.csv, ligne {line} : ligne illisible ({message}).{hint}")
        }
        D::UnknownKind { line, found } => format!(
            "questions.csv, ligne {line} : le type « {found} » n'existe pas ; exacte, courante ou absente."
        ),
        D::ExpectedMismatch { line, kind } => match kind {
            QuestionKind::Absente => {
                format!("questions.csv, ligne {line} : une question absente laisse « fiche_attendue » vide.")
            }
            _ => format!(
                "questions.csv, ligne {line} : « fiche_attendue » est vide ; une question {} doit nommer sa fiche.",
                kind.as_str()
            ),
        },
        D::UnknownExpected { line, id } => {
            format!("questions.csv, ligne {line} : la fiche attendue « {id} » n'est pas dans vos fiches.")
        }
    }
}

async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buffer = wasm_bindgen_futures::JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("{} : lecture impossible.", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The text of a file, or where its UTF-8 breaks.
fn utf8_text(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("{name}, ligne {line} : ce n'est pas du texte UTF-8 valide (enregistrez le fichier en UTF-8).")
    })
}

fn show_data_errors(errors: &[String]) {
    let list = by_id("donnees-erreurs");
    replace_children(&list, errors.iter().map(|e| E::new("li").text(e).build()));
}

/// Loads the learner's files: fiches (.jsonl), questions (.csv), and optionally vectors
/// (.safetensors made by this project, or the seed's .npy). Nothing leaves the browser.
async fn load_own_files(app: &Shared, files: Vec<web_sys::File>) {
    let mut errors: Vec<String> = Vec::new();
    let (mut fiches, mut questions, mut vectors) = (None, None, None);
    for f in files {
        let name = f.name();
        let lower = name.to_lowercase();
        let (limit, slot) = if lower.ends_with(".jsonl") || lower.ends_with(".json") {
            (MAX_FICHES_BYTES, &mut fiches)
        } else if lower.ends_with(".csv") {
            (MAX_QUESTIONS_BYTES, &mut questions)
        } else if lower.ends_with(".safetensors") || lower.ends_with(".npy") {
            (crate::data::vectors::MAX_FILE_BYTES as f64, &mut vectors)
        } else {
            errors.push(format!(
                "{name} : fichier non reconnu (attendu : .jsonl, .csv, .safetensors ou .npy)."
            ));
            continue;
        };
        if f.size() > limit {
            errors.push(format!(
                "{name} : {} Mo, au-delà de la limite de {} Mo pour ce type de fichier : il n'a pas été lu.",
                fr(f.size() / 1048576.0, 1),
                fr(limit / 1048576.0, 0)
            ));
            continue;
        }
        *slot = Some(f);
    }
    let (Some(fiches_file), Some(questions_file)) = (fiches, questions) else {
        if errors.is_empty() {
            errors.push(
                "Il faut au moins vos fiches (.jsonl) et vos questions (.csv), chargées ensemble."
                    .into(),
            );
        }
        show_data_errors(&errors);
        return;
    };
    if !errors.is_empty() {
        show_data_errors(&errors);
        return;
    }
    by_id("donnees-etat").set_text_content(Some("Lecture des fichiers…"));
    let parsed = async {
        let fiches_text = utf8_text(&fiches_file.name(), read_file(&fiches_file).await?)?;
        let questions_text = utf8_text(&questions_file.name(), read_file(&questions_file).await?)?;
        let fiches = parse_fiches(&fiches_text).map_err(|e| data_error_fr(&e))?;
        let questions = parse_questions(&questions_text).map_err(|e| data_error_fr(&e))?;
        check_expected(&fiches, &questions).map_err(|e| data_error_fr(&e))?;
        let set = match &vectors {
            None => None,
            Some(v) => {
                let bytes = read_file(v).await?;
                let set = if v.name().to_lowercase().ends_with(".npy") {
                    let rows = crate::data::npy::read_matrix(&bytes)
                        .map_err(|e| format!("{} : {e}", v.name()))?;
                    VectorSet::new(mistral::MODEL, &fiches, rows)
                        .map_err(|e| format!("{} : {}", v.name(), vectors_fr(&e)))?
                } else {
                    let set = VectorSet::from_safetensors(&bytes)
                        .map_err(|e| format!("{} : {}", v.name(), vectors_fr(&e)))?;
                    set.check_fiches(&fiches)
                        .map_err(|e| format!("{} : {}", v.name(), vectors_fr(&e)))?;
                    set
                };
                set.check_model(mistral::MODEL, mistral::DIM)
                    .map_err(|e| format!("{} : {}", v.name(), vectors_fr(&e)))?;
                Some((set, v.name()))
            }
        };
        Ok::<_, String>((fiches, questions, set))
    }
    .await;
    match parsed {
        Err(e) => {
            by_id("donnees-etat").set_text_content(Some(
                "Fichiers refusés : le catalogue en cours reste chargé.",
            ));
            show_data_errors(&[e]);
        }
        Ok((fiches, questions, set)) => {
            show_data_errors(&[]);
            let label = format!(
                "vos données ({}, {})",
                fiches_file.name(),
                questions_file.name()
            );
            let origin = set.as_ref().map(|(_, name)| {
                if name.to_lowercase().ends_with(".npy") {
                    format!("chargés depuis {name} (un .npy ne porte pas d'empreinte : seule sa forme a été vérifiée)")
                } else {
                    format!("chargés depuis {name}")
                }
            });
            install_dataset(
                app,
                fiches,
                questions,
                set.map(|(s, _)| s),
                origin,
                Some(label),
            )
            .await;
        }
    }
}

/// Replaces the catalogue and its questions: everything (search, measurements, answers, links)
/// then works on them.
async fn install_dataset(
    app: &Shared,
    fiches: Vec<crate::data::Fiche>,
    questions: Vec<Question>,
    vectors: Option<VectorSet>,
    origin: Option<String>,
    label: Option<String>,
) {
    let mut lab = Lab::new(fiches);
    if let Some(v) = vectors {
        lab.set_vectors(v).ok();
    }
    let measurements = Method::KEYWORD
        .iter()
        .filter_map(|&m| lab.measure(m, &questions, &QuestionVectors::new()).ok())
        .collect();
    *app.lab.borrow_mut() = lab;
    *app.questions.borrow_mut() = questions;
    *app.measurements.borrow_mut() = measurements;
    *app.computed.borrow_mut() = None;
    *app.eval.borrow_mut() = None;
    *app.compare.borrow_mut() = None;
    *app.grid_sort.borrow_mut() = None;
    *app.vectors_origin.borrow_mut() = origin.unwrap_or_default();
    app.example.set(None);
    *app.dataset.borrow_mut() = label.clone();
    if app.lab.borrow().vectors().is_none() {
        load_vectors(app).await;
    }
    let select = by_id("exemples");
    clear(&select);
    select
        .append_child(
            &E::new("option")
                .attr("value", "")
                .text("— choisir une question —")
                .build(),
        )
        .ok();
    fill_examples(&app.questions.borrow());
    input("question").set_value("");
    by_id("reponse-resultat").set_text_content(None);
    let (n_f, n_q) = (
        app.lab.borrow().fiches().len(),
        app.questions.borrow().len(),
    );
    let summary = match &label {
        Some(l) => format!("{n_f} fiches, {n_q} questions : {l}."),
        None => format!("{n_f} fiches, {n_q} questions dont on connaît la bonne fiche."),
    };
    by_id("resume").set_text_content(Some(&summary));
    by_id("donnees-etat").set_text_content(Some(match label {
        Some(_) => "Vos données sont chargées, dans ce navigateur seulement.",
        None => "Catalogue de l'exercice.",
    }));
    by_id("revenir")
        .unchecked_into::<HtmlButtonElement>()
        .set_hidden(app.dataset.borrow().is_none());
    render_all(app);
    sync_url(app);
}

fn wire_own_data(app: &Shared) {
    let pick = {
        let app = app.clone();
        Closure::<dyn Fn()>::new(move || {
            let input = input("fichiers");
            let files: Vec<web_sys::File> = input
                .files()
                .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
                .unwrap_or_default();
            input.set_value("");
            let app = app.clone();
            wasm_bindgen_futures::spawn_local(async move { load_own_files(&app, files).await });
        })
    };
    by_id("fichiers")
        .add_event_listener_with_callback("change", pick.as_ref().unchecked_ref())
        .ok();
    pick.forget();
    let zone = by_id("depot");
    let over = Closure::<dyn Fn(web_sys::DragEvent)>::new(|e: web_sys::DragEvent| {
        e.prevent_default();
        by_id("depot").class_list().add_1("survol").ok();
    });
    let leave = Closure::<dyn Fn()>::new(|| {
        by_id("depot").class_list().remove_1("survol").ok();
    });
    let drop = {
        let app = app.clone();
        Closure::<dyn Fn(web_sys::DragEvent)>::new(move |e: web_sys::DragEvent| {
            e.prevent_default();
            by_id("depot").class_list().remove_1("survol").ok();
            let files: Vec<web_sys::File> = e
                .data_transfer()
                .and_then(|d| d.files())
                .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
                .unwrap_or_default();
            let app = app.clone();
            wasm_bindgen_futures::spawn_local(async move { load_own_files(&app, files).await });
        })
    };
    zone.add_event_listener_with_callback("dragover", over.as_ref().unchecked_ref())
        .ok();
    zone.add_event_listener_with_callback("dragleave", leave.as_ref().unchecked_ref())
        .ok();
    zone.add_event_listener_with_callback("drop", drop.as_ref().unchecked_ref())
        .ok();
    over.forget();
    leave.forget();
    drop.forget();
    on("revenir", "click", app, |app| {
        let app = app.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let (fiches, questions) = app.bundled.clone();
            if let (Ok(f), Ok(q)) = (parse_fiches(&fiches), parse_questions(&questions)) {
                install_dataset(&app, f, q, None, None, None).await;
            }
        });
    });
}
