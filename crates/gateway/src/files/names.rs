//! `Content-Disposition` for served files (their names were made safe when stored).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// RFC 5987 `attr-char`: everything else is percent-encoded.
const ATTR: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

/// `attachment` or `inline` with an ASCII fallback `filename` and a UTF-8 `filename*`
/// (RFC 6266).
pub fn content_disposition(attachment: bool, name: &str) -> String {
    let kind = if attachment { "attachment" } else { "inline" };
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!(
        "{kind}; filename=\"{fallback}\"; filename*=UTF-8''{}",
        utf8_percent_encode(name, ATTR)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_disposition_has_an_ascii_fallback_and_utf8_name() {
        assert_eq!(
            content_disposition(true, "résumé \"final\".pdf"),
            "attachment; filename=\"r_sum_ _final_.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf"
        );
        assert!(content_disposition(false, "a.md").starts_with("inline; filename=\"a.md\""));
    }
}
