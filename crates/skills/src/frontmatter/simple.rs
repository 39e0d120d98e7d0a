//! A fast reading of the frontmatter most skills have: `key: value` lines of plain or
//! quoted text, with at most one level of nested `key: value` lines (`metadata:`).
//!
//! Loading a catalog of 10,000 skills spent most of its parsing time in the general YAML
//! parser. This reader accepts only a subset whose meaning is unambiguous and gives exactly
//! the value the YAML parser would; anything else (non-ASCII text, comments, blank lines,
//! escapes, lists, folded or multi-line values, numbers, booleans, nulls written as words,
//! duplicate keys…) answers `None`, and the caller uses the YAML parser.

use serde_yaml::{Mapping, Value};

/// The mapping `yaml` holds, or `None` when it is outside the simple subset.
pub(super) fn mapping(yaml: &str) -> Option<Mapping> {
    // Printable ASCII and newlines only: no tabs, control characters or Unicode subtleties.
    if !yaml
        .bytes()
        .all(|b| b == b'\n' || (0x20..0x7f).contains(&b))
    {
        return None;
    }
    let mut out = Mapping::new();
    let mut lines = yaml.lines().peekable();
    while let Some(line) = lines.next() {
        let (key, value) = entry(line)?;
        let value = match value {
            Some(text) => scalar(text)?,
            None => {
                // `key:` alone: a nested block when indented lines follow, else null.
                let indent = lines.peek().map_or(0, |next| leading_spaces(next));
                if indent == 0 {
                    Value::Null
                } else {
                    let mut nested = Mapping::new();
                    while let Some(next) = lines.next_if(|l| leading_spaces(l) > 0) {
                        if leading_spaces(next) != indent {
                            return None;
                        }
                        let (k, v) = entry(&next[indent..])?;
                        let v = scalar(v?)?;
                        insert(&mut nested, k, v)?;
                    }
                    Value::Mapping(nested)
                }
            }
        };
        insert(&mut out, key, value)?;
    }
    Some(out)
}

/// Adds `key`, refusing duplicates (the YAML parser reports those as errors).
fn insert(map: &mut Mapping, key: &str, value: Value) -> Option<()> {
    let key = Value::String(key.to_string());
    if map.contains_key(&key) {
        return None;
    }
    map.insert(key, value);
    Some(())
}

fn leading_spaces(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// `key: value` (value `Some`) or `key:` (value `None`), with a key that reads as text.
fn entry(line: &str) -> Option<(&str, Option<&str>)> {
    let (key, rest) = line.split_once(':')?;
    if !plain_word(key) {
        return None;
    }
    match rest {
        "" => Some((key, None)),
        _ => Some((key, Some(rest.strip_prefix(' ')?))),
    }
}

/// A key of letters, digits, `-` and `_`, starting with a letter, that YAML reads as text.
fn plain_word(key: &str) -> bool {
    // YAML limits implicit keys to 1024 characters.
    key.len() <= 128
        && key.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !reserved(key)
}

/// Words YAML reads as null or a boolean rather than text.
fn reserved(word: &str) -> bool {
    matches!(
        word,
        "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
    )
}

/// One value on the rest of the line: plain text starting with a letter, or text in single
/// or double quotes without quotes or escapes inside.
fn scalar(text: &str) -> Option<Value> {
    if text.ends_with(' ') {
        return None;
    }
    let quoted = |q: char| {
        text.strip_prefix(q)?
            .strip_suffix(q)
            .filter(|inner| !inner.contains(q) && !inner.contains('\\'))
    };
    if let Some(inner) = quoted('"').or_else(|| quoted('\'')) {
        return Some(Value::String(inner.to_string()));
    }
    let plain = text.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        // A colon before a space or at the end would start a mapping, ` #` a comment.
        && !text.contains(": ")
        && !text.ends_with(':')
        && !text.contains(" #")
        && !reserved(text);
    plain.then(|| Value::String(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input: the fast reading, when it gives one, equals the YAML parser's.
    fn agrees(yaml: &str) -> bool {
        let fast = mapping(yaml);
        if let Some(fast) = &fast {
            let full: Value = serde_yaml::from_str(yaml).unwrap();
            assert_eq!(Value::Mapping(fast.clone()), full, "{yaml:?}");
        }
        fast.is_some()
    }

    #[test]
    fn the_usual_frontmatter_is_read_without_the_yaml_parser_and_alike() {
        assert!(agrees(
            "name: pdf\ndescription: Use this skill to read PDFs, forms and tables (fast).\nlicense: Apache-2.0\nmetadata:\n  author: bench\n  version: \"1.2\"\n"
        ));
        assert!(agrees("name: a\ndescription: 'quoted: text # here'\n"));
        assert!(agrees("name: a\nmetadata:\ndescription: d\n"));
        assert!(agrees("name: a\ndescription: \"\"\nx: ''\n"));
        assert!(agrees(
            "name: a\ndescription: colons:inside and c#sharp and [brackets], {braces}\n"
        ));
        assert!(agrees("name: a\nallowed-tools: Read Write\n"));
        assert!(agrees(
            "name: a\nmetadata:\n    deep: one\n    other: two\nlicense: MIT\n"
        ));
    }

    #[test]
    fn anything_outside_the_simple_subset_goes_to_the_yaml_parser() {
        for yaml in [
            "name: a\ndescription: 1.5\n",
            "name: a\ndescription: true\n",
            "name: a\ndescription: ~\n",
            "name: a\ndescription: null\n",
            "name: a\ndescription: yes # comment\n",
            "name: a\n# comment\n",
            "name: a\n\ndescription: d\n",
            "name: a\ndescription: >\n  folded\n",
            "name: a\ndescription: first\n  continued\n",
            "name: a\ndescription: \"esc\\\"aped\"\n",
            "name: a\ndescription: 'it''s'\n",
            "name: a\ndescription: trailing \n",
            "name: a\ndescription: ends with:\n",
            "name: a\ndescription: a: b\n",
            "name: a\nname: b\n",
            "name: a\nmetadata:\n  k: v\n  k: w\n",
            "name: a\nmetadata:\n  k: v\n   j: w\n",
            "name: a\nmetadata:\n  k:\n    deeper: v\n",
            "name: a\ntags: [a, b]\n",
            "name: a\ntags:\n  - a\n",
            "name: a\ndescription: caf\u{e9}\n",
            "name: a\ndescription: tab\there\n",
            "name: a\ndescription: *alias\n",
            "name: a\ndescription: !tag x\n",
            "name: a\ndescription: -dash\n",
            "name: a\n123: x\n",
            "name: a\ntrue: x\n",
            "name: a\n\"quoted key\": x\n",
            "name:a\n",
            " name: a\n",
            "---\n",
        ] {
            assert!(mapping(yaml).is_none(), "{yaml:?}");
        }
    }

    #[test]
    fn generated_variations_agree_with_the_yaml_parser() {
        let values = [
            "plain text",
            "x",
            "Word: not",
            "a:b",
            "a #b",
            "a# b",
            "\"dq\"",
            "'sq'",
            "\"a 'b' c\"",
            "'a \"b\" c'",
            "nullable",
            "True story",
            "infinity",
            "inf",
            "nan",
            "NaN",
            "e5",
            "on",
            "no",
            "y",
            "Yes",
            "0x1F",
            "v1.0",
            "a, b, c",
            "a - b",
            "a ? b",
            "a | b > c",
            "a % b @ c ` d",
            "trailing.",
            "with  two  spaces",
        ];
        let mut accepted = 0;
        for (i, v) in values.iter().enumerate() {
            for w in values.iter().skip(i % 3).step_by(3) {
                let yaml = format!("name: n\ndescription: {v}\nmetadata:\n  k: {w}\n  k2: {v}\n");
                accepted += usize::from(agrees(&yaml));
                let yaml = format!("name: n\nother: {w}\ndescription: {v}\n");
                accepted += usize::from(agrees(&yaml));
            }
        }
        assert!(
            accepted > 100,
            "most variations take the fast path: {accepted}"
        );
    }
}
