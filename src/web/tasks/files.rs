//! The learner's files: read in slices with turns of the event loop, checked, parsed and
//! indexed in steps; TREC runs read for « Mesurer ».

use crate::data::intake::{utf8_text, utf8_text_pausing, FileKind, Selection};
use crate::data::{check_expected, parse_fiches_pausing, parse_questions_with};
use crate::fr::messages;

use super::super::runtime::{Run, Shared};
use super::super::turns::Pacer;
use super::vectors::*;
use crate::page::{Dataset, Report};

/// A file's bytes, read 4 MB at a time: each slice of the file is read by the browser, then copied
/// into the module, with a turn of the event loop whenever the [`Pacer`] says. Reading a 100 MB
/// file whole made a long task of the browser's own on the page's thread when the read ended,
/// and held a second copy of the file in JavaScript until it was copied.
pub(super) async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    const STEP: f64 = (4 << 20) as f64;
    let failed = || format!("{} : lecture impossible.", file.name());
    let pacer = Pacer::new();
    let size = file.size();
    let mut out = Vec::with_capacity(size as usize);
    let mut at = 0.0;
    while at < size {
        let end = size.min(at + STEP);
        let slice = file.slice_with_f64_and_f64(at, end).map_err(|_| failed())?;
        let buffer = wasm_bindgen_futures::JsFuture::from(slice.array_buffer())
            .await
            .map_err(|_| failed())?;
        let array = js_sys::Uint8Array::new(&buffer);
        let start = out.len();
        out.resize(start + array.length() as usize, 0);
        array.copy_to(&mut out[start..]);
        at = end;
        pacer.pause().await;
    }
    Ok(out)
}

/// Reads and checks the learner's files (fiches, questions, optionally vectors); nothing leaves
/// the browser. The catalogue in place stays until every check has passed.
pub async fn read_files(app: Shared, run: Run, files: Vec<web_sys::File>, selection: Selection) {
    // A later selection (or « Revenir au catalogue de l'exercice ») stops this run: its work
    // stops at the next step, and what it would report is dropped by `update`.
    let superseded = || run.call.is_cancelled();
    let parsed = async {
        let file = |i: usize| {
            files
                .get(i)
                .ok_or_else(|| "fichier introuvable.".to_owned())
        };
        let f_file = file(selection.fiches)?;
        let q_file = selection.questions.map(file).transpose()?;
        // Checked, parsed and indexed in steps (see `Pacer`).
        let pacer = Pacer::new();
        let pacer = &pacer;
        let text = |name: String, bytes| async move {
            utf8_text_pausing(&name, bytes, |_| pacer.pause())
                .await
                .map_err(|e| messages::intake(&e))
        };
        let fiches_text = text(f_file.name(), read_file(f_file).await?).await?;
        let questions_text = match q_file {
            Some(q) => Some(text(q.name(), read_file(q).await?).await?),
            None => None,
        };
        let f_name = f_file.name();
        let q_name = q_file.map_or_else(|| "questions.csv".to_owned(), |q| q.name());
        let said = |e: crate::data::DataError| messages::data_in(&e, &f_name, &q_name);
        // Parsed and indexed in steps, with turns of the event loop between them: 50,000 fiches
        // parsed in one go held the page's thread for seconds.
        let fiches = parse_fiches_pausing(&fiches_text, super::super::nfc, |_| pacer.pause())
            .await
            .map_err(said)?;
        // The check builds a set of every id, long enough at 50,000 fiches to be a step of its
        // own.
        pacer.turn().await;
        // A catalogue alone has no questions: it is searched, and measured once it has some.
        let questions = match &questions_text {
            Some(t) => parse_questions_with(t, super::super::nfc).map_err(said)?,
            None => Vec::new(),
        };
        check_expected(&fiches, &questions).map_err(said)?;
        pacer.turn().await;
        let label = match q_file {
            Some(q) => format!("vos données ({}, {})", f_file.name(), q.name()),
            None => format!("vos données ({})", f_file.name()),
        };
        let mut data =
            Dataset::new_pausing(0, fiches, questions, Some(label), |_| pacer.pause()).await;
        if superseded() {
            return Err(String::new());
        }
        if let Some((i, kind)) = selection.vectors {
            let v = file(i)?;
            let name = v.name();
            let local = kind != FileKind::Npy
                && header_model(v).await.as_deref() == Some(crate::encoder::MODEL);
            let read = if local {
                local_vectors(v, &mut data).await
            } else {
                mistral_vectors(&app, v, kind, &mut data).await
            };
            // A vectors file that does not fit is said; the fiches and questions stay loaded.
            if let Err(e) = read {
                data.intake_note = Some(format!(
                    "{name}\u{a0}: {e} Vos fiches et vos questions sont chargées sans ce fichier."
                ));
            }
        }
        Ok::<_, String>(data)
    }
    .await;
    match parsed {
        Ok(data) => run.report(Report::DatasetLoaded(Box::new(data))),
        Err(e) => run.report(Report::FilesRefused(vec![e])),
    }
}

/// The model a `.safetensors` file says it holds, from its header alone (`None` when it cannot be
/// read as one).
async fn header_model(file: &web_sys::File) -> Option<String> {
    let slice = |from: f64, to: f64| async move {
        let part = file.slice_with_f64_and_f64(from, to).ok()?;
        let buffer = wasm_bindgen_futures::JsFuture::from(part.array_buffer())
            .await
            .ok()?;
        Some(js_sys::Uint8Array::new(&buffer).to_vec())
    };
    let size = slice(0.0, 8.0).await?;
    let n = u64::from_le_bytes(size.try_into().ok()?);
    // A header is JSON, at most a few MB even with 100,000 ids.
    if n > 64 << 20 {
        return None;
    }
    let header = slice(8.0, 8.0 + n as f64).await?;
    let json: serde_json::Value = serde_json::from_slice(&header).ok()?;
    json.get("__metadata__")?
        .get("model")?
        .as_str()
        .map(str::to_owned)
}

/// The local encoder's vectors of the learner's fiches (`vecteurs --embedder local`), read and
/// checked here and kept by the page's lab as the exercise's are; their questions' vectors too.
async fn local_vectors(file: &web_sys::File, data: &mut Dataset) -> Result<(), String> {
    let bytes = read_file(file).await?;
    let mut set = crate::data::vectors::VectorSet::from_safetensors(&bytes)
        .map_err(|e| messages::vectors(&e))?;
    let questions = std::mem::take(&mut set.questions);
    data.lab
        .set_local_vectors(set)
        .map_err(|e| messages::vectors(&e))?;
    data.shipped_local_questions = questions;
    Ok(())
}

/// Mistral's vectors of the learner's fiches (or the seed's `.npy`): read, checked and kept by the
/// page's worker, from the file itself; the page's thread never reads it (50,000 vectors, 103 MB).
async fn mistral_vectors(
    app: &Shared,
    file: &web_sys::File,
    kind: FileKind,
    data: &mut Dataset,
) -> Result<(), String> {
    let name = file.name();
    let ids = data.lab.fiches().iter().map(|f| f.id.clone()).collect();
    let fingerprint = data.lab.fingerprint().to_owned();
    let a = attach_vectors(app, file, ids, fingerprint, kind == FileKind::Npy).await?;
    data.shipped_questions = a.questions;
    data.lab.set_vectors_away(a.set, a.info);
    data.vectors_origin = if kind == FileKind::Npy {
        format!("chargés depuis {name} (un .npy ne porte pas d'empreinte\u{a0}: seule sa forme a été vérifiée)")
    } else {
        format!("chargés depuis {name}")
    };
    Ok(())
}

/// Reads TREC run files, in the order chosen; nothing leaves the browser.
pub async fn read_runs(run: Run, files: Vec<web_sys::File>) {
    let mut read = Vec::with_capacity(files.len());
    for file in files {
        let name = file.name();
        let text = match read_file(&file).await {
            Ok(bytes) => utf8_text(&name, bytes).map_err(|e| messages::intake(&e)),
            Err(e) => Err(e),
        };
        read.push((name, text));
    }
    run.report(Report::RunsRead(read));
}

/// A questions file shipped with the page (`data/{name}`: « l'épreuve »), read and checked;
/// with the local encoder's vectors of its questions (`data/{vectors}`), when that file reads
/// and is the local encoder's.
pub(super) async fn fetch_questions(run: Run, name: String, vectors: String) {
    let name_in = name.clone();
    let read = super::super::dom::fetch_text(&format!("data/{name}"))
        .await
        .and_then(|text| {
            crate::data::parse_questions(&text)
                .map_err(|e| messages::data_in(&e, "fiches.jsonl", &name_in))
        });
    let local = match &read {
        Ok(_) => fetch_bytes(&format!("data/{vectors}"))
            .await
            .and_then(|b| {
                let set = crate::data::vectors::VectorSet::from_safetensors(&b)
                    .map_err(|e| messages::vectors(&e))?;
                set.check_model(crate::encoder::MODEL, crate::encoder::DIM)
                    .map_err(|e| messages::vectors(&e))?;
                Ok(set.questions.into_iter().collect())
            })
            .unwrap_or_else(|e| {
                web_sys::console::warn_1(&format!("{vectors}\u{a0}: {e}").into());
                Default::default()
            }),
        Err(_) => Default::default(),
    };
    run.report(Report::EpreuveRead(read, local));
}
