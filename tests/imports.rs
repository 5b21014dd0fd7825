//! The engine's modules import in one direction only: each may use the modules its
//! line of [`LAYERS`] names and no other. Read from the `crate::` paths of `src/`
//! (comments and test modules left out), so an arrow pointing the wrong way fails here
//! instead of growing into a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every top-level module of the library and what it may import, from the bottom up.
/// `error` is the crate's vocabulary, outside the order: every module may return it,
/// and it names the ids and the scene's errors it carries.
const LAYERS: &[(&str, &[&str])] = &[
    ("rng", &[]),
    ("trace", &[]),
    ("math", &["rng"]),
    ("quality", &["math", "rng"]),
    ("integrate", &["math"]),
    ("combine", &["math", "rng"]),
    ("scene", &["math", "rng"]),
    ("spatial", &["math", "rng"]),
    ("behaviours", &["math", "rng", "integrate", "scene"]),
    ("agents", &["behaviours", "integrate", "math", "rng"]),
    ("group", &["agents", "behaviours", "combine"]),
    ("memory", &["spatial"]),
    (
        "steer",
        &[
            "agents",
            "behaviours",
            "combine",
            "group",
            "integrate",
            "math",
            "rng",
            "scene",
            "spatial",
            "trace",
        ],
    ),
    (
        "world",
        &[
            "agents",
            "behaviours",
            "combine",
            "group",
            "integrate",
            "math",
            "memory",
            "rng",
            "scene",
            "spatial",
            "steer",
            "trace",
        ],
    ),
    (
        "scenario",
        &[
            "agents",
            "behaviours",
            "combine",
            "group",
            "integrate",
            "math",
            "memory",
            "quality",
            "rng",
            "scene",
            "spatial",
            "world",
        ],
    ),
    (
        "capi",
        &[
            "agents",
            "behaviours",
            "combine",
            "group",
            "integrate",
            "math",
            "memory",
            "rng",
            "scenario",
            "scene",
            "spatial",
            "world",
        ],
    ),
];

/// What `error` may name.
const ERROR_NAMES: &[&str] = &["agents", "scene"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `.rs` files under `dir`, test files left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// `code` without its inline test module (`#[cfg(test)] mod tests { ... }`), found by
/// counting braces.
fn without_test_module(code: &str) -> String {
    let Some(start) = code.find("#[cfg(test)]\nmod tests {") else {
        return code.to_string();
    };
    let open = start + code[start..].find('{').unwrap_or(0);
    let mut depth = 0usize;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return format!("{}{}", &code[..start], &code[open + i + 1..]);
                }
            }
            _ => {}
        }
    }
    code[..start].to_string()
}

/// The modules `code` names as `crate::NAME`, comments and an inline test module left
/// out.
fn named(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = without_test_module(code);
    let mut found = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for (i, _) in line.match_indices("crate::") {
            let name: String = line[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if modules.contains(&name) {
                found.insert(name);
            }
        }
    }
    found
}

/// Every import arrow between top-level modules: (from, to) → the files that draw it.
fn arrows() -> BTreeMap<(String, String), BTreeSet<String>> {
    let root = src();
    let modules: BTreeSet<String> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| !matches!(m.as_str(), "lib" | "bin"))
        .collect();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut arrows: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&root).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        if !modules.contains(&top) {
            continue;
        }
        for to in named(&fs::read_to_string(&file).unwrap(), &modules) {
            if to != top {
                let key = (top.clone(), to);
                arrows
                    .entry(key)
                    .or_default()
                    .insert(rel.display().to_string());
            }
        }
    }
    arrows
}

#[test]
fn every_module_imports_only_what_its_layer_allows() {
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut wrong = Vec::new();
    for ((from, to), files) in arrows() {
        let ok = match (from.as_str(), to.as_str()) {
            (_, "error") => true,
            ("error", to) => ERROR_NAMES.contains(&to),
            (from, to) => match allowed.get(from) {
                Some(may) => may.contains(&to),
                None => {
                    wrong.push(format!("{from} is not in LAYERS: give it its place"));
                    continue;
                }
            },
        };
        if !ok {
            wrong.push(format!("{from} imports {to} (in {files:?})"));
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows the wrong way:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_layers_form_no_circle() {
    // Each module may import only modules listed above it.
    let mut seen = BTreeSet::new();
    for (module, may) in LAYERS {
        for m in *may {
            assert!(seen.contains(m), "{module} may import {m}, listed later");
        }
        seen.insert(*module);
    }
}

#[test]
fn the_check_sees_an_arrow() {
    // A hand-made file body: a `use` line, a path in code, a comment and a test
    // module, which is left out.
    let modules: BTreeSet<String> = ["world", "spatial", "math", "steer"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let code = "use crate::world::World;\nfn f() { crate::spatial::g(); }\n\
                // crate::math::h\n#[cfg(test)]\nmod tests {\n use crate::steer::x;\n}\n\
                fn after() { crate::math::h(); }\n";
    let found: Vec<String> = named(code, &modules).into_iter().collect();
    assert_eq!(found, ["math", "spatial", "world"]);
    // And the library's real arrows include the one every tick takes.
    assert!(arrows().contains_key(&("world".to_string(), "steer".to_string())));
}
