//! Profile errors, located in the source: file, line, column and key path.
//!
//! Every problem found while reading a profile — a TOML syntax error, an
//! unknown key, a value of the wrong type, or a value that parses but is
//! invalid (a negative count, a NaN weight, a zero-length path) — becomes one
//! [`ProfileError`]. Problems found after parsing are named by their key path
//! (`groups[1].behaviours[0].weight`); [`Locator`] finds that key in the parsed
//! document to give its line and column.

use std::fmt;
use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// A profile that cannot be used, with where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ProfileError {
    /// The profile's file (or `<bundled NAME>` for a bundled profile).
    pub file: String,
    /// 1-based line of the offending text; 0 when the problem has no place
    /// in the file (it could not be read, or it is empty).
    pub line: usize,
    /// 1-based column (in characters) on that line; 0 with `line`.
    pub column: usize,
    /// Dotted key path of the offending value, such as
    /// `groups[0].behaviours[2].weight`; empty for syntax errors and problems
    /// of the whole file.
    pub key: String,
    /// A plain explanation.
    pub message: String,
    /// The text of the offending line, for showing in context.
    pub source_line: Option<String>,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if self.key.is_empty() {
            write!(f, ": {}", self.message)
        } else {
            write!(f, ": `{}`: {}", self.key, self.message)
        }
    }
}

impl ProfileError {
    /// An error about the whole file, with no place in it.
    #[must_use]
    pub fn whole_file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            line: 0,
            column: 0,
            key: String::new(),
            message: message.into(),
            source_line: None,
        }
    }

    /// The error followed by the offending line with a caret under the column,
    /// as a command-line tool would print it.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = format!("error: {self}");
        if let Some(text) = &self.source_line {
            let gutter = self.line.to_string().len();
            let caret_pad: String = text
                .chars()
                .take(self.column.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!(
                "\n{:gutter$} |\n{} | {}\n{:gutter$} | {}^",
                "", self.line, text, "", caret_pad
            ));
        }
        out
    }
}

/// A problem found after parsing, named by key path; located later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    /// Dotted key path.
    pub key: String,
    /// Plain explanation.
    pub message: String,
}

impl Problem {
    pub(crate) fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// Serde's type names in words a profile's author knows: `expected i64` is "a
/// whole number", `expected f32` "a number" (and quoted numbers are pointed out).
fn plain_types(message: &str) -> String {
    let mut m = message.to_string();
    for (rust, plain) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number >= 0"),
        ("expected u32", "expected a whole number >= 0"),
        ("expected f32", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        m = m.replace(rust, plain);
    }
    let quoted_number = m
        .strip_prefix("invalid type: string \"")
        .and_then(|rest| rest.split('"').next())
        .is_some_and(|v| v.parse::<f64>().is_ok());
    if quoted_number {
        m.push_str(" (write it without quotes)");
    }
    m
}

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Split `groups[0].behaviours[2].weight` into steps.
fn parse_path(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, rest) = part.split_once('[').unwrap_or((part, ""));
        if !name.is_empty() {
            steps.push(Step::Key(name.to_string()));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse::<usize>() {
                steps.push(Step::Index(i));
            }
        }
    }
    steps
}

fn render_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Finds keys in a parsed document and turns byte spans into line and column.
pub(crate) struct Locator<'a> {
    file: String,
    src: &'a str,
    root: Option<Spanned<DeTable<'a>>>,
}

impl<'a> Locator<'a> {
    /// A locator over `src`, whose parsed document is `root` (`None` when it did
    /// not parse).
    pub(crate) fn new(file: &str, src: &'a str, root: Option<Spanned<DeTable<'a>>>) -> Self {
        Self {
            file: file.to_string(),
            src,
            root,
        }
    }

    /// An error at a byte span, with an explicit key path.
    pub(crate) fn at_span(&self, span: Range<usize>, key: String, message: String) -> ProfileError {
        let start = span.start.min(self.src.len());
        let line_start = self.src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line = self.src[..start].matches('\n').count() + 1;
        let column = self.src[line_start..start].chars().count() + 1;
        let line_end = self.src[line_start..]
            .find('\n')
            .map_or(self.src.len(), |i| line_start + i);
        let text = self.src[line_start..line_end].trim_end_matches('\r');
        ProfileError {
            file: self.file.clone(),
            line,
            column,
            key,
            message,
            source_line: Some(text.to_string()),
        }
    }

    /// An error from the TOML parser or deserializer: its span gives the place,
    /// and the key path is the innermost key around it. "unknown field `x`"
    /// errors point at the key `x` itself.
    pub(crate) fn toml_error(&self, e: &toml::de::Error) -> ProfileError {
        let message = plain_types(e.message().trim());
        let Some(span) = e.span() else {
            return ProfileError::whole_file(self.file.clone(), message);
        };
        let mut steps = Vec::new();
        let mut span = span;
        if let Some(root) = &self.root {
            let mut best: Option<(Vec<Step>, Range<usize>)> = None;
            let mut path = Vec::new();
            innermost(root.get_ref(), &span, &mut path, &mut best);
            if let Some((p, _)) = best {
                steps = p;
            }
            // Point at the unknown key itself when the error names one.
            if let Some(name) = unknown_field_name(&message) {
                if let Some((k, _)) = lookup(root, &steps)
                    .and_then(|v| v.get_ref().as_table())
                    .and_then(|t| t.iter().find(|(k, _)| k.get_ref().as_ref() == name))
                {
                    span = k.span();
                    steps.push(Step::Key(name.to_string()));
                }
            }
        }
        self.at_span(span, render_path(&steps), message)
    }

    /// Locate a problem by its key path: the key's own span when it is written
    /// in the file, else the nearest enclosing value that is.
    pub(crate) fn problem(&self, p: Problem) -> ProfileError {
        let steps = parse_path(&p.key);
        let Some(root) = &self.root else {
            return ProfileError {
                key: p.key,
                ..ProfileError::whole_file(self.file.clone(), p.message)
            };
        };
        for n in (0..=steps.len()).rev() {
            if let Some(span) = key_span(root, &steps[..n]) {
                return self.at_span(span, p.key, p.message);
            }
        }
        self.at_span(0..0, p.key, p.message)
    }
}

/// The name in a serde "unknown field `name`, expected ..." message.
fn unknown_field_name(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split('`').next()
}

/// The value at `steps`.
fn lookup<'v, 'a>(
    root: &'v Spanned<DeTable<'a>>,
    steps: &[Step],
) -> Option<&'v Spanned<DeValue<'a>>> {
    let mut table = root.get_ref();
    let mut value: Option<&Spanned<DeValue<'a>>> = None;
    for s in steps {
        let next = match (s, value.map(Spanned::get_ref)) {
            (Step::Key(k), None) => table.get(k.as_str()),
            (Step::Key(k), Some(DeValue::Table(t))) => t.get(k.as_str()),
            (Step::Index(i), Some(DeValue::Array(a))) => a.get(*i),
            _ => None,
        }?;
        value = Some(next);
        if let DeValue::Table(t) = next.get_ref() {
            table = t;
        }
    }
    value
}

/// The span of the key (for a table entry) or element (for an array item) at
/// `steps`; for an empty path, the start of the file.
fn key_span(root: &Spanned<DeTable<'_>>, steps: &[Step]) -> Option<Range<usize>> {
    let Some((last, parent)) = steps.split_last() else {
        return Some(0..0);
    };
    match last {
        Step::Key(k) => {
            let table = if parent.is_empty() {
                root.get_ref()
            } else {
                lookup(root, parent)?.get_ref().as_table()?
            };
            table
                .iter()
                .find(|(key, _)| key.get_ref().as_ref() == k.as_str())
                .map(|(key, _)| key.span())
        }
        Step::Index(_) => lookup(root, steps).map(|v| v.span()),
    }
}

/// Depth-first search for the deepest key whose key or value span contains
/// `span`'s start. Array-of-tables elements are searched even when their own
/// span (the `[[header]]`) does not contain it.
fn innermost(
    table: &DeTable<'_>,
    span: &Range<usize>,
    path: &mut Vec<Step>,
    best: &mut Option<(Vec<Step>, Range<usize>)>,
) {
    for (k, v) in table.iter() {
        path.push(Step::Key(k.get_ref().to_string()));
        let hit = contains(&k.span(), span.start) || contains(&v.span(), span.start);
        if hit && best.as_ref().is_none_or(|(p, _)| path.len() > p.len()) {
            *best = Some((path.clone(), v.span()));
        }
        innermost_value(v.get_ref(), span, path, best);
        path.pop();
    }
}

fn innermost_value(
    v: &DeValue<'_>,
    span: &Range<usize>,
    path: &mut Vec<Step>,
    best: &mut Option<(Vec<Step>, Range<usize>)>,
) {
    match v {
        DeValue::Table(t) => innermost(t, span, path, best),
        DeValue::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                path.push(Step::Index(i));
                if contains(&item.span(), span.start)
                    && best.as_ref().is_none_or(|(p, _)| path.len() > p.len())
                {
                    *best = Some((path.clone(), item.span()));
                }
                innermost_value(item.get_ref(), span, path, best);
                path.pop();
            }
        }
        _ => {}
    }
}

fn contains(r: &Range<usize>, at: usize) -> bool {
    r.start <= at && (at < r.end || (r.start == r.end && at == r.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_round_trip() {
        let p = "groups[3].behaviours[0].weight";
        assert_eq!(render_path(&parse_path(p)), p);
        assert_eq!(
            parse_path("a.b[1][2]"),
            vec![
                Step::Key("a".into()),
                Step::Key("b".into()),
                Step::Index(1),
                Step::Index(2)
            ]
        );
    }

    #[test]
    fn type_errors_name_the_type_in_plain_words() {
        assert_eq!(
            plain_types(r#"invalid type: string "300", expected i64"#),
            r#"invalid type: string "300", expected a whole number (write it without quotes)"#
        );
        assert_eq!(
            plain_types(r#"invalid type: string "fast", expected f32"#),
            r#"invalid type: string "fast", expected a number"#
        );
    }

    #[test]
    fn problems_are_located_at_their_key() {
        let src = "[world]\nseed = 1\n\n[[groups]]\nname = \"a\"\ncount = -3\n";
        let root = DeTable::parse(src).ok();
        let loc = Locator::new("x.toml", src, root);
        let e = loc.problem(Problem::new("groups[0].count", "bad"));
        assert_eq!((e.line, e.column), (6, 1));
        assert_eq!(e.source_line.as_deref(), Some("count = -3"));
        // A key that is not written falls back to its table.
        let e = loc.problem(Problem::new("groups[0].spawn", "missing"));
        assert_eq!(e.line, 4);
        let e = loc.problem(Problem::new("world.dt", "x"));
        assert_eq!(e.line, 1);
        assert!(
            e.to_string().starts_with("x.toml:1:2: `world.dt`: x"),
            "{e}"
        );
    }

    #[test]
    fn render_points_at_the_column() {
        let src = "a = 1\nbb = nope\n";
        let loc = Locator::new("f.toml", src, None);
        let e = loc.at_span(11..15, "bb".into(), "not a value".into());
        assert_eq!((e.line, e.column), (2, 6));
        let r = e.render();
        assert!(r.ends_with("2 | bb = nope\n  |      ^"), "{r}");
    }
}
