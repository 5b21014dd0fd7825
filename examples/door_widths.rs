//! Flow through a door against its width: the bundled `bottleneck` room (150 people
//! following a goal field out through one door, ORCA on) with doors 0.8 to 2.5 m
//! wide, beside the human experiments (`docs/pedestrians.md`).
//!
//! ```sh
//! cargo run --release --example door_widths             # the suite's bodies
//! cargo run --release --example door_widths -- people   # people-sized bodies
//! cargo run --release --example door_widths -- people 'avoidance = { time_horizon = 1.0 }'
//! cargo run --release --example door_widths -- preset   # `bottleneck_people`: the
//!                                                       # pedestrian preset, with the
//!                                                       # room's squeeze and keep-right
//! cargo run --release --example door_widths -- preset --plot docs/door-flow.svg
//! ```
//!
//! "people": shoulder radius 0.22 m and a free speed of 1.34 m/s (Weidmann's), the
//! rest as the profile has it; a second argument replaces the group's `avoidance`
//! line (with `preset` too: a newline in it adds keys, `max_speed_spread = 0.26`
//! say). The quality counter samples every tick (0.1 s), so that no crossing falls
//! between two samples. `--plot FILE` also draws the flow against the width beside
//! the experiments' (an SVG).

#[path = "plot/mod.rs"]
mod plot;

use plot::{Chart, Kind, Series};
use throng::quality::{QualityCounter, QualitySettings};
use throng::scenario::{self, Scenario};

/// The door widths measured (m), as the experiments span them.
const WIDTHS: [f32; 6] = [0.8, 1.0, 1.2, 1.6, 2.0, 2.5];

/// Ticks at most (0.1 s each).
const TICKS: u64 = 4000;

/// Flow (persons/s) through doors of a width (m) as people gave it: Kretz,
/// Grünebohm, Schreckenberg 2006; Seyfried et al. 2009; Liddle et al. 2011.
const PEOPLE: [(&str, &[(f32, f32)]); 3] = [
    (
        "people: Kretz et al. 2006",
        &[
            (0.4, 0.88),
            (0.5, 1.02),
            (0.6, 1.12),
            (0.7, 1.23),
            (0.8, 1.43),
            (0.9, 1.58),
            (1.0, 1.85),
            (1.2, 2.15),
        ],
    ),
    (
        "people: Seyfried et al. 2009",
        &[
            (0.8, 1.29),
            (0.9, 1.68),
            (1.0, 1.90),
            (1.1, 2.12),
            (1.2, 2.37),
        ],
    ),
    (
        "people: Liddle et al. 2011",
        &[
            (0.9, 1.71),
            (1.0, 2.02),
            (1.2, 2.53),
            (1.6, 3.11),
            (2.0, 3.91),
            (2.5, 5.55),
        ],
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let plot_to = plot::plot_arg(&mut args)?;
    let mode = args.first().cloned();
    let people = mode.as_deref() == Some("people");
    let preset = mode.as_deref() == Some("preset");
    let avoidance = args.get(1).cloned();
    let mut flows = Vec::new();
    // The room: the bundled `bottleneck` (door 2 m), or `bottleneck_people` (1.2 m).
    let (name, door) = if preset {
        ("bottleneck_people", "0.6")
    } else {
        ("bottleneck", "1")
    };
    let source = scenario::bundled(name)
        .ok_or("no bundled bottleneck")?
        .source;
    println!("| door (m) | through | first to last (s) | flow (persons/s) | specific flow (persons/(m·s)) | deep overlaps |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for width in WIDTHS {
        let half = width / 2.0;
        let mut text = source
            .replace(
                &format!("[0, -12, 0, -{door}], [0, {door}, 0, 12]"),
                &format!("[0, -12, 0, -{half}], [0, {half}, 0, 12]"),
            )
            .replace(
                &format!("line = [0, -{door}, 0, {door}]"),
                &format!("line = [0, -{half}, 0, {half}]"),
            )
            .replace("ticks = 2400", &format!("ticks = {TICKS}"));
        if people {
            text = text
                .replace("radius = 0.4", "radius = 0.22")
                .replace("max_speed = 1.4", "max_speed = 1.34");
        }
        if let Some(line) = &avoidance {
            let own = if preset {
                "avoidance = { preset = \"pedestrian\", squeeze = 0.2, side_bias = 1.2 }"
            } else {
                "avoidance = {}"
            };
            text = text.replace(&format!("\n{own}\n"), &format!("\n{line}\n"));
        }
        let profile = scenario::parse_profile(&text, "bottleneck.toml")?;
        let mut sc = Scenario::build(&profile)?;
        let mut counter = QualityCounter::new(QualitySettings {
            gates: sc.layout().gates.clone(),
            ..QualitySettings::default()
        });
        let dt = profile.world.dt;
        counter.sample_world(0.0, sc.world());
        for t in 1..=TICKS {
            sc.step()?;
            counter.sample_world(t as f32 * dt, sc.world());
            if sc.world().is_empty() {
                break;
            }
        }
        let q = counter.summary();
        let door = q.gates.first().ok_or("no door gate")?;
        // Between the first crossing and the last, as the counter's specific flow.
        let (span, flow, specific) = match (door.first, door.last, door.flow) {
            (Some(first), Some(last), Some(specific)) => {
                let flow = (door.crossed - 1) as f32 / (last - first);
                flows.push((width, flow));
                (
                    format!("{:.1}", last - first),
                    format!("{flow:.2}"),
                    format!("{specific:.2}"),
                )
            }
            _ => ("—".into(), "—".into(), "—".into()),
        };
        println!(
            "| {width} | {} | {span} | {flow} | {specific} | {:.4} |",
            door.crossed, q.deep_pairs_per_agent_sample,
        );
    }
    if let Some(path) = plot_to {
        let bodies = if preset {
            "the bottleneck_people room"
        } else if people {
            "people-sized bodies, ORCA's defaults"
        } else {
            "the suite's bodies (radius 0.4 m)"
        };
        let measured = Series {
            label: format!("throng: {bodies}"),
            points: flows,
            kind: Kind::Measured,
        };
        let people = PEOPLE.iter().map(|(label, points)| Series {
            label: label.to_string(),
            points: points.to_vec(),
            kind: Kind::Published,
        });
        plot::write(
            &path,
            &Chart {
                title: "Flow through a door against its width (150 leaving a room)",
                x: ("door width (m)", 0.3..2.7),
                y: ("flow (persons/s)", 0.0..6.0),
            },
            &std::iter::once(measured).chain(people).collect::<Vec<_>>(),
        )?;
        println!("\nwrote {}", path.display());
    }
    Ok(())
}
