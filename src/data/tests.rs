use super::*;

#[test]
fn reads_the_seed_files() {
    let fiches = parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
    let questions = parse_questions(include_str!("../../data/questions.csv")).unwrap();
    assert_eq!(fiches.len(), 200);
    assert_eq!(questions.len(), 40);
    let count = |k| questions.iter().filter(|q| q.kind == k).count();
    assert_eq!(count(QuestionKind::Exacte), 15);
    assert_eq!(count(QuestionKind::Courante), 20);
    assert_eq!(count(QuestionKind::Absente), 5);
    check_expected(&fiches, &questions).unwrap();
}

#[test]
fn names_the_line_and_field_of_a_missing_texte() {
    let text = "{\"id\":\"A\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}\n\n{\"id\":\"B\",\"famille\":\"f\",\"nom\":\"n\"}\n";
    let err = parse_fiches(text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fiches.jsonl, line 3: missing field \"texte\" (a text is expected)"
    );
}

#[test]
fn rejects_duplicate_ids_naming_both_lines() {
    let line = "{\"id\":\"A\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}";
    let err = parse_fiches(&format!("{line}\n{line}\n")).unwrap_err();
    assert_eq!(
        err,
        DataError::DuplicateId {
            id: "A".into(),
            first_line: 1,
            line: 2
        }
    );
}

#[test]
fn ids_equal_after_nfc_are_one_id_and_an_id_with_a_space_is_refused() {
    let fiche =
        |id: &str| format!("{{\"id\":\"{id}\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}}");
    // « AR-é » as one code point (NFC), then as e + combining acute (NFD).
    let text = format!("{}\n{}\n", fiche("AR-\u{e9}"), fiche("AR-e\u{301}"));
    assert!(matches!(
        parse_fiches(&text).unwrap_err(),
        DataError::DuplicateId {
            first_line: 1,
            line: 2,
            ..
        }
    ));
    for id in ["AR 0001", "AR-0001\\n", " AR-0001", "AR\\t1"] {
        let err = parse_fiches(&fiche(id)).unwrap_err();
        assert!(
            matches!(err, DataError::IdWithSpace { line: 1, .. }),
            "{id}: {err:?}"
        );
    }
}

#[test]
fn rejects_a_line_that_is_not_json() {
    let err = parse_fiches("{\"id\": \n").unwrap_err();
    assert!(matches!(err, DataError::Json { line: 1, .. }), "{err:?}");
}

#[test]
fn accepts_a_bom_and_lf_line_ends_in_questions() {
    let q = parse_questions(
        "\u{feff}type;question;fiche_attendue\nexacte;Joint;AR-1\nabsente;Rien ?;\n",
    )
    .unwrap();
    assert_eq!(q.len(), 2);
    assert_eq!(q[1].expected, None);
}

#[test]
fn reads_quoted_fields_with_semicolons() {
    let q =
        parse_questions("type;question;fiche_attendue\r\ncourante;\"Un joint ; blanc\";AR-1\r\n")
            .unwrap();
    assert_eq!(q[0].text, "Un joint ; blanc");
}

#[test]
fn rejects_a_comma_separated_file_with_a_hint() {
    let err = parse_questions("type,question,fiche_attendue\n").unwrap_err();
    assert!(matches!(err, DataError::BadHeader { .. }));
    let err = parse_questions("type;question;fiche_attendue\nexacte,Joint,AR-1\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "questions.csv, line 2: expected 3 fields separated by \";\", found 1 (is the separator a \";\"?)"
    );
}

#[test]
fn rejects_unknown_kinds_and_missing_expected_ids() {
    let err = parse_questions("type;question;fiche_attendue\nfacile;Q;AR-1\n").unwrap_err();
    assert_eq!(
        err,
        DataError::UnknownKind {
            line: 2,
            found: "facile".into()
        }
    );
    let err = parse_questions("type;question;fiche_attendue\ncourante;Q;\n").unwrap_err();
    assert_eq!(
        err,
        DataError::ExpectedMismatch {
            line: 2,
            kind: QuestionKind::Courante
        }
    );
}

#[test]
fn names_an_expected_id_missing_from_the_fiches() {
    let fiches =
        parse_fiches("{\"id\":\"A\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}").unwrap();
    let questions = parse_questions("type;question;fiche_attendue\nexacte;Q;B\n").unwrap();
    assert_eq!(
        check_expected(&fiches, &questions).unwrap_err(),
        DataError::UnknownExpected {
            line: 2,
            id: "B".into()
        }
    );
}

#[test]
fn b10_an_expected_id_in_nfd_is_the_fiche_id_in_nfc() {
    let fiches = parse_fiches(
        "{\"id\":\"AR-\u{e9}\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"Joint \u{e9}poxy\"}\n",
    )
    .unwrap();
    // Written « AR-e » + combining acute in the questions file.
    let questions =
        parse_questions("type;question;fiche_attendue\nexacte;Joint \u{e9}poxy;AR-e\u{301}\n")
            .unwrap();
    check_expected(&fiches, &questions).unwrap();
    assert_eq!(
        questions[0].expected.as_deref(),
        Some(fiches[0].id.as_str())
    );
    // And fiche ids are kept in NFC whatever form they were written in.
    let nfd =
        parse_fiches("{\"id\":\"AR-e\u{301}\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}\n")
            .unwrap();
    assert_eq!(nfd[0].id, "AR-\u{e9}");
}

#[test]
fn b10_an_id_with_an_invisible_character_is_refused() {
    for id in [
        "AR-0001\u{200B}",
        "\u{FEFF}AR-0001",
        "AR-\u{00AD}0001",
        "AR\u{2060}-0001",
    ] {
        let line = format!("{{\"id\":\"{id}\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}}\n");
        assert!(
            matches!(
                parse_fiches(&line).unwrap_err(),
                DataError::IdWithSpace { line: 1, .. }
            ),
            "{id:?} accepted"
        );
    }
}

#[test]
fn a_questions_file_with_only_its_header_is_said_so_not_called_empty() {
    assert_eq!(
        parse_questions("type;question;fiche_attendue\n"),
        Err(DataError::HeaderOnly {
            file: "questions.csv"
        })
    );
    assert_eq!(
        parse_questions("\n \n"),
        Err(DataError::Empty {
            file: "questions.csv"
        })
    );
}
