//! The terminal's common parts: its client for Mistral's API (`client`), its embedders
//! (`embedder`), the files it reads (`files`), the manifest it updates, and how a program reports
//! and exits. The client is native only (the page uses `fetch`); on wasm32 the terminal fronts
//! still compile, with the fake embedder alone.

mod client;
mod embedder;
mod files;

pub use client::*;
pub use embedder::*;
pub use files::*;

/// `secs` after the Unix epoch as an ISO 8601 UTC timestamp, to the second (Howard Hinnant's
/// days-to-civil algorithm: no date crate for one line of a file).
pub fn iso_utc(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Updates the manifest beside `out` (`manifeste.json`, where the page looks for what ships)
/// with `fields`, keeping its other fields; `what` names the file just written, for the messages.
/// No manifest there: nothing to do (`Ok(false)`).
pub fn update_manifest(
    out: &str,
    what: &str,
    fields: Vec<(&str, serde_json::Value)>,
) -> Result<bool, String> {
    let manifest = std::path::Path::new(out).with_file_name("manifeste.json");
    if !manifest.exists() {
        return Ok(false);
    }
    let old = read_text(&manifest.to_string_lossy())?;
    let mut value: serde_json::Value = serde_json::from_str(&old).map_err(|e| {
        format!(
            "{} is not JSON ({e}): the {what} are written, the manifest is left as it is",
            manifest.display()
        )
    })?;
    let Some(map) = value.as_object_mut() else {
        return Err(format!(
            "{} is not a JSON object: the {what} are written, the manifest is left as it is",
            manifest.display()
        ));
    };
    for (k, v) in fields {
        map.insert(k.to_owned(), v);
    }
    std::fs::write(&manifest, value.to_string() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    Ok(true)
}

/// Why a terminal program stops. Only a usage error (an unknown flag, a missing value) prints the
/// usage; any other failure is one line, with a hint where one helps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// `--help`: the usage, exit 0.
    Help,
    /// The command line is wrong: the message, then the usage, exit 2.
    Usage(String),
    /// The command line is right but the work failed (a file, the API): the message, exit 2.
    Run(String),
}

impl From<String> for Fail {
    fn from(message: String) -> Fail {
        Fail::Run(message)
    }
}

impl From<&str> for Fail {
    fn from(message: &str) -> Fail {
        Fail::Run(message.to_owned())
    }
}

/// Writes `args` to standard output. A reader that has left (`mesurer | head`) ends the program
/// quietly with success, as Unix tools do; any other failure to write ends it with status 2.
/// `println!` would panic on the closed pipe.
pub fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// `print!` for the terminal fronts, through [`write_out`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::write_out(format_args!($($t)*)) };
}

/// `println!` for the terminal fronts, through [`write_out`].
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::write_out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

/// The terminal fronts' exit: success; `--help` prints the usage; a usage error prints the
/// message and the usage; any other error prints the message and a one-line hint; both exit with
/// status 2, never a panic.
pub fn finish(name: &str, usage: &str, result: Result<(), Fail>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(Fail::Help) => {
            crate::outln!("{usage}");
            std::process::ExitCode::SUCCESS
        }
        Err(Fail::Usage(e)) => {
            eprintln!("{name}: {e}");
            eprintln!("{usage}");
            std::process::ExitCode::from(2)
        }
        Err(Fail::Run(e)) => {
            eprintln!("{name}: {e}");
            eprintln!("({name} --help lists the options)");
            std::process::ExitCode::from(2)
        }
    }
}

/// The program's arguments; one that is not UTF-8 is a usage error, not a panic.
pub fn args() -> Result<Vec<String>, Fail> {
    std::env::args_os()
        .skip(1)
        .map(|a| {
            a.into_string().map_err(|a| {
                Fail::Usage(format!(
                    "the argument {} is not UTF-8 text",
                    a.to_string_lossy()
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{check_api_base, iso_utc};

    #[test]
    fn timestamps_are_iso_utc_days_and_leap_years_included() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(1_796_425_981), "2026-12-04T23:13:01Z");
        assert_eq!(iso_utc(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    #[test]
    fn the_key_goes_only_to_mistral_or_a_loopback_mock() {
        for ok in [
            "https://api.mistral.ai",
            "http://127.0.0.1:8788",
            "http://localhost:9",
            "http://[::1]:8080",
            "http://127.0.0.1",
        ] {
            assert!(check_api_base(ok).is_ok(), "{ok}");
        }
        for refused in [
            "https://api.mistral.ai.example.com",
            "http://api.mistral.ai",
            "http://127.0.0.1.example.com",
            "http://localhost:80@evil.example",
            "http://127.0.0.1:",
            "https://evil.example",
            "",
        ] {
            assert!(check_api_base(refused).is_err(), "{refused}");
        }
    }
}
