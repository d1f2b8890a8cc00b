//! The model's embedding table served by blocks of rows, for the page: a typed question needs a
//! few dozen of the table's 128,000 rows, so the page fetches the model's head (tokenizer,
//! layers: [`super::Model::to_head`]) and then only the blocks its questions use.
//!
//! A block file holds the rows of ids `block × ROWS_PER_BLOCK …` in one 4 kB file, with what
//! lets it be checked alone before it is used or cached: a header naming the block and the
//! table's fingerprint, and the first eight bytes of the SHA-256 of everything before them. A
//! truncated body, a server's error page, another block or another model's block is refused.
//!
//! ```text
//! "RFL1" | block (u32 LE) | rows (u32 LE) | fingerprint (8 bytes) | rows × 512 bytes | checksum (8 bytes)
//! ```
//!
//! Each block is served xz-compressed (`.xz`, [`unpack`]): its rows are one byte per value with
//! few distinct values, so it shrinks to well under half its size, which static hosts would not
//! do for a binary file (BENCHMARKS.md).

use std::fmt;

use sha2::{Digest, Sha256};

use super::DIM;

/// Rows per block file: 4 kB of rows. A question's missing rows are spread over the whole table,
/// so each costs a block: smaller blocks, fewer bytes; larger ones, fewer files.
pub const ROWS_PER_BLOCK: usize = 8;
const MAGIC: &[u8; 4] = b"RFL1";
const HEADER: usize = 4 + 4 + 4 + 8;
const CHECKSUM: usize = 8;
/// Where block files are served, relative to the page (and to its worker's script).
pub const BLOCKS_DIR: &str = "data/modele-local/lignes";
/// The model's head, xz-compressed, relative to the page.
pub const HEAD_FILE: &str = "data/modele-local/tete.safetensors.xz";

/// The table's fingerprint: the first eight bytes of its SHA-256. Blocks carry it, the head
/// names it: a block of another model is never taken for one of this model.
pub type Fingerprint = [u8; 8];

pub fn fingerprint(table: &[u8]) -> Fingerprint {
    let digest = Sha256::digest(table);
    let mut out = [0u8; 8];
    out.copy_from_slice(&digest[..8]);
    out
}

/// The fingerprint as 16 hex digits (the head's metadata, cache names).
pub fn fingerprint_hex(f: &Fingerprint) -> String {
    f.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn parse_fingerprint(hex: &str) -> Option<Fingerprint> {
    if hex.len() != 16 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 8];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// The block holding id `id`'s row.
pub fn block_of(id: u32) -> u32 {
    id / ROWS_PER_BLOCK as u32
}

/// How many blocks a vocabulary of `vocab` pieces makes (the last one may be shorter).
pub fn blocks(vocab: usize) -> usize {
    vocab.div_ceil(ROWS_PER_BLOCK)
}

/// The rows block `block` holds in a vocabulary of `vocab` pieces.
pub fn rows_in(block: u32, vocab: usize) -> usize {
    let first = block as usize * ROWS_PER_BLOCK;
    vocab.saturating_sub(first).min(ROWS_PER_BLOCK)
}

/// The block file's name in [`BLOCKS_DIR`].
pub fn block_name(block: u32) -> String {
    format!("{block:05}.xz")
}

/// The block file's path, relative to the page.
pub fn block_path(block: u32) -> String {
    format!("{BLOCKS_DIR}/{}", block_name(block))
}

/// Block `block`'s file from its rows (`rows` × 512 bytes).
pub fn block_file(block: u32, fingerprint: &Fingerprint, rows: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + rows.len() + CHECKSUM);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&block.to_le_bytes());
    out.extend_from_slice(&((rows.len() / DIM) as u32).to_le_bytes());
    out.extend_from_slice(fingerprint);
    out.extend_from_slice(rows);
    let digest = Sha256::digest(&out);
    out.extend_from_slice(&digest[..CHECKSUM]);
    out
}

/// Why a block file was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockError {
    /// Not as long as a block of its rows is (`found` bytes, `expected`).
    Length { found: usize, expected: usize },
    /// Not a block file (an error page, another file).
    NotABlock,
    /// Another block than the one asked for.
    OtherBlock { found: u32 },
    /// A block of another model.
    OtherModel,
    /// Its bytes are not those it was written with.
    Checksum,
    /// The served file does not inflate to a block (cut short, not xz, or too long).
    Compressed,
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockError::Length { found, expected } => {
                write!(f, "{found} bytes where a block has {expected}")
            }
            BlockError::NotABlock => write!(f, "not a block of the model's table"),
            BlockError::OtherBlock { found } => write!(f, "block {found}, not the one asked for"),
            BlockError::OtherModel => write!(f, "a block of another model"),
            BlockError::Checksum => write!(f, "its checksum does not match its bytes"),
            BlockError::Compressed => write!(f, "it does not inflate to a block"),
        }
    }
}

impl std::error::Error for BlockError {}

/// The longest block file: a block of [`ROWS_PER_BLOCK`] rows.
const MAX_BLOCK: usize = HEADER + ROWS_PER_BLOCK * DIM + CHECKSUM;

/// A served block file inflated ([`parse_block`] then checks it), by the same xz reader as the
/// head's: a second LZMA format would add its own code to the worker.
pub fn unpack(served: &[u8]) -> Result<Vec<u8>, BlockError> {
    let mut out = Vec::with_capacity(MAX_BLOCK);
    lzma_rs::xz_decompress(&mut &served[..], &mut out).map_err(|_| BlockError::Compressed)?;
    if out.len() > MAX_BLOCK {
        return Err(BlockError::Compressed);
    }
    Ok(out)
}

/// The rows of block `block`'s file `bytes`, checked: its length for `rows` rows, its header
/// and its checksum.
pub fn parse_block<'a>(
    bytes: &'a [u8],
    block: u32,
    rows: usize,
    fingerprint: &Fingerprint,
) -> Result<&'a [u8], BlockError> {
    let expected = HEADER + rows * DIM + CHECKSUM;
    if bytes.len() != expected {
        return Err(BlockError::Length {
            found: bytes.len(),
            expected,
        });
    }
    if &bytes[..4] != MAGIC {
        return Err(BlockError::NotABlock);
    }
    let u32_at =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (body, sum) = bytes.split_at(expected - CHECKSUM);
    if Sha256::digest(body)[..CHECKSUM] != *sum {
        return Err(BlockError::Checksum);
    }
    if u32_at(4) != block {
        return Err(BlockError::OtherBlock { found: u32_at(4) });
    }
    if u32_at(8) as usize != rows {
        return Err(BlockError::NotABlock);
    }
    if bytes[12..20] != fingerprint[..] {
        return Err(BlockError::OtherModel);
    }
    Ok(&body[HEADER..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize, seed: u8) -> Vec<u8> {
        (0..n * DIM)
            .map(|i| (i as u8).wrapping_mul(7).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn a_block_reads_back_its_rows() {
        let f = fingerprint(b"table");
        let r = rows(ROWS_PER_BLOCK, 3);
        let file = block_file(12, &f, &r);
        assert_eq!(parse_block(&file, 12, ROWS_PER_BLOCK, &f), Ok(&r[..]));
    }

    #[test]
    fn every_damage_is_refused() {
        let f = fingerprint(b"table");
        let file = block_file(12, &f, &rows(ROWS_PER_BLOCK, 3));
        let n = ROWS_PER_BLOCK;
        // Truncated, empty, one byte more.
        assert!(matches!(
            parse_block(&file[..file.len() - 1], 12, n, &f),
            Err(BlockError::Length { .. })
        ));
        assert!(matches!(
            parse_block(&[], 12, n, &f),
            Err(BlockError::Length { .. })
        ));
        let mut longer = file.clone();
        longer.push(0);
        assert!(matches!(
            parse_block(&longer, 12, n, &f),
            Err(BlockError::Length { .. })
        ));
        // One byte of a row changed.
        let mut flipped = file.clone();
        flipped[100] ^= 1;
        assert_eq!(parse_block(&flipped, 12, n, &f), Err(BlockError::Checksum));
        // Another block, another model, an HTML page of the right length.
        assert_eq!(
            parse_block(&file, 13, n, &f),
            Err(BlockError::OtherBlock { found: 12 })
        );
        assert_eq!(
            parse_block(&file, 12, n, &fingerprint(b"other")),
            Err(BlockError::OtherModel)
        );
        let page = vec![b'<'; file.len()];
        assert_eq!(parse_block(&page, 12, n, &f), Err(BlockError::NotABlock));
    }

    fn compressed(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        lzma_rs::xz_compress(&mut &bytes[..], &mut out).unwrap_or_default();
        out
    }

    #[test]
    fn a_served_block_inflates_to_its_file() {
        let f = fingerprint(b"table");
        let file = block_file(12, &f, &rows(ROWS_PER_BLOCK, 3));
        let served = compressed(&file);
        assert_eq!(unpack(&served), Ok(file.clone()));
        // Cut short, not xz at all, or inflating to more than a block.
        assert_eq!(
            unpack(&served[..served.len() / 2]),
            Err(BlockError::Compressed)
        );
        assert_eq!(unpack(&[]), Err(BlockError::Compressed));
        assert_eq!(unpack(&file), Err(BlockError::Compressed));
        let mut longer = file;
        longer.push(0);
        assert_eq!(unpack(&compressed(&longer)), Err(BlockError::Compressed));
    }

    #[test]
    fn the_last_block_is_shorter() {
        assert_eq!(blocks(128_000), 16_000);
        assert_eq!(blocks(17), 3);
        assert_eq!(rows_in(2, 17), 1);
        assert_eq!(rows_in(3, 17), 0);
        assert_eq!(block_of(17), 2);
        assert_eq!(block_path(7), "data/modele-local/lignes/00007.xz");
        let f = fingerprint(b"t");
        assert_eq!(parse_fingerprint(&fingerprint_hex(&f)), Some(f));
        assert_eq!(parse_fingerprint("zz"), None);
    }
}
