//! Python's number formatting, for byte-exact seed output: `round(x, n)` and `repr(float)`.

/// Python's `round(x, ndigits)`: the double nearest to `x` rounded to `ndigits` decimals, ties to
/// even on the exact binary value (so `round(2.675, 2)` is 2.67: 2.675 is stored as 2.67499…).
/// Rust's `{:.n}` formatting rounds the exact binary value half-to-even too (since Rust 1.67), and
/// parsing the result gives the nearest double, as CPython does.
pub fn round(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// Python's `repr(float)` (and `str`, and `format(x, "")`): the shortest string that reads back
/// to the same double, with `.0` on whole numbers and exponent notation outside [1e-4, 1e16).
pub fn repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Rust: "1.5e16", "1e-5"; Python: "1.5e+16", "1e-05".
        let s = format!("{x:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    let s = format!("{x}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_matches_python_on_ties_and_near_ties() {
        // Values checked against CPython 3.11's round().
        assert_eq!(repr(round(2.675, 2)), "2.67");
        assert_eq!(repr(round(0.125, 2)), "0.12");
        assert_eq!(repr(round(0.375, 2)), "0.38");
        assert_eq!(repr(round(27.41234, 2)), "27.41");
        assert_eq!(repr(round(2.1449999, 2)), "2.14");
        assert_eq!(repr(round(0.0, 2)), "0.0");
        assert_eq!(repr(round(5.0, 2)), "5.0");
        assert_eq!(repr(round(0.8125, 3)), "0.812");
    }

    #[test]
    fn repr_matches_python() {
        assert_eq!(repr(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(repr(1.0 / 61.0), "0.01639344262295082");
        assert_eq!(repr(-0.0), "-0.0");
        assert_eq!(repr(1e16), "1e+16");
        assert_eq!(repr(1.5e16), "1.5e+16");
        assert_eq!(repr(0.00001), "1e-05");
        assert_eq!(repr(0.0001), "0.0001");
        assert_eq!(repr(123456789012345.0), "123456789012345.0");
        assert_eq!(repr(f64::NAN), "nan");
    }
}
