//! File names: reducing uploaded names to safe base names, unique within a request.

/// Longest stored file name, in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// A stored file name as [`safe_file_name`] leaves it (what deleting an upload takes): no
/// separator or control character, not starting with a dot, no white space at either end.
/// (Its length limit is in bytes, [`MAX_NAME_BYTES`], which a pattern cannot count.)
pub const PLAIN_FILE_NAME_PATTERN: &str = concat!(
    r"^[^./\\\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]",
    r"(?:[^/\\\x00-\x1F\x7F-\x9F]*",
    r"[^/\\\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000])?$",
);

/// Reduces a client-supplied file name to a safe base name: the last path component (either
/// separator), without control characters or leading dots and spaces, at most 255 bytes with
/// the extension kept. `None` when nothing usable is left.
pub fn safe_file_name(raw: &str) -> Option<String> {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = base.chars().filter(|c| !c.is_control()).collect();
    let cleaned = cleaned.trim().trim_start_matches(['.', ' ']).trim_end();
    if cleaned.is_empty() {
        return None;
    }
    Some(truncate_keeping_extension(cleaned, MAX_NAME_BYTES))
}

fn truncate_keeping_extension(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let (stem, ext) = split_extension(name);
    let ext = if ext.len() > 32 { "" } else { ext };
    let mut cut = max - ext.len();
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{ext}", &stem[..cut])
}

/// (`report`, `.tar.gz`-style last extension `.gz`); a name without a dot has no extension.
pub fn split_extension(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    }
}

/// `name_1.ext`, `name_2.ext`, … the first not in `taken`.
pub fn dedupe(name: &str, taken: &std::collections::HashSet<String>) -> String {
    if !taken.contains(name) {
        return name.to_string();
    }
    let (stem, ext) = split_extension(name);
    (1..)
        .map(|n| truncate_keeping_extension(&format!("{stem}_{n}{ext}"), MAX_NAME_BYTES))
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_names_to_safe_base_names() {
        assert_eq!(safe_file_name("report.pdf").as_deref(), Some("report.pdf"));
        assert_eq!(
            safe_file_name("../../etc/passwd").as_deref(),
            Some("passwd")
        );
        assert_eq!(
            safe_file_name("C:\\Users\\me\\a.txt").as_deref(),
            Some("a.txt")
        );
        assert_eq!(safe_file_name("a\0b\nc.txt").as_deref(), Some("abc.txt"));
        assert_eq!(safe_file_name(".bashrc").as_deref(), Some("bashrc"));
        for empty in ["", ".", "..", "dir/", "  ", "\\"] {
            assert_eq!(safe_file_name(empty), None, "{empty:?}");
        }
        let long = format!("{}.csv", "é".repeat(200));
        let cut = safe_file_name(&long).unwrap();
        assert!(cut.len() <= 255 && cut.ends_with(".csv"), "{cut}");
    }

    /// The pattern the document gives for stored names holds exactly the names
    /// `safe_file_name` leaves as they are (up to its byte limit).
    #[test]
    fn the_published_plain_name_pattern_is_what_safe_file_name_keeps() {
        let pattern = regex::Regex::new(PLAIN_FILE_NAME_PATTERN).unwrap();
        let chars: Vec<char> = (0..0x3100)
            .filter_map(char::from_u32)
            .chain(['\u{FEFF}', '\u{1F600}'])
            .collect();
        let mut names: Vec<String> = Vec::new();
        for &c in &chars {
            for wrap in ["", "a", "a b", ".a"] {
                names.push(c.to_string());
                names.push(format!("{wrap}{c}"));
                names.push(format!("{c}{wrap}"));
                names.push(format!("x{c}y{wrap}"));
            }
        }
        names.extend(["report.pdf", "a..b", "..a", ". a", "a/b", "a\\b"].map(String::from));
        for name in &names {
            let kept = safe_file_name(name).as_deref() == Some(name.as_str());
            assert_eq!(pattern.is_match(name), kept, "{name:?}");
        }
    }

    #[test]
    fn dedupes_with_a_counter_before_the_extension() {
        let mut taken = std::collections::HashSet::new();
        taken.insert("a.txt".to_string());
        assert_eq!(dedupe("a.txt", &taken), "a_1.txt");
        taken.insert("a_1.txt".to_string());
        assert_eq!(dedupe("a.txt", &taken), "a_2.txt");
        taken.insert("Makefile".to_string());
        assert_eq!(dedupe("Makefile", &taken), "Makefile_1");
    }
}
