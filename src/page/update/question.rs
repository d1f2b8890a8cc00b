//! The question in the box, the methods shown, the view, the link: and the question's
//! mistral-embed vector, asked for only when the learner's own gesture may spend the key.

use crate::lab::Method;
use crate::link::{View, ViewState};

use super::super::effect::{Effect, Focus};
use super::super::jobs::Subject;
use super::super::msg::SearchMsg;
use super::super::state::State;

pub(super) fn typed(s: &mut State, text: String) {
    super::local::retry(s);
    s.question = text;
    s.question_from_link = false;
    s.data.ui.example = None;
}

pub(super) fn example(s: &mut State, i: Option<usize>) {
    s.data.ui.example = i.filter(|&i| i < s.data.questions.len());
    s.question_from_link = false;
    if let Some(q) = s.example_question() {
        s.question = q.text.clone();
    }
}

/// A question of the grid opened in « Chercher ».
pub(super) fn opened(s: &mut State, i: usize, fx: &mut Vec<Effect>) {
    if let Some(q) = s.data.questions.get(i) {
        s.question = q.text.clone();
        s.data.ui.example = Some(i);
        s.question_from_link = false;
        s.view = View::Chercher;
        fx.push(Effect::Focus(Focus::Results));
    }
}

pub(super) fn entered(s: &mut State) {
    if !s.question.trim().is_empty() {
        s.committed = Some(s.question.clone());
    }
}

pub(super) fn toggled(s: &mut State, m: Method, on: bool) {
    // Ticking a local method is asking for it: its model may be downloaded.
    if on && m.encoder() == Some(crate::lab::Encoder::Local) {
        s.local_download_ok = true;
        super::local::retry(s);
    }
    s.shown.retain(|x| *x != m);
    if on {
        s.shown.push(m);
        sort_shown(s);
    }
}

pub(super) fn local_methods(s: &mut State) {
    s.local_download_ok = true;
    super::local::retry(s);
    for m in [Method::SensLocal, Method::HybrideLocal] {
        if !s.shown.contains(&m) {
            s.shown.push(m);
        }
    }
    sort_shown(s);
}

fn sort_shown(s: &mut State) {
    s.shown
        .sort_by_key(|x| Method::ALL.iter().position(|y| y == x));
}

pub(super) fn tab_key(s: &mut State, v: View, fx: &mut Vec<Effect>) {
    s.view = v;
    fx.push(Effect::Focus(match v {
        View::Chercher => Focus::TabChercher,
        View::Mesurer => Focus::TabMesurer,
        View::Ameliorer => Focus::TabAmeliorer,
        View::Questions => Focus::TabQuestions,
    }));
}

/// The fragment changed (a link opened, the back button): its view, question and methods.
pub(super) fn fragment(s: &mut State, link: ViewState) {
    s.view = link.view;
    if let Some(q) = link.question {
        if q != s.question {
            s.data.ui.example = s.data.questions.iter().position(|x| x.text == q);
            s.question = q;
            // A link (or a page that rewrites the fragment) never spends the key by itself.
            s.question_from_link = true;
        }
    }
    if !link.methods.is_empty() {
        s.shown = link.methods;
    }
    if let Some((a, b)) = link.compare {
        s.data.ui.compare = Some((a.name().to_owned(), b.name().to_owned()));
    }
    if link.set == crate::link::QuestionSet::VosDonnees && s.data.label.is_none() {
        // Said under the header, where the learner looks, not in the collapsed « Réglages »:
        // the figures shown are the exercise's.
        s.link_note = Some(
            "Ce lien porte sur des données chargées dans un autre navigateur : elles ne voyagent pas avec le lien. \
             Les chiffres montrés ici sont ceux du catalogue de l'exercice ; chargez les mêmes fichiers (« Vos données », dans « Réglages ») pour retrouver la vue."
                .into(),
        );
    }
}

/// A question's mistral-embed vector, from the API or the browser's cache: kept only if it can
/// be one (see [`usable`]); else that question alone fails, and the cached copy is deleted.
pub(super) fn embedded(s: &mut State, question: String, vector: Vec<f32>, fx: &mut Vec<Effect>) {
    match usable(s, &vector) {
        Ok(()) => {
            s.qvectors.insert(question, vector);
        }
        Err(message) => {
            fx.push(Effect::ForgetQuestionVector(question.clone()));
            s.search_error = Some((question, message));
        }
    }
}

/// Whether `vector` can be a mistral-embed question vector for this catalogue: its fiche
/// vectors' dimension (mistral-embed's when none is loaded), finite values, norm 1.
pub(super) fn usable(s: &State, vector: &[f32]) -> Result<(), String> {
    let dim = s
        .data
        .lab
        .vectors_info(crate::lab::Encoder::Mistral)
        .map_or(crate::mistral::DIM, |i| i.dim);
    crate::search::dense::check_unit_query(vector, dim).map_err(|e| crate::fr::messages::dense(&e))
}

/// Typing pauses this long before a question is embedded (each embedding costs).
pub const DEBOUNCE_MS: u32 = 400;

/// The question in the box embedded by Mistral when [`State::wants_question_vector`] says so:
/// after a pause in typing (a timer job keyed by the question: typing over it stops it), or at
/// once when committed (Enter). A committed question's embedding goes on when another is typed;
/// any other stops with its question.
pub(super) fn jobs(s: &State, want: &mut impl FnMut(Subject)) {
    let q = &s.question;
    if s.wants_question_vector() {
        let paused = s
            .paused
            .as_ref()
            .is_some_and(|(p, n)| p == q && *n == s.key_edits);
        if paused || s.committed.as_ref() == Some(q) {
            want(Subject::Embed(q.clone()));
        } else {
            want(Subject::Pause(q.clone(), s.key_edits));
        }
    }
    if let Some(c) = s.committed.as_ref().filter(|c| *c != q) {
        let asked = Subject::Embed(c.clone());
        let running = s.jobs.has(&s.job_key(asked.clone()));
        if running
            && !s.qvectors.contains_key(c)
            && s.search_error.as_ref().is_none_or(|(e, _)| e != c)
        {
            want(asked);
        }
    }
}

/// What a [`SearchMsg`] changes.
pub(super) fn update(s: &mut State, msg: SearchMsg, now: &str, fx: &mut Vec<Effect>) {
    match msg {
        SearchMsg::Typed(text) => typed(s, text),
        SearchMsg::ExamplePicked(i) => example(s, i),
        SearchMsg::Opened(i) => opened(s, i, fx),
        SearchMsg::Committed => super::journal::note_unanswered(s, now, fx),
        SearchMsg::Entered => entered(s),
        SearchMsg::EmbedRequested => s.question_from_link = false,
        SearchMsg::MethodToggled(m, on) => toggled(s, m, on),
        SearchMsg::LocalMethodsChosen => local_methods(s),
    }
}
