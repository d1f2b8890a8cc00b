//! The fourth red team's breaks (`../shared/reports/red-team-4-2026-12-05/`) that the core and
//! the terminal pin, one test each, named `rt4_r<N>_…` after the break.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rag_fiches::data::{parse_fiches, DataError};

/// Ids that look like « AR-0001 » and are not: bidirectional controls and blank-looking letters
/// are refused, as zero-width characters were, in the page and the terminal alike (both parse
/// with `parse_fiches_with`; `mesurer` is run on the file too).
#[test]
fn rt4_r6_ids_with_bidi_controls_or_blank_letters_are_refused() {
    let lookalikes = [
        '\u{202E}', '\u{202A}', '\u{2066}', '\u{2069}', '\u{061C}', '\u{2800}', '\u{3164}',
        '\u{115F}', '\u{1160}', '\u{FFA0}',
    ];
    for c in lookalikes {
        let text = format!(
            "{{\"id\":\"AR-0001\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}}\n{{\"id\":\"AR-0001{c}\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}}\n"
        );
        assert!(
            matches!(
                parse_fiches(&text),
                Err(DataError::IdWithSpace { line: 2, .. })
            ),
            "U+{:04X} accepted",
            c as u32
        );
        let dir = std::env::temp_dir().join(format!("rag-fiches-rt4-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fiches = dir.join(format!("f-{:04x}.jsonl", c as u32));
        std::fs::write(&fiches, &text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mesurer"))
            .args(["--fiches", fiches.to_str().unwrap()])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "U+{:04X}", c as u32);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("line 2") && said.contains("invisible"),
            "{said}"
        );
    }
    // Letters and accents stay allowed.
    let ok = "{\"id\":\"RÉF-0001\",\"famille\":\"f\",\"nom\":\"n\",\"texte\":\"t\"}\n";
    assert_eq!(parse_fiches(ok).unwrap()[0].id, "RÉF-0001");
}

/// A block of the served model rebuilt as the red team did — this table's header, other rows,
/// its checksum recomputed — is refused by the head the manifest names, whether it comes with the
/// genuine block's proof or without one (the red team's own 120-byte file, made before proofs);
/// the genuine block is taken. Needs the page's copy of the model (`bash scripts/modele.sh`).
#[test]
fn rt4_r3_a_block_forged_with_this_tables_header_and_checksum_is_refused() {
    use rag_fiches::encoder::blocks::{
        block_file, block_path, unpack, BlockError, HEAD_FILE, ROWS_PER_BLOCK,
    };
    use rag_fiches::encoder::{Model, DIM};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let served = root.join(HEAD_FILE);
    if !served.exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "with CI=true the page's copy of the model is required: bash scripts/modele.sh"
        );
        eprintln!(
            "\n*** SKIPPED rt4_r3: no {} (bash scripts/modele.sh) ***\n",
            served.display()
        );
        return;
    }
    let mut head = Vec::new();
    lzma_rs::xz_decompress(&mut &std::fs::read(&served).unwrap()[..], &mut head).unwrap();
    let mut model = Model::from_safetensors(&head).unwrap();
    let fingerprint = model.fingerprint().unwrap();
    let genuine = unpack(&std::fs::read(root.join(block_path(12))).unwrap()).unwrap();
    let forged_body = block_file(12, &fingerprint, &vec![0; ROWS_PER_BLOCK * DIM]);
    let mut forged = forged_body.clone();
    forged.extend_from_slice(&genuine[forged_body.len()..]);
    let rows = model.rows_here();
    assert_eq!(model.add_block(12, &forged), Err(BlockError::Unpinned));
    assert!(matches!(
        model.add_block(12, &forged_body),
        Err(BlockError::Length { .. })
    ));
    assert_eq!(
        model.rows_here(),
        rows,
        "nothing of a refused block is used"
    );
    assert_eq!(model.add_block(12, &genuine), Ok(()));
    assert_eq!(model.rows_here(), rows + ROWS_PER_BLOCK);
}
