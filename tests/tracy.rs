//! With the `tracy` feature, the profiler client listens on loopback only.
//! Run with `cargo test --release --features tracy --test tracy`.
#![cfg(feature = "tracy")]

mod common;

use std::fs;

/// Local addresses of listening TCP sockets on Tracy's port range (8086-8095),
/// as (address hex, port) from /proc/net/tcp and /proc/net/tcp6.
fn tracy_listeners() -> Vec<(String, u16)> {
    let mut out = Vec::new();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // cols[1] = local "ADDR:PORT", cols[3] = state (0A = LISTEN).
            if cols.len() < 4 || cols[3] != "0A" {
                continue;
            }
            let Some((addr, port)) = cols[1].split_once(':') else {
                continue;
            };
            let port = u16::from_str_radix(port, 16).unwrap_or(0);
            if (8086..=8095).contains(&port) {
                out.push((addr.to_string(), port));
            }
        }
    }
    out
}

#[test]
fn tracy_client_starts_and_listens_on_loopback_only() {
    assert!(throng::trace::start(), "the client did not start");
    // Step a world so zones, plots and frame marks are emitted.
    let (mut world, _) = common::flock(500, 3, throng::spatial::IndexKind::KdTree);
    for _ in 0..20 {
        world.step(1.0 / 30.0).unwrap();
    }
    let mut listeners = Vec::new();
    for _ in 0..50 {
        listeners = tracy_listeners();
        if !listeners.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!listeners.is_empty(), "no Tracy listener found");
    for (addr, port) in listeners {
        // 127.0.0.1 is 0100007F in /proc's byte order; ::1 is
        // 00000000000000000000000001000000.
        let loopback = addr == "0100007F" || addr == "00000000000000000000000001000000";
        assert!(loopback, "Tracy listens on {addr}:{port}, not loopback");
    }
}
