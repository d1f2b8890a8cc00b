use super::*;
use crate::answer::tests::fiche;
use crate::data::{Fiche, QuestionKind};

fn q(kind: QuestionKind, text: &str, expected: Option<&str>) -> Question {
    Question {
        kind,
        text: text.into(),
        expected: expected.map(str::to_owned),
    }
}

fn questions() -> Vec<Question> {
    vec![
        q(QuestionKind::Exacte, "Le A-1 ?", Some("A-1")),
        q(QuestionKind::Courante, "Un truc pour B ?", Some("B-1")),
        q(QuestionKind::Absente, "Un piano ?", None),
    ]
}

fn answered(sent: &[&str], answer: &str, judge: &str) -> Answered {
    Answered {
        sent: sent.iter().map(|s| s.to_string()).collect(),
        answer: answer.into(),
        finish_reason: Some("stop".into()),
        tokens: Tokens {
            prompt: 100,
            completion: 10,
        },
        judge: judge.into(),
        judge_tokens: Tokens {
            prompt: 120,
            completion: 1,
        },
    }
}

fn file(fiches: &[Fiche], questions: &[Question]) -> ShippedAnswers {
    ShippedAnswers {
        format: FORMAT.into(),
        version: VERSION,
        computed: "2026-12-04T23:00:00Z".into(),
        api: MISTRAL_ORIGIN.into(),
        fiches: crate::data::vectors::fingerprint(fiches),
        questions: questions_fingerprint(questions),
        models: Models {
            answer: "mistral-small-latest".into(),
            judge: "mistral-small-latest".into(),
            rerank: "mistral-small-latest".into(),
        },
        prompts: Prompts::current(),
        methods: vec![MethodAnswers {
            method: "mots+".into(),
            answers: vec![
                answered(&["A-1", "B-1"], "Le A-1 [A-1].", "OUI"),
                answered(&["A-1", "B-1"], "Prenez [A-1].", "NON"),
                answered(&["C-1"], "pas dans le catalogue", "Peut-être"),
            ],
        }],
        reranked: vec![Reranked {
            stage: "mots+".into(),
            lists: vec![
                RerankedList {
                    read: vec!["B-1".into(), "A-1".into()],
                    reply: "B-1 : 2\nA-1 : 9".into(),
                    tokens: Tokens::default(),
                },
                RerankedList {
                    read: vec!["A-1".into(), "C-1".into()],
                    reply: "A-1 : 5\nZ-9 : 10".into(),
                    tokens: Tokens::default(),
                },
                RerankedList {
                    read: vec!["C-1".into()],
                    reply: "rien".into(),
                    tokens: Tokens::default(),
                },
            ],
        }],
        catalogue: Vec::new(),
    }
}

fn catalogue() -> Vec<Fiche> {
    vec![fiche("A-1"), fiche("B-1"), fiche("C-1")]
}

fn parse(
    f: &ShippedAnswers,
    fiches: &[Fiche],
    qs: &[Question],
) -> Result<ShippedAnswers, ShippedError> {
    let ids: HashSet<&str> = fiches.iter().map(|f| f.id.as_str()).collect();
    let bytes = serde_json::to_vec(f).unwrap();
    ShippedAnswers::parse(&bytes, &crate::data::vectors::fingerprint(fiches), &ids, qs)
}

#[test]
fn a_file_reads_back_for_its_fiches_and_questions() {
    let (fiches, qs) = (catalogue(), questions());
    let f = file(&fiches, &qs);
    assert_eq!(parse(&f, &fiches, &qs).unwrap(), f);
    assert!(f.from_mistral());
}

#[test]
fn rejects_answers_computed_for_other_fiches_or_questions() {
    let (fiches, qs) = (catalogue(), questions());
    let f = file(&fiches, &qs);
    let mut other = catalogue();
    other[1].texte = "un autre texte".into();
    assert_eq!(parse(&f, &other, &qs), Err(ShippedError::OtherFiches));
    let mut moved = questions();
    moved[1].expected = Some("C-1".into());
    assert_eq!(
        parse(&f, &fiches, &moved),
        Err(ShippedError::OtherQuestions)
    );
    let mut reordered = questions();
    reordered.swap(0, 1);
    assert_eq!(
        parse(&f, &fiches, &reordered),
        Err(ShippedError::OtherQuestions)
    );
}

#[test]
fn rejects_another_format_a_short_list_an_unknown_method_or_fiche() {
    let (fiches, qs) = (catalogue(), questions());
    let ids: HashSet<&str> = fiches.iter().map(|f| f.id.as_str()).collect();
    let fp = crate::data::vectors::fingerprint(&fiches);
    assert!(matches!(
        ShippedAnswers::parse(
            br#"{"format":"rag-fiches/vectors","version":1}"#,
            &fp,
            &ids,
            &qs
        ),
        Err(ShippedError::NotOurs { .. })
    ));
    assert!(matches!(
        ShippedAnswers::parse(b"<html>", &fp, &ids, &qs),
        Err(ShippedError::Unreadable { .. })
    ));
    let mut short = file(&fiches, &qs);
    short.methods[0].answers.pop();
    assert_eq!(
        parse(&short, &fiches, &qs),
        Err(ShippedError::Count {
            part: "mots+".into(),
            expected: 3,
            found: 2
        })
    );
    let mut unknown = file(&fiches, &qs);
    unknown.reranked[0].stage = "bm42".into();
    assert_eq!(
        parse(&unknown, &fiches, &qs),
        Err(ShippedError::UnknownMethod {
            name: "bm42".into()
        })
    );
    let mut invented = file(&fiches, &qs);
    invented.methods[0].answers[0].sent[1] = "Z-9".into();
    assert_eq!(
        parse(&invented, &fiches, &qs),
        Err(ShippedError::UnknownFiche {
            part: "mots+".into(),
            id: "Z-9".into()
        })
    );
    let mut newer = file(&fiches, &qs);
    newer.version = VERSION + 1;
    assert!(matches!(
        parse(&newer, &fiches, &qs),
        Err(ShippedError::NotOurs { .. })
    ));
}

#[test]
fn measures_faithfulness_and_lists_the_non_answers() {
    let (fiches, qs) = (catalogue(), questions());
    let f = file(&fiches, &qs);
    let m = measure(&f.methods[0].answers, &qs);
    // Right fiche cited once (A-1 for the first question; the second cites A-1, not B-1).
    assert_eq!(m.evaluation.cite_expected, 1);
    assert_eq!(m.evaluation.correct_refusals, 1);
    // OUI, NON, unparsed: faithfulness 1 of 2 verdicts read.
    assert_eq!(
        (
            m.faithfulness.oui,
            m.faithfulness.non,
            m.faithfulness.unparsed
        ),
        (1, 1, 1)
    );
    assert_eq!(m.faithfulness.share, Some(0.5));
    assert_eq!(
        (m.non.as_slice(), m.unparsed.as_slice()),
        (&[1][..], &[2][..])
    );
    assert_eq!(
        m.tokens,
        Tokens {
            prompt: 300,
            completion: 30
        }
    );
    assert_eq!(
        m.judge_tokens,
        Tokens {
            prompt: 360,
            completion: 3
        }
    );
}

#[test]
fn measures_a_reranking_against_its_first_stage_and_its_ceiling() {
    let (fiches, qs) = (catalogue(), questions());
    let f = file(&fiches, &qs);
    let m = measure_reranked(&f.reranked[0], &qs);
    // Q1: A-1 second before, first after (9 over 2). Q2: B-1 not read, so not found by
    // either; the ceiling is 1 of 2. Q3 has no expected fiche.
    assert_eq!(m.answerable, 2);
    assert_eq!((m.first_before, m.first_after), (0, 1));
    assert_eq!((m.kept_before, m.kept_after), (1, 1));
    assert_eq!(m.within_read, 1);
    assert_eq!(m.ceiling, Some(0.5));
    // Q2 omits C-1 and invents Z-9; Q3's reply is unread and omits C-1.
    assert_eq!(
        (
            m.replies_with_omitted,
            m.replies_with_invented,
            m.replies_with_unparsed
        ),
        (2, 1, 1)
    );
    assert_eq!(
        reranked_top(&f.reranked[0].lists[1]),
        [("A-1".to_owned(), 5.0), ("C-1".to_owned(), -1.0)]
    );
}

#[test]
fn the_questions_fingerprint_covers_kind_text_and_expected() {
    let qs = questions();
    let base = questions_fingerprint(&qs);
    let mut k = questions();
    k[0].kind = QuestionKind::Courante;
    let mut t = questions();
    t[2].text = "Un piano ? ".into();
    assert_ne!(questions_fingerprint(&k), base);
    assert_ne!(questions_fingerprint(&t), base);
    assert_eq!(questions_fingerprint(&questions()), base);
    assert_eq!(base.len(), 64);
}
