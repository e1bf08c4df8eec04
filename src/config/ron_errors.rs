//! Parse errors in our words: RON reports a position, and for errors about a value not the
//! field it belongs to, so the nearest field name before the position is added.

/// A parse error's message in our words. Errors about a value (wrong type, out of range,
/// unknown variant) do not say which field it belongs to, so the nearest field name before the
/// error position is added.
pub(super) fn describe(error: &ron::error::SpannedError, text: &str) -> String {
    use ron::Error as E;
    let within = |outer: &Option<String>| {
        outer
            .as_ref()
            .map_or(String::new(), |o| format!(" in `{o}`"))
    };
    match &error.code {
        E::NoSuchStructField {
            expected,
            found,
            outer,
        } => format!(
            "unknown field `{found}`{}, expected one of {}",
            within(outer),
            quoted_list(expected)
        ),
        E::MissingStructField { field, outer } => {
            format!("missing field `{field}`{}", within(outer))
        }
        E::DuplicateStructField { field, outer } => {
            format!("duplicate field `{field}`{}", within(outer))
        }
        E::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => with_field(
            format!(
                "unknown variant `{found}`{}, expected one of {}",
                within(outer),
                quoted_list(expected)
            ),
            text,
            error.span.start,
        ),
        other => with_field(lowercase_first(&other.to_string()), text, error.span.start),
    }
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_lowercase().chain(chars).collect())
}

fn with_field(msg: String, text: &str, at: ron::error::Position) -> String {
    match field_before(text, byte_offset(text, at)) {
        Some(field) => format!("{msg} (in field `{field}`)"),
        None => msg,
    }
}

/// Byte offset of a 1-based (line, column in characters) position, clamped to the text.
fn byte_offset(text: &str, at: ron::error::Position) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(at.line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line = &text[line_start.min(text.len())..];
    let col = line
        .char_indices()
        .nth(at.col.saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    line_start + col
}

/// The last `identifier:` in `text[..end]`, skipping strings and comments.
fn field_before(text: &str, end: usize) -> Option<&str> {
    let bytes = &text.as_bytes()[..end.min(text.len())];
    let mut field = None;
    let mut ident: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            ident = Some((start, i));
            continue;
        }
        match (c, next) {
            (b'"', _) => i = skip_string(bytes, i),
            (b'/', Some(b'/')) => i = find(bytes, i, b"\n"),
            (b'/', Some(b'*')) => i = find(bytes, i + 2, b"*/") + 1,
            (b':', _) => field = ident.map(|(s, e)| &text[s..e]).or(field),
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            ident = None;
        }
        i += 1;
    }
    field
}

/// Index of the closing quote of the string starting at `open` (or the end).
fn skip_string(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// Index of the first occurrence of `needle` at or after `from` (or the end).
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.windows(needle.len()).position(|w| w == needle))
        .map_or(bytes.len(), |p| from + p)
}
