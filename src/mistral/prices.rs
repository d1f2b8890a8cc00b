//! What a call costs, per model: one table, used for every cost the page and the terminal show.
//!
//! Checked (on [`CHECKED`]) against Mistral's model cards (`mistralai/platform-docs-public`,
//! `src/schema/models/models/*.json`, fields `pricing.input` / `pricing.output` in US dollars per
//! million tokens) and its pricing page. An alias such as `mistral-small-latest` moves when Mistral
//! releases a model: on that date it named Mistral Small 4 (`mistral-small-2603`), whose price
//! replaced that of Small 3.2, since retired. Check again when a figure looks wrong;
//! a model missing from this table shows its tokens and « prix inconnu », never a borrowed price.

/// The date the prices below were checked.
pub const CHECKED: &str = "2026-08";

/// A model's price, US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub model: &'static str,
    pub input: f64,
    pub output: f64,
}

/// mistral-embed: input tokens only.
pub const EMBED: Price = Price {
    model: super::MODEL,
    input: 0.10,
    output: 0.0,
};

/// The chat models the page offers, in the order it offers them: the list and the prices are one
/// table, so an offered model always has a price.
pub const CHAT: [Price; 3] = [
    // Mistral Small 4 (mistral-small-2603).
    Price {
        model: "mistral-small-latest",
        input: 0.15,
        output: 0.60,
    },
    // Mistral Medium 3.x.
    Price {
        model: "mistral-medium-latest",
        input: 1.5,
        output: 7.5,
    },
    // Mistral Large 3 (mistral-large-2512).
    Price {
        model: "mistral-large-latest",
        input: 0.5,
        output: 1.5,
    },
];

/// The price of `model`, if this table knows it.
pub fn price(model: &str) -> Option<Price> {
    std::iter::once(EMBED)
        .chain(CHAT)
        .find(|p| p.model == model)
}

/// The cost in US dollars of `input` and `output` tokens with `model`; `None` when its price is
/// unknown (the caller then shows the tokens and « prix inconnu »).
pub fn cost_usd(model: &str, input: u64, output: u64) -> Option<f64> {
    price(model).map(|p| (input as f64 * p.input + output as f64 * p.output) / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_offered_model_has_a_price_and_an_unknown_one_has_none() {
        for p in CHAT {
            assert!(p.input > 0.0 && p.output > 0.0, "{}", p.model);
            assert_eq!(price(p.model), Some(p));
        }
        assert_eq!(cost_usd("mistral-tiny-2099", 1000, 1000), None);
        // Small 4: 1,000 tokens in and 1,000 out are $0.00015 + $0.0006.
        let small = cost_usd("mistral-small-latest", 1000, 1000).unwrap();
        assert!((small - 0.00075).abs() < 1e-12, "{small}");
        let medium = cost_usd("mistral-medium-latest", 1_000_000, 0).unwrap();
        assert!((medium - 1.5).abs() < 1e-12);
        assert_eq!(cost_usd(super::super::MODEL, 1_000_000, 0), Some(0.10));
    }
}
