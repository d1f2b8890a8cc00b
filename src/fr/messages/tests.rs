use super::*;

/// Words of the core's English messages that must never reach a learner.
const ENGLISH: [&str; 12] = [
    " the ",
    " expected ",
    " got ",
    " file ",
    " refused",
    " holds ",
    " row ",
    " not a ",
    " limit ",
    " bytes",
    " check ",
    " try ",
];

fn all_french<E>(errors: &[E], message: fn(&E) -> String) {
    for e in errors {
        assert_french(&message(e));
    }
}

fn assert_french(message: &str) {
    assert_eq!(
        crate::fr::typography::faults(message),
        Vec::<String>::new(),
        "French typography in: {message}"
    );
    let padded = format!(" {message} ");
    for word in ENGLISH {
        assert!(!padded.contains(word), "English « {word} » in: {message}");
    }
    assert!(
        message.ends_with('.') || message.ends_with(')') || message.ends_with('»'),
        "no final stop: {message}"
    );
}

#[test]
fn every_run_error_variant_has_a_french_sentence() {
    let at = |problem| RunError { line: 3, problem };
    let errors = [
        at(RunProblem::Fields(5)),
        at(RunProblem::UnknownQuestion("q99".into())),
        at(RunProblem::UnknownFiche("AR-9".into())),
        at(RunProblem::Rank("un".into())),
        at(RunProblem::Score("2,5".into())),
        at(RunProblem::DuplicateRank {
            qid: "q01".into(),
            rank: 1,
        }),
        at(RunProblem::DuplicateFiche {
            qid: "q01".into(),
            fiche: "AR-1".into(),
        }),
        at(RunProblem::TooMany { qid: "q01".into() }),
        at(RunProblem::Tags {
            first: "a".into(),
            other: "b".into(),
        }),
        at(RunProblem::Empty),
    ];
    for e in &errors {
        assert_french(&run(e, "run.txt"));
    }
    assert_eq!(
        run(&errors[4], "bm25.txt"),
        "bm25.txt, ligne 3 : le score « 2,5 » n'est pas un nombre (point décimal, pas de virgule). Rien n'a été mesuré."
    );
}

#[test]
fn every_model_error_variant_has_a_french_clause() {
    let all = [
        ModelError::Format("x".into()),
        ModelError::Missing("proj/w".into()),
        ModelError::Shape {
            name: "proj/w".into(),
            expected: "F32 [512, 768]".into(),
            found: "F16 [512, 768]".into(),
        },
        ModelError::Tokenizer(crate::encoder::spm::SpmError::Truncated),
    ];
    for e in &all {
        // A clause the page ends itself (« Le modèle local est refusé : … . »).
        assert_french(&format!("{}.", model(e)));
    }
    assert_eq!(
        model(&all[1]),
        "il manque le tenseur « proj/w » : le fichier est incomplet"
    );
}

#[test]
fn every_vectors_error_variant_has_a_french_sentence() {
    let s = || "x".to_owned();
    let all = [
        VectorsError::TooLarge {
            bytes: 300 << 20,
            max: 256 << 20,
        },
        VectorsError::Unreadable {
            reason: "the header is truncated".into(),
        },
        VectorsError::NotOurs { found: s() },
        VectorsError::MissingMetadata { key: "model" },
        VectorsError::BadMetadata {
            key: "dim",
            found: s(),
        },
        VectorsError::WrongTensor {
            reason: "dtype is F32, expected F16".into(),
        },
        VectorsError::Model {
            expected: s(),
            found: s(),
        },
        VectorsError::Dim {
            expected: 1024,
            found: 768,
        },
        VectorsError::Count {
            expected: 200,
            found: 20,
        },
        VectorsError::Ids {
            row: 3,
            expected: s(),
            found: s(),
        },
        VectorsError::OtherFiches {
            expected: s(),
            found: s(),
        },
        VectorsError::NotFinite { row: 2 },
        VectorsError::Norm { row: 1, norm: 0.0 },
        VectorsError::Store {
            reason: "QuotaExceededError".into(),
        },
    ];
    all_french(&all, vectors);
}

#[test]
fn every_npy_error_variant_has_a_french_sentence() {
    let all = [
        NpyError::Truncated {
            expected: 800,
            found: 8,
        },
        NpyError::NotNpy,
        NpyError::Header {
            reason: "the dict does not parse".into(),
        },
        NpyError::Dtype {
            found: "<i4".into(),
        },
        NpyError::FortranOrder,
        NpyError::Shape {
            found: "(3,)".into(),
        },
        NpyError::TooLarge {
            bytes: 300 << 20,
            max: 256 << 20,
        },
    ];
    all_french(&all, npy);
}

#[test]
fn every_search_and_dense_error_variant_has_a_french_sentence() {
    let all = [
        SearchError::NoVectors,
        SearchError::NoQuestionVector {
            question: "q".into(),
        },
        SearchError::Dense(DenseError::Dim {
            expected: 1024,
            found: 3,
        }),
        SearchError::Dense(DenseError::NotFinite),
        SearchError::Dense(DenseError::NotUnit { norm: 0.0 }),
        SearchError::Dense(DenseError::Rows {
            row: 7,
            reason: "NotFoundError".into(),
        }),
        SearchError::Pending,
    ];
    all_french(&all, search);
}

#[test]
fn every_data_api_and_intake_error_variant_has_a_french_sentence() {
    let data_errors = [
        DataError::Empty {
            file: "fiches.jsonl",
        },
        DataError::HeaderOnly {
            file: "questions.csv",
        },
        DataError::Json {
            line: 2,
            column: Some(31),
            problem: JsonProblem::Syntax,
        },
        DataError::Json {
            line: 2,
            column: None,
            problem: JsonProblem::NotObject,
        },
        DataError::MissingField {
            file: "fiches.jsonl",
            line: 3,
            field: "texte",
        },
        DataError::IdWithSpace {
            line: 4,
            id: "AR 0001".into(),
        },
        DataError::WrongType {
            file: "fiches.jsonl",
            line: 3,
            field: "texte",
            found: JsonType::Number,
        },
        DataError::EmptyField {
            file: "fiches.jsonl",
            line: 3,
            field: "texte",
        },
        DataError::DuplicateId {
            id: "A".into(),
            first_line: 1,
            line: 2,
        },
        DataError::BadHeader {
            found: "a,b".into(),
        },
        DataError::Csv {
            line: 4,
            message: "found record with 2 fields".into(),
        },
        DataError::UnknownKind {
            line: 2,
            found: "facile".into(),
        },
        DataError::ExpectedMismatch {
            line: 2,
            kind: QuestionKind::Absente,
        },
        DataError::ExpectedMismatch {
            line: 2,
            kind: QuestionKind::Courante,
        },
        DataError::UnknownExpected {
            line: 2,
            id: "P-404".into(),
        },
    ];
    all_french(&data_errors, data);
    let api_errors = [
        ApiError::KeyRefused { status: 401 },
        ApiError::RateLimited,
        ApiError::Server { status: 503 },
        ApiError::Rejected {
            status: 422,
            message: "«\u{202f}input\u{202f}» manque".into(),
        },
        ApiError::Network {
            detail: "TypeError: Failed to fetch".into(),
        },
        ApiError::Timeout {
            seconds: 15,
            resent: true,
        },
        ApiError::Timeout {
            seconds: 180,
            resent: false,
        },
        ApiError::Malformed {
            detail: "expected value at line 1".into(),
        },
        ApiError::Cancelled,
    ];
    all_french(&api_errors, api);
    let intake_errors = [
        IntakeError::Unrecognised {
            name: "n.txt".into(),
        },
        IntakeError::TooLarge {
            name: "f.jsonl".into(),
            bytes: 21 << 20,
            max: 20 << 20,
        },
        IntakeError::FichesTooLarge {
            name: "f.jsonl".into(),
            bytes: 300 << 20,
            max: 102 << 20,
        },
        IntakeError::Twice {
            first: "a.csv".into(),
            second: "b.csv".into(),
        },
        IntakeError::NoFiches,
        IntakeError::NotUtf8 {
            name: "f.jsonl".into(),
            line: 3,
        },
    ];
    all_french(&intake_errors, intake);
}

#[test]
fn the_english_detection_itself_catches_english() {
    let caught = std::panic::catch_unwind(|| {
        assert_french(
            &VectorsError::Dim {
                expected: 1024,
                found: 3,
            }
            .to_string(),
        )
    });
    assert!(caught.is_err());
}

#[test]
fn every_shipped_answers_error_variant_has_a_french_sentence() {
    use crate::answer::shipped::ShippedError;
    let all = [
        ShippedError::TooLarge {
            bytes: 20 << 20,
            max: 16 << 20,
        },
        ShippedError::Unreadable {
            detail: "expected value at line 1".into(),
        },
        ShippedError::NotOurs {
            found: "rag-fiches/vectors version 1".into(),
        },
        ShippedError::OtherFiches,
        ShippedError::OtherQuestions,
        ShippedError::Count {
            part: "mots+".into(),
            expected: 40,
            found: 39,
        },
        ShippedError::UnknownMethod {
            name: "bm42".into(),
        },
        ShippedError::UnknownFiche {
            part: "sens".into(),
            id: "AR-9999".into(),
        },
    ];
    all_french(&all, shipped);
}
