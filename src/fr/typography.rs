//! French typography of the page's own sentences: a no-break space (U+00A0) before « : », a
//! narrow no-break space (U+202F) before « ; ! ? » and inside « ». Without them a narrow screen
//! breaks the line before the sign (« … accents) ; » / « Pourquoi ce score ? »). Text that comes
//! from data (fiches, questions, files) is shown as it is: the rule is for what the page writes.

/// Where `text` breaks that rule: each sign preceded by a breaking space (or a quote followed by
/// one), as a short excerpt around it. Empty when the text is right.
pub fn faults(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let breaking = |c: char| c.is_whitespace() && c != '\u{a0}' && c != '\u{202f}';
    let mut out = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let wrong = match c {
            ':' | ';' | '?' | '!' | '»' => before.is_some_and(breaking),
            '«' => after.is_some_and(breaking),
            _ => false,
        };
        if wrong {
            let from = i.saturating_sub(20);
            let to = (i + 20).min(chars.len());
            out.push(chars[from..to].iter().collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::faults;

    #[test]
    fn finds_breaking_spaces_before_signs_and_inside_quotes() {
        assert!(faults("Méthode\u{a0}: mots+\u{202f}; «\u{202f}ici\u{202f}»\u{202f}?").is_empty());
        assert_eq!(faults("Méthode : mots").len(), 1);
        assert_eq!(faults("a ; b ? c !").len(), 3);
        assert_eq!(faults("« ici »").len(), 2);
        // A sign at a line's start is as wrong as after a space.
        assert_eq!(faults("fin\n? »").len(), 2);
        // No space at all is not this rule's business (« http://… », « 12:30 »).
        assert!(faults("http://x?a=1;b").is_empty());
    }
}
