//! Trajectories do not move by accident: every bundled profile's CSV export (120
//! ticks, every 10th, both neighbour indexes, 1 and 2 threads) hashes to the value
//! recorded in `tests/golden/csv_hashes.txt`. A change that means to move them
//! rewrites the file with `THRONG_BLESS=1` and says why in its commit.

use std::path::PathBuf;

use assert_cmd::Command;

const HASHES: &str = "tests/golden/csv_hashes.txt";

/// FNV-1a over 64 bits.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The CSV export of one run, as bytes.
fn export(profile: &str, index: &str, threads: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join(format!("{profile}-{index}-{threads}.csv"));
    let out = Command::cargo_bin("throng")
        .unwrap()
        .args(["run", profile, "--ticks", "120", "--every", "10"])
        .args(["--index", index, "--threads", threads, "--csv"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&csv).unwrap()
}

#[test]
fn bundled_profiles_export_the_recorded_trajectories() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(HASHES);
    let text = std::fs::read_to_string(&path).unwrap();
    let bless = std::env::var_os("THRONG_BLESS").is_some();
    let mut blessed = String::new();
    let mut failures = Vec::new();
    let mut runs = 0;
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            blessed.push_str(line);
            blessed.push('\n');
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [profile, index, threads, hash, len] = fields[..] else {
            panic!("bad line in {HASHES}: {line}");
        };
        let bytes = export(profile, index, threads);
        let got = format!("{:016x}", fnv(&bytes));
        runs += 1;
        if got != hash || bytes.len().to_string() != len {
            failures.push(format!(
                "{profile} {index} {threads}: recorded {hash} ({len} bytes), got {got} ({} bytes)",
                bytes.len()
            ));
        }
        blessed.push_str(&format!(
            "{profile} {index} {threads} {got} {}\n",
            bytes.len()
        ));
    }
    // Every bundled profile, on both indexes and 1 and 2 threads.
    assert_eq!(
        runs,
        throng::scenario::BUNDLED.len() * 4,
        "{HASHES} is incomplete"
    );
    if bless {
        std::fs::write(&path, blessed).unwrap();
        return;
    }
    assert!(
        failures.is_empty(),
        "trajectories moved:\n{}",
        failures.join("\n")
    );
}
