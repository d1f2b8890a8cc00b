//! Numbers and dates written the French way. A leaf: nothing from the crate is imported here, so
//! that the core, the page and the terminal may all write a number with it.

/// A narrow no-break space (U+202F): before « ; ! ? % », inside « », between thousands.
pub const NNBSP: char = '\u{202f}';

/// `x` with `decimals` decimals and a French decimal comma (« 0,57 »).
pub fn decimal(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}").replace('.', ",")
}

/// A whole number as French writes it, thousands separated by a narrow no-break space
/// (« 35 673 »).
pub fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(NNBSP);
        }
        out.push(c);
    }
    out
}

/// A share as a rounded percentage (« 95 % », with a narrow no-break space).
pub fn percent(x: f64) -> String {
    format!("{}{NNBSP}%", (x * 100.0).round())
}

/// US dollars with six decimals (embedding costs are tiny), « 0 $ » for nothing.
pub fn dollars(usd: f64) -> String {
    if usd == 0.0 {
        format!("0{NNBSP}$")
    } else {
        format!("{}{NNBSP}$", decimal(usd, 6))
    }
}

/// `n` and the word agreed with it: « 1 appel », « 2 appels », « 0 appel » (French singular for
/// 0 and 1).
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!("{} {}", int(n), if n <= 1 { singular } else { plural })
}

/// The day of an ISO 8601 date (« 2026-12-04T23:13:01Z » → « 4 décembre 2026 »); a text that is
/// not one is returned as it is.
pub fn date(iso: &str) -> String {
    const MONTHS: [&str; 12] = [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ];
    let day = iso.get(..10).unwrap_or("");
    let mut parts = day.split('-').map(str::parse::<u32>);
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Ok(y)), Some(Ok(m)), Some(Ok(d)))
            if (1..=12).contains(&m) && (1..=31).contains(&d) =>
        {
            let first = if d == 1 {
                "1er".to_owned()
            } else {
                d.to_string()
            };
            format!("{first} {} {y}", MONTHS[m as usize - 1])
        }
        _ => iso.to_owned(),
    }
}

/// A setting's value as it was typed, shortest form, with a decimal comma (« 1,2 », « 60 »).
pub fn plain(x: f64) -> String {
    x.to_string().replace('.', ",")
}

/// A p-value as the page writes it: three decimals, « < 0,001 » below that.
pub fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0,001".to_owned()
    } else {
        decimal(p, 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_in_words() {
        assert_eq!(date("2026-12-04T23:13:01Z"), "4 décembre 2026");
        assert_eq!(date("2027-01-01T00:00:00Z"), "1er janvier 2027");
        assert_eq!(date("hier"), "hier");
        assert_eq!(date("2026-13-01"), "2026-13-01");
    }

    #[test]
    fn numbers_are_written_the_french_way() {
        assert_eq!(decimal(0.5675, 2), "0,57");
        assert_eq!(int(35_673), "35\u{202f}673");
        assert_eq!(int(999), "999");
        assert_eq!(int(1_000_000), "1\u{202f}000\u{202f}000");
        assert_eq!(percent(0.95), "95\u{202f}%");
        assert_eq!(dollars(0.0), "0\u{202f}$");
        assert_eq!(dollars(0.0036), "0,003600\u{202f}$");
        assert_eq!(count(1, "appel", "appels"), "1 appel");
        assert_eq!(count(0, "appel", "appels"), "0 appel");
        assert_eq!(count(2, "appel", "appels"), "2 appels");
    }
}
