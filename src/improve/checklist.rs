//! The exercise's success criteria (« Critères de réussite »), checked on any measurement.

use serde::Serialize;

use crate::data::QuestionKind;
use crate::measure::Measurement;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    Met,
    NotMet,
    /// Does not apply to this method (the fusion criterion for a method that fuses nothing).
    NotApplicable,
    /// Judged on written answers: needs a Mistral key.
    NeedsKey,
    /// Judged on written answers, which the learner can have judged in « Évaluer les réponses ».
    ToMeasure,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Criterion {
    pub label: &'static str,
    pub status: Status,
    pub detail: String,
}

fn kind(m: &Measurement, k: QuestionKind) -> Option<&crate::measure::KindStats> {
    m.kinds.iter().find(|s| s.kind == k && s.questions > 0)
}

/// The criteria for `m`. `keyword_side` is the measurement of the keyword method a fusion fuses
/// (the fusion must lose no exacte it finds first); `has_key` whether answers can be written.
pub fn checklist(
    m: &Measurement,
    keyword_side: Option<&Measurement>,
    has_key: bool,
) -> Vec<Criterion> {
    let mut out = Vec::new();
    let status = |ok: bool| if ok { Status::Met } else { Status::NotMet };
    if let Some(e) = kind(m, QuestionKind::Exacte) {
        out.push(Criterion {
            label: "Toutes les questions exactes, bonne fiche en tête",
            status: status(e.hit1 == e.questions),
            detail: format!("{} sur {}", e.hit1, e.questions),
        });
    }
    if let Some(c) = kind(m, QuestionKind::Courante) {
        // The exercise's 18 of 20, as a share for another question file.
        let needed = (c.questions * 18).div_ceil(20);
        out.push(Criterion {
            label: "Au moins 18 courantes sur 20 avec la bonne fiche dans les 5 premières",
            status: status(c.hit5 >= needed),
            detail: format!("{} sur {} (il en faut {needed})", c.hit5, c.questions),
        });
    }
    out.push(match keyword_side {
        None => Criterion {
            label: "La fusion ne perd aucune exacte",
            status: Status::NotApplicable,
            detail: "pas de fusion dans cette méthode".into(),
        },
        Some(k) => {
            let lost: Vec<&str> = k
                .questions
                .iter()
                .zip(&m.questions)
                .filter(|(a, b)| {
                    a.kind == QuestionKind::Exacte && a.rank == Some(1) && b.rank != Some(1)
                })
                .map(|(a, _)| a.question.as_str())
                .collect();
            Criterion {
                label: "La fusion ne perd aucune exacte",
                status: status(lost.is_empty()),
                detail: if lost.is_empty() {
                    format!("aucune perdue face à {}", k.method)
                } else {
                    format!("perdues face à {} : {}", k.method, lost.join(" ; "))
                },
            }
        }
    });
    let answers = if has_key {
        Status::ToMeasure
    } else {
        Status::NeedsKey
    };
    let detail = if has_key {
        "à mesurer dans « Évaluer les réponses »"
    } else {
        "se juge sur les réponses rédigées : il faut une clé Mistral"
    };
    for label in [
        "Les questions sans réponse reçoivent « pas dans le catalogue » par la génération",
        "Chaque réponse rédigée cite les numéros de ses fiches",
        "Le coût est noté",
    ] {
        out.push(Criterion {
            label,
            status: answers,
            detail: detail.into(),
        });
    }
    out
}
