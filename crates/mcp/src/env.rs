//! `$VAR` and `${VAR}` in a server's environment and headers: expanded from the server's
//! own environment when connecting, and otherwise only ever shown as the names they use.

/// One piece of a configured value.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Var(&'a str),
}

fn pieces(value: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        if at > 0 {
            out.push(Piece::Text(&rest[..at]));
        }
        let after = &rest[at + 1..];
        let (name, next) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => ("", after),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if valid {
            out.push(Piece::Var(name));
            rest = next;
        } else {
            // A lone `$` (or `${` without a name) is text.
            out.push(Piece::Text("$"));
            rest = after;
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// The variables a value names, in order, each once.
pub fn variables(value: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in pieces(value) {
        if let Piece::Var(n) = p
            && !names.iter().any(|x| x == n)
        {
            names.push(n.to_string());
        }
    }
    names
}

/// Whether a value holds text of its own besides variables (which may be a secret).
pub fn has_literal(value: &str) -> bool {
    pieces(value)
        .iter()
        .any(|p| matches!(p, Piece::Text(t) if !t.trim().is_empty()))
}

/// The value with its variables replaced by `lookup`; an unset variable is an error naming
/// it (a server must not start with an empty key).
pub fn expand(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    for p in pieces(value) {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(name) => match lookup(name) {
                Some(v) => out.push_str(&v),
                None => return Err(format!("the variable {name} is not set")),
            },
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".into()),
            "HOST" => Some("example.com".into()),
            _ => None,
        }
    }

    #[test]
    fn both_forms_expand_and_unset_variables_are_named() {
        assert_eq!(expand("Bearer ${TOKEN}", lookup).unwrap(), "Bearer s3cret");
        assert_eq!(
            expand("$HOST:80/$TOKEN", lookup).unwrap(),
            "example.com:80/s3cret"
        );
        assert_eq!(expand("cost $5 and $", lookup).unwrap(), "cost $5 and $");
        assert_eq!(expand("${", lookup).unwrap(), "${");
        assert!(expand("$MISSING", lookup).unwrap_err().contains("MISSING"));
    }

    #[test]
    fn analysis_names_variables_without_values() {
        assert_eq!(variables("Bearer ${TOKEN} $TOKEN $HOST"), ["TOKEN", "HOST"]);
        assert!(has_literal("Bearer ${TOKEN}"));
        assert!(!has_literal("${TOKEN}"));
        assert!(has_literal("sk-live-123"));
    }
}
