//! The text report of `mesurer --all`: the tables of every method, each one's refusal threshold,
//! the best fusion against the best single method, and every pair of methods with Holm's
//! correction.

use rag_fiches::data::QuestionKind;
use rag_fiches::measure::{compare, Measurement};

/// The comparison table of `--all`: methods × types (as ranked, then pessimistic), the refusal
/// threshold of each method, and the best fusion against the best single method.
pub fn comparison(ms: &[Measurement]) -> String {
    let mut out = rag_fiches::measure::text_tables(ms);
    let width = rag_fiches::measure::name_width(ms);
    out += "\nSeuil de refus (calibré sur les 1re, 3e, 5e… questions, testé sur les autres) :\n";
    for m in ms {
        if let Some(c) = compare::calibrate_split(m) {
            let separable = if c.calibration.separates {
                ""
            } else {
                " ; aucun seuil ne sépare les questions de calibration"
            };
            out += &format!(
                "{:<width$} seuil {} : calibration {:.0} %, test {:.0} %{separable}\n",
                m.method,
                match m.score_decimals {
                    Some(_) => m.show_score(c.calibration.threshold),
                    None => format!("{:.5}", c.calibration.threshold),
                },
                c.calibration.accuracy * 100.0,
                c.test_accuracy * 100.0
            );
        }
    }
    let mrr = |m: &Measurement| m.kinds[1].mrr10;
    let best_single = ms
        .iter()
        .filter(|m| !m.method.starts_with("hybride"))
        .max_by(|a, b| mrr(a).total_cmp(&mrr(b)));
    let best_fusion = ms
        .iter()
        .filter(|m| m.method.starts_with("hybride"))
        .max_by(|a, b| mrr(a).total_cmp(&mrr(b)));
    if let (Some(f), Some(b)) = (best_fusion, best_single) {
        let p = compare::paired(f, b, QuestionKind::Courante);
        out += &format!(
            "\n{} contre {} (questions courantes) : {} mieux, {} moins bien, {} à égalité ; test du signe p = {:.3}\n",
            f.method, b.method, p.wins, p.losses, p.ties, p.p_value
        );
        let rr = |m| rag_fiches::measure::stats::reciprocal_ranks(m, QuestionKind::Courante);
        let s = rag_fiches::measure::stats::paired(&rr(b), &rr(f));
        out += &format!(
            "  écart de MRR@10 : {:+.3}, intervalle à 95 % [{:+.3} ; {:+.3}] ; t apparié p = {:.3} ; décelable sur ces {} questions (puissance 80 %) : {}\n",
            s.delta,
            s.ci.0,
            s.ci.1,
            s.t_p,
            s.n,
            s.detectable.map_or("—".to_owned(), |d| format!("{d:.3}"))
        );
    }
    out + &pairs_text(ms)
}

/// Every pair's MRR@10 gap with its interval and its t-test, corrected by Holm over the pairs;
/// then which method leads, and whether the correction lets it be called the best.
fn pairs_text(ms: &[Measurement]) -> String {
    use rag_fiches::measure::pairs;
    let mut out = String::new();
    let names: Vec<&str> = ms.iter().map(|m| m.method.as_str()).collect();
    for kind in QuestionKind::ANSWERABLE {
        let Some(leader) = pairs::leader(ms, kind) else {
            continue;
        };
        let holm = pairs::holm(ms, kind);
        out += &format!(
            "\n{} : écart de MRR@10 (première − seconde), intervalle à 95 %, t apparié p, p corrigé par Holm sur les {} paires :\n",
            rag_fiches::fr::labels::kind_title(kind),
            holm[0].len()
        );
        for ij in pairs::indices(ms.len()) {
            let p = pairs::pair(ms, ij, kind, &holm);
            let g = &p.gaps[0];
            out += &format!(
                "  {} contre {} : {:+.3} [{:+.3} ; {:+.3}], p = {:.3}, corrigé {:.3}\n",
                p.a, p.b, g.stats.delta, g.stats.ci.0, g.stats.ci.1, g.stats.t_p, g.t_p_holm
            );
        }
        out += &rag_fiches::fr::labels::leader_sentence(&names, kind, &leader)
            .replace(['\u{a0}', '\u{202f}'], " ");
        out += "\n";
    }
    out
}
