//! Native ring: the set-up and test scripts fail fast and say why, as a newcomer meets them.

// Test code: a failed expectation stops the test, which is how it reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg(all(unix, not(target_arch = "wasm32")))]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A directory of links to every program on this machine's PATH except `hidden`: the machine as
/// a newcomer's, without those programs.
fn trimmed_path(hidden: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trimmed-path-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let home = std::env::var("HOME").unwrap_or_default();
    let cargo_bin = format!("{home}/.cargo/bin");
    for entry in std::env::split_paths(&path).chain([PathBuf::from(cargo_bin)]) {
        let Ok(list) = std::fs::read_dir(&entry) else {
            continue;
        };
        for f in list.flatten() {
            let name = f.file_name();
            let name_str = name.to_string_lossy();
            let link = dir.join(&name);
            if hidden.contains(&name_str.as_ref()) || link.exists() {
                continue;
            }
            std::os::unix::fs::symlink(f.path(), link).ok();
        }
    }
    dir
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `cmd`, killing it after `limit`: (status code, stdout + stderr, time taken).
fn run_for(mut cmd: Command, limit: Duration) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let mut child = cmd
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            break;
        }
        if started.elapsed() > limit {
            child.kill().ok();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = started.elapsed();
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text, took)
}

#[test]
fn setup_test_without_node_stops_in_seconds_naming_node_20() {
    let path = trimmed_path(&["node", "nodejs", "npm", "npx"]);
    let mut cmd = Command::new("bash");
    cmd.args(["scripts/setup.sh", "test"]).env("PATH", &path);
    let (code, text, took) = run_for(cmd, Duration::from_secs(60));
    std::fs::remove_dir_all(&path).ok();
    assert_eq!(code, Some(1), "{text}");
    assert!(took < Duration::from_secs(10), "{took:?}: {text}");
    assert!(text.contains("node >= 20 and npm are needed"), "{text}");
    assert!(text.contains("apt-get install nodejs npm"), "{text}");
    assert!(
        !text.contains("installing"),
        "nothing installed first: {text}"
    );
}

#[test]
fn setup_refuses_an_unknown_profile() {
    let mut cmd = Command::new("bash");
    cmd.args(["scripts/setup.sh", "everything"]);
    let (code, text, _) = run_for(cmd, Duration::from_secs(30));
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("expected serve or test"), "{text}");
}

#[test]
fn test_sh_with_the_mock_port_taken_fails_at_once_naming_port_and_holder() {
    // Hold 127.0.0.1:8788 (or find it already held: the script must fail either way).
    let held = std::net::TcpListener::bind("127.0.0.1:8788");
    let mut cmd = Command::new("bash");
    cmd.arg("scripts/test.sh");
    let (code, text, took) = run_for(cmd, Duration::from_secs(60));
    drop(held);
    assert_eq!(code, Some(1), "{text}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains("port 8788 on 127.0.0.1 is taken by"),
        "{text}"
    );
}

#[test]
fn the_engines_recipes_refuse_a_missing_file_or_option_before_installing_anything() {
    let cases: [(&[&str], &str); 5] = [
        (&["--fiches", "/nulle-part/fiches.jsonl"], "no file /nulle-part/fiches.jsonl"),
        (
            &["--fiches", "data/fiches.jsonl", "--vecteurs-local", "/nulle-part/v.safetensors"],
            "no file /nulle-part/v.safetensors: the engines' dense runs need the local encoder's vectors",
        ),
        (&["--fiches"], "--fiches needs a file"),
        (&["--fichier", "x"], "unknown option \"--fichier\""),
        (&["elastic"], "unknown recipe \"elastic\""),
    ];
    for (args, said) in cases {
        let mut cmd = Command::new("bash");
        cmd.arg("engines/run.sh").args(args);
        let (code, text, took) = run_for(cmd, Duration::from_secs(30));
        assert_eq!(code, Some(2), "{args:?}: {text}");
        assert!(text.contains(said), "{args:?}: {text}");
        assert!(!text.contains("installing"), "{args:?}: {text}");
        assert!(took < Duration::from_secs(5), "{args:?}: {took:?}");
    }
    // Its usage names the options.
    let mut cmd = Command::new("bash");
    cmd.args(["engines/run.sh", "--help"]);
    let (code, text, _) = run_for(cmd, Duration::from_secs(30));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("[--fiches F] [--questions Q] [--vecteurs-local V]"),
        "{text}"
    );
}
