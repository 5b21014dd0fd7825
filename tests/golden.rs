//! Trajectories do not move by accident: every bundled profile's CSV export (120
//! ticks, every 10th, both neighbour indexes, 1 and 2 threads) hashes to the value
//! recorded in `tests/golden/csv_hashes.txt`. A change that means to move them
//! rewrites the file with `THRONG_BLESS=1` and says why in its commit.
#![cfg(feature = "scenario")]

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
    let header: String = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let recorded: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    let mut blessed = header;
    let mut failures = Vec::new();
    for profile in throng::scenario::BUNDLED.iter().map(|b| b.name) {
        for index in ["kdtree", "grid"] {
            for threads in ["1", "2"] {
                let bytes = export(profile, index, threads);
                let (got, len) = (format!("{:016x}", fnv(&bytes)), bytes.len().to_string());
                let line = [profile, index, threads];
                match recorded.iter().find(|r| r[..3] == line) {
                    Some(r) if r[3] == got && r[4] == len => {}
                    Some(r) => failures.push(format!(
                        "{profile} {index} {threads}: recorded {} ({} bytes), got {got} ({len} bytes)",
                        r[3], r[4]
                    )),
                    None => failures.push(format!("{profile} {index} {threads}: not recorded")),
                }
                blessed.push_str(&format!("{profile} {index} {threads} {got} {len}\n"));
            }
        }
    }
    if std::env::var_os("THRONG_BLESS").is_some() {
        std::fs::write(&path, blessed).unwrap();
        return;
    }
    assert!(
        failures.is_empty(),
        "trajectories moved:\n{}",
        failures.join("\n")
    );
}
