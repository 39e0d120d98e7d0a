//! Frontmatter parsing tests.
use super::*;

#[test]
fn parses_plain_frontmatter_and_body() {
    let p = parse("---\nname: pdf\ndescription: Work with PDFs.\n---\n# PDF\nBody\n").unwrap();
    assert_eq!(p.frontmatter.name.as_deref(), Some("pdf"));
    assert_eq!(
        p.frontmatter.description.as_deref(),
        Some("Work with PDFs.")
    );
    assert_eq!(p.body, "# PDF\nBody\n");
    assert!(p.warnings.is_empty());
}

#[test]
fn accepts_crlf_line_endings() {
    let p = parse("---\r\nname: pdf\r\ndescription: d\r\n---\r\nline1\r\nline2\r\n").unwrap();
    assert_eq!(p.frontmatter.name.as_deref(), Some("pdf"));
    assert_eq!(p.body, "line1\nline2\n");
}

#[test]
fn accepts_a_missing_trailing_newline_after_the_closing_fence() {
    let p = parse("---\nname: pdf\ndescription: d\n---").unwrap();
    assert_eq!(p.frontmatter.name.as_deref(), Some("pdf"));
    assert_eq!(p.body, "");
    let p = parse("---\nname: pdf\ndescription: d\n---\nno newline at end").unwrap();
    assert_eq!(p.body, "no newline at end");
}

#[test]
fn strips_a_utf8_bom() {
    let p = parse("\u{feff}---\nname: pdf\ndescription: d\n---\n").unwrap();
    assert_eq!(p.frontmatter.name.as_deref(), Some("pdf"));
}

#[test]
fn reads_folded_and_literal_blocks() {
    let folded = parse("---\nname: a\ndescription: >\n  one\n  two\n---\n").unwrap();
    assert_eq!(folded.frontmatter.description.as_deref(), Some("one two"));
    let literal = parse("---\nname: a\ndescription: |\n  one\n  two\n---\n").unwrap();
    assert_eq!(literal.frontmatter.description.as_deref(), Some("one\ntwo"));
}

#[test]
fn a_dashes_line_inside_the_body_does_not_end_anything() {
    let p = parse("---\nname: a\ndescription: d\n---\nintro\n---\nmore\n").unwrap();
    assert_eq!(p.body, "intro\n---\nmore\n");
}

#[test]
fn reads_optional_fields_and_both_allowed_tools_forms() {
    let text = "---\nname: a\ndescription: d\nlicense: MIT\ncompatibility: needs python3\nmetadata:\n  author: me\n  version: 1.0\nallowed-tools: Bash(git:*) Read\n---\n";
    let p = parse(text).unwrap();
    let fm = &p.frontmatter;
    assert_eq!(fm.license.as_deref(), Some("MIT"));
    assert_eq!(fm.compatibility.as_deref(), Some("needs python3"));
    assert_eq!(fm.metadata.get("author").map(String::as_str), Some("me"));
    assert_eq!(fm.metadata.get("version").map(String::as_str), Some("1.0"));
    assert_eq!(fm.allowed_tools, vec!["Bash(git:*)", "Read"]);
    assert_eq!(
        p.warnings.len(),
        1,
        "the numeric metadata value is reported"
    );
    let list =
        parse("---\nname: a\ndescription: d\nallowed-tools:\n  - Read\n  - Write\n---\n").unwrap();
    assert_eq!(list.frontmatter.allowed_tools, vec!["Read", "Write"]);
}

#[test]
fn keeps_unknown_keys_and_warns() {
    let p = parse("---\nname: a\ndescription: d\nversion: 2\ntags: [x]\n---\n").unwrap();
    assert_eq!(p.frontmatter.extra.len(), 2);
    assert_eq!(p.warnings.len(), 2);
    assert!(
        p.warnings[0].message.contains("'version'"),
        "{:?}",
        p.warnings
    );
    assert_eq!(p.warnings[0].code, "unknown-key");
}

#[test]
fn refuses_missing_or_unclosed_frontmatter() {
    assert_eq!(
        parse("# no frontmatter\n"),
        Err(ParseError::MissingFrontmatter)
    );
    assert_eq!(parse(""), Err(ParseError::MissingFrontmatter));
    assert_eq!(
        parse("---\nname: a\ndescription: d\n"),
        Err(ParseError::UnclosedFrontmatter)
    );
}

#[test]
fn refuses_unparseable_yaml_and_wrong_shapes() {
    assert!(matches!(
        parse("---\nname: [unclosed\n---\n"),
        Err(ParseError::Yaml(_))
    ));
    assert!(matches!(
        parse("---\n- a\n- b\n---\n"),
        Err(ParseError::Shape(_))
    ));
    assert!(matches!(
        parse("---\nname: a\ndescription: {x: 1}\n---\n"),
        Err(ParseError::Shape(_))
    ));
}

#[test]
fn real_world_shapes_of_optional_fields_are_read_as_text_with_warnings() {
    let p = parse(
        "---\nname: chart-visualization\ndescription: Charts.\n\
         compatibility:\n  python: '>=3.10'\n  node: 18\n\
         license: [MIT, Apache-2.0]\n\
         metadata:\n  trigger-keywords: [chart, plot]\n  nested: {a: 1}\n  version: 2\n\
         allowed-tools: [Bash, 3]\n---\nbody\n",
    )
    .unwrap();
    let fm = &p.frontmatter;
    assert_eq!(
        fm.compatibility.as_deref(),
        Some(r#"{"python":">=3.10","node":18}"#)
    );
    assert_eq!(fm.license.as_deref(), Some("MIT, Apache-2.0"));
    assert_eq!(fm.metadata["trigger-keywords"], "chart, plot");
    assert_eq!(fm.metadata["nested"], r#"{"a":1}"#);
    assert_eq!(fm.metadata["version"], "2");
    assert_eq!(fm.allowed_tools, ["Bash", "3"]);
    let codes: Vec<_> = p.warnings.iter().map(|w| w.code).collect();
    assert_eq!(
        codes,
        [
            "field-not-string",
            "field-not-string",
            "metadata-value-not-string",
            "metadata-value-not-string",
            "metadata-value-not-string",
            "allowed-tools-shape"
        ]
    );
    let p = parse("---\nname: a\ndescription: d\nmetadata: [1]\n---\n").unwrap();
    assert!(p.frontmatter.metadata.is_empty());
    assert!(
        p.warnings[0].message.contains("ignored"),
        "{:?}",
        p.warnings
    );
    assert_eq!(p.warnings[0].code, "metadata-not-mapping");
}
