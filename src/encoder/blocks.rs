//! The model's embedding table served by blocks of rows, for the page: a typed question needs a
//! few dozen of the table's 128,000 rows, so the page fetches the model's head (tokenizer,
//! layers: [`super::Model::to_head`]) and then only the blocks its questions use.
//!
//! A block file holds the rows of ids `block × ROWS_PER_BLOCK …` in one 4 kB file, with what
//! lets it be checked alone: a header naming the block and the table's fingerprint, and the
//! first eight bytes of the SHA-256 of everything before them. A truncated body, a server's error
//! page, another block or another model's block is refused by that alone. Then each block is
//! pinned ([`Pins`]): the blocks are the leaves of a hash tree whose root the head names (and
//! the manifest names the head's hash), and each block file ends with its proof, the siblings on
//! its way up. A block rebuilt with this table's header and a recomputed checksum — by a page of
//! the same origin, a proxy, or a half-finished deploy — is refused too, before it is used or
//! kept, and an earlier visit's cached copy is refused on reading. A list of every block's hash
//! in the head would add 256 kB to its download; the proofs add 224 bytes to each block.
//!
//! ```text
//! "RFL1" | block (u32 LE) | rows (u32 LE) | fingerprint (8 bytes) | rows × 512 bytes | checksum (8 bytes)
//!        | proof (one 16-byte node per level where the block has a sibling, lowest first)
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
/// The head's size in megabytes, rounded, as the page announces it before downloading it
/// (`tests/encoder.rs` checks it against the file served).
pub const HEAD_MB: u32 = 3;

/// Bytes of a node of the blocks' hash tree: 128 bits of SHA-256, for which no one finds a
/// second file (the block's own 64-bit checksum only catches damage).
pub const NODE: usize = 16;
/// A node of the blocks' hash tree; its root is the head's `racine_des_blocs`.
pub type Node = [u8; NODE];
/// The head's metadata naming the root of its blocks' hash tree (32 hex digits).
pub const ROOT_KEY: &str = "racine_des_blocs";

fn hash(parts: &[&[u8]]) -> Node {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    let mut out = [0u8; NODE];
    out.copy_from_slice(&h.finalize()[..NODE]);
    out
}

/// A block's leaf (a leaf and an inner node are hashed apart: one is never taken for the other).
fn leaf(body: &[u8]) -> Node {
    hash(&[&[0], body])
}

fn parent(left: &Node, right: &Node) -> Node {
    hash(&[&[1], left, right])
}

/// How many nodes block `block`'s proof holds in a tree of `blocks` leaves: one per level where
/// it has a sibling (the last node of an odd level goes up as it is).
fn proof_len(mut block: usize, mut blocks: usize) -> usize {
    let mut n = 0;
    while blocks > 1 {
        n += usize::from(block ^ 1 < blocks);
        block /= 2;
        blocks = blocks.div_ceil(2);
    }
    n
}

/// Every block's file, `bodies` ([`block_file`]) each followed by its proof (the siblings on its
/// way up the tree of their leaves, lowest first), and the tree's root, which the head names.
pub fn pin_blocks(bodies: &[Vec<u8>]) -> (Node, Vec<Vec<u8>>) {
    let mut levels = vec![bodies.iter().map(|b| leaf(b)).collect::<Vec<Node>>()];
    while levels.last().is_some_and(|l| l.len() > 1) {
        let below = levels.last().map(Vec::as_slice).unwrap_or_default();
        let up = below
            .chunks(2)
            .map(|pair| match pair {
                [l, r] => parent(l, r),
                [alone] => *alone,
                _ => [0; NODE],
            })
            .collect();
        levels.push(up);
    }
    let root = levels
        .last()
        .and_then(|l| l.first())
        .copied()
        .unwrap_or_default();
    let files = bodies
        .iter()
        .enumerate()
        .map(|(block, body)| {
            let mut file = body.clone();
            let mut at = block;
            for level in &levels[..levels.len() - 1] {
                if let Some(sibling) = level.get(at ^ 1) {
                    file.extend_from_slice(sibling);
                }
                at /= 2;
            }
            file
        })
        .collect();
    (root, files)
}

/// What a head knows of its blocks: the table's fingerprint and the root of its blocks' hash
/// tree, which pins every block's bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Pins {
    fingerprint: Fingerprint,
    root: Node,
    vocab: usize,
}

impl Pins {
    pub fn new(fingerprint: Fingerprint, root: Node, vocab: usize) -> Pins {
        Pins {
            fingerprint,
            root,
            vocab,
        }
    }

    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The rows of block `block`'s file, checked by [`parse_block`], then by its proof up to
    /// the root the head names.
    pub fn check<'a>(&self, file: &'a [u8], block: u32) -> Result<&'a [u8], BlockError> {
        let count = blocks(self.vocab);
        let body_len = HEADER + rows_in(block, self.vocab) * DIM + CHECKSUM;
        let expected = body_len + proof_len(block as usize, count) * NODE;
        if file.len() != expected {
            return Err(BlockError::Length {
                found: file.len(),
                expected,
            });
        }
        let (body, proof) = file.split_at(body_len);
        let rows = parse_block(body, block, rows_in(block, self.vocab), &self.fingerprint)?;
        let mut node = leaf(body);
        let mut proof = proof.chunks_exact(NODE);
        let (mut at, mut n) = (block as usize, count);
        while n > 1 {
            if at ^ 1 < n {
                let mut sibling = [0u8; NODE];
                sibling.copy_from_slice(proof.next().unwrap_or(&[0; NODE]));
                node = match at % 2 {
                    0 => parent(&node, &sibling),
                    _ => parent(&sibling, &node),
                };
            }
            at /= 2;
            n = n.div_ceil(2);
        }
        match node == self.root {
            true => Ok(rows),
            false => Err(BlockError::Unpinned),
        }
    }
}

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
    hex(f)
}

/// Bytes as lowercase hex digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn parse_fingerprint(hex: &str) -> Option<Fingerprint> {
    parse_hex(hex)
}

/// `N` bytes written as `2 × N` hex digits (a fingerprint, the blocks' root).
pub fn parse_hex<const N: usize>(hex: &str) -> Option<[u8; N]> {
    if hex.len() != 2 * N || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; N];
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
    /// A well-formed block of this table whose bytes are not those the head pins.
    Unpinned,
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
            BlockError::Unpinned => write!(f, "not the block the model's head names"),
        }
    }
}

impl std::error::Error for BlockError {}

/// The longest block file: a block of [`ROWS_PER_BLOCK`] rows and a proof of 64 levels.
const MAX_BLOCK: usize = HEADER + ROWS_PER_BLOCK * DIM + CHECKSUM + 64 * NODE;

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
        let longer = vec![0u8; MAX_BLOCK + 1];
        assert_eq!(unpack(&compressed(&longer)), Err(BlockError::Compressed));
    }

    /// The files of a table of `vocab` rows, pinned, and their pins.
    fn pinned(vocab: usize) -> (Pins, Vec<Vec<u8>>) {
        let f = fingerprint(b"table");
        let bodies: Vec<Vec<u8>> = (0..blocks(vocab) as u32)
            .map(|b| block_file(b, &f, &rows(rows_in(b, vocab), b as u8)))
            .collect();
        let (root, files) = pin_blocks(&bodies);
        (Pins::new(f, root, vocab), files)
    }

    #[test]
    fn every_block_of_every_tree_shape_checks_against_the_root() {
        for count in [1, 2, 3, 5, 7, 8, 13] {
            let vocab = (count - 1) * ROWS_PER_BLOCK + 3;
            let (pins, files) = pinned(vocab);
            for (b, file) in files.iter().enumerate() {
                assert_eq!(
                    file.len(),
                    HEADER + rows_in(b as u32, vocab) * DIM + CHECKSUM + proof_len(b, count) * NODE
                );
                assert!(
                    pins.check(file, b as u32).is_ok(),
                    "{count} blocks, block {b}"
                );
            }
        }
        assert_eq!(proof_len(12, 16_000), 14);
    }

    #[test]
    fn a_block_with_a_recomputed_checksum_is_refused_by_its_pin() {
        let vocab = 6 * ROWS_PER_BLOCK + 1;
        let (pins, files) = pinned(vocab);
        let f = pins.fingerprint();
        // Other rows under this table's header, checksum recomputed, the genuine proof after it:
        // a well-formed block, not the one the root pins.
        let mut forged = block_file(1, &f, &vec![0; ROWS_PER_BLOCK * DIM]);
        let body_len = forged.len();
        assert!(parse_block(&forged, 1, ROWS_PER_BLOCK, &f).is_ok());
        forged.extend_from_slice(&files[1][body_len..]);
        assert_eq!(pins.check(&forged, 1), Err(BlockError::Unpinned));
        // A genuine block under another number, a proof changed, another tree's root.
        assert!(pins.check(&files[2], 1).is_err());
        let mut proof = files[1].clone();
        let last = proof.len() - 1;
        proof[last] ^= 1;
        assert_eq!(pins.check(&proof, 1), Err(BlockError::Unpinned));
        let other = Pins::new(f, [7; NODE], vocab);
        assert_eq!(other.check(&files[1], 1), Err(BlockError::Unpinned));
        // Without its proof, a block is refused by its length.
        assert!(matches!(
            pins.check(&files[1][..body_len], 1),
            Err(BlockError::Length { .. })
        ));
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
