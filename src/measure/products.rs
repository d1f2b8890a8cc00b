//! Products and their variants. A catalogue sells one product in several variants (six lengths of
//! a plasterboard, six colours of a grout); a question that names no variant is answered as well
//! by any of them. Measured on the exercise, 11 of the 20 courantes expect one variant of a
//! product whose siblings the question does not tell apart, so « bonne fiche en tête » is also
//! counted at the product level: the expected fiche or one of its siblings first.
//!
//! Siblings are derived from the data: fiches of the same family whose name is « product,
//! variant » with the same product, and whose text, once the name is taken off its beginning, is
//! the same. The exercise's 200 fiches make 83 products this way, its generator's 83. A catalogue
//! whose fiches do not have this shape is measured at the fiche level only (each fiche its own
//! product).

use std::collections::HashMap;

use crate::data::Fiche;

/// Text keyed between two pauses of [`Products::derive_pausing`].
pub const STEP_BYTES: usize = 1 << 20;

/// Which product each fiche belongs to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Products {
    of: HashMap<String, u32>,
    /// Products with more than one fiche.
    with_siblings: usize,
    count: usize,
    /// Each product's number of fiches.
    sizes: Vec<usize>,
}

impl Products {
    /// The products of `fiches` (see the module documentation).
    pub fn derive(fiches: &[Fiche]) -> Products {
        crate::steps::run_ready(Products::derive_pausing(fiches, |_| std::future::ready(())))
    }

    /// [`Products::derive`], awaiting `pause(fiches keyed)` after each [`STEP_BYTES`] of text or
    /// more: every text is hashed into its product's key, too much work for one step of the
    /// page's thread in a large catalogue.
    pub async fn derive_pausing<F, Fut>(fiches: &[Fiche], mut pause: F) -> Products
    where
        F: FnMut(usize) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        // Sized for every fiche at once: growing rehashes every key, whole texts, in one step.
        let mut keys: HashMap<(&str, &str, &str), u32> = HashMap::with_capacity(fiches.len());
        let mut sizes: Vec<usize> = Vec::new();
        let mut of = HashMap::with_capacity(fiches.len());
        let mut since_pause = 0;
        for (i, f) in fiches.iter().enumerate() {
            since_pause += f.texte.len();
            if since_pause >= STEP_BYTES {
                since_pause = 0;
                pause(i).await;
            }
            let key = match (f.nom.split_once(", "), f.texte.strip_prefix(f.nom.as_str())) {
                (Some((product, _)), Some(rest)) => (f.famille.as_str(), product, rest),
                // Not « product, variant »: a product of its own, keyed by its id.
                _ => ("", f.id.as_str(), "\u{0}"),
            };
            let next = keys.len() as u32;
            let group = *keys.entry(key).or_insert(next);
            if group as usize == sizes.len() {
                sizes.push(0);
            }
            sizes[group as usize] += 1;
            of.insert(f.id.clone(), group);
        }
        Products {
            of,
            with_siblings: sizes.iter().filter(|&&n| n > 1).count(),
            count: sizes.len(),
            sizes,
        }
    }

    /// The product fiche `id` belongs to, numbered from 0 (`None`: not in the catalogue).
    pub fn product_of(&self, id: &str) -> Option<u32> {
        self.of.get(id).copied()
    }

    /// Whether fiches `a` and `b` are the same product (a fiche is its own product).
    pub fn same(&self, a: &str, b: &str) -> bool {
        a == b || matches!((self.of.get(a), self.of.get(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether some product has several fiches: product figures then differ from fiche ones.
    pub fn has_siblings(&self) -> bool {
        self.with_siblings > 0
    }

    /// The number of products.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// How many fiches `id`'s product has, `id` included (1 for an id not in the catalogue),
    /// without reading the catalogue.
    pub fn variants(&self, id: &str) -> usize {
        self.of
            .get(id)
            .and_then(|&p| self.sizes.get(p as usize))
            .copied()
            .unwrap_or(1)
    }

    /// The fiches of `id`'s product, `id` included, in catalogue order.
    pub fn siblings<'a>(&self, id: &str, fiches: &'a [Fiche]) -> Vec<&'a Fiche> {
        fiches.iter().filter(|f| self.same(id, &f.id)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exercise_has_its_generators_83_products() {
        let fiches = crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        let p = Products::derive(&fiches);
        assert_eq!(p.len(), 83);
        assert!(p.has_siblings());
        // The hydrofuge plates: 2,50 m (AR-0039) and 2,60 m (AR-0040).
        assert!(p.same("AR-0039", "AR-0040"));
        assert!(!p.same("AR-0040", "AR-0041"));
        assert_eq!(p.siblings("AR-0040", &fiches).len(), 2);
        for f in &fiches {
            assert_eq!(p.variants(&f.id), p.siblings(&f.id, &fiches).len());
        }
        assert_eq!(p.variants("AR-9999"), 1);
    }

    #[test]
    fn fiches_without_variants_are_products_of_their_own() {
        let f = |id: &str, nom: &str, texte: &str| Fiche {
            id: id.into(),
            famille: "x".into(),
            nom: nom.into(),
            texte: texte.into(),
        };
        let p = Products::derive(&[
            f("1", "Vis", "Vis. Pour le bois."),
            f("2", "Vis", "Vis. Pour le bois."),
            f("3", "Colle, 1 kg", "Colle, 1 kg. Pour tout."),
            f("4", "Colle, 5 kg", "Colle, 5 kg. Pour tout."),
        ]);
        assert!(!p.same("1", "2"));
        assert!(p.same("3", "4"));
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn derived_in_steps_equals_derived_in_one_go() {
        // The exercise's fiches, each text made long: several steps of STEP_BYTES.
        let mut fiches =
            crate::data::parse_fiches(include_str!("../../data/fiches.jsonl")).unwrap();
        for f in &mut fiches {
            f.texte.push_str(&" et ainsi de suite".repeat(1000));
        }
        let mut pauses = Vec::new();
        let stepped = crate::steps::run_ready(Products::derive_pausing(&fiches, |i| {
            pauses.push(i);
            std::future::ready(())
        }));
        let total: usize = fiches.iter().map(|f| f.texte.len()).sum();
        assert!(pauses.len() >= total / STEP_BYTES, "{pauses:?}");
        assert!(pauses.windows(2).all(|w| w[0] < w[1]), "{pauses:?}");
        assert_eq!(stepped, Products::derive(&fiches));
        assert_eq!(stepped.len(), 83);
    }
}
