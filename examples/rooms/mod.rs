//! The bundled rooms of people with their door made another width: shared by the
//! examples and tests that measure flow against width.

/// `text` with `from` replaced by `to`; an error if `from` is not in it (the bundled
/// profile changed under its reader).
pub fn swap(text: &str, from: &str, to: &str) -> Result<String, String> {
    if text.contains(from) {
        Ok(text.replace(from, to))
    } else {
        Err(format!("the profile has no {from:?}"))
    }
}

/// The experiments' room (the bundled `bottleneck_experiment`, `source`) with its
/// bottleneck `width` wide: the bottleneck's walls and its gate moved.
pub fn experiment(source: &str, width: f32) -> Result<String, String> {
    let h = width / 2.0;
    [
        (
            "[0, -4, 0, -0.6], [0, 0.6, 0, 4]".to_string(),
            format!("[0, -4, 0, -{h}], [0, {h}, 0, 4]"),
        ),
        (
            "[0, -0.6, 2, -0.6], [0, 0.6, 2, 0.6]".into(),
            format!("[0, -{h}, 2, -{h}], [0, {h}, 2, {h}]"),
        ),
        (
            "line = [1, -0.6, 1, 0.6]".into(),
            format!("line = [1, -{h}, 1, {h}]"),
        ),
    ]
    .iter()
    .try_fold(source.to_string(), |text, (from, to)| swap(&text, from, to))
}
