//! What a person may import from: Git URLs of a few well-known transports, `user@host:path`
//! (SSH), and — from the command line only — local paths.

use std::path::{Path, PathBuf};

use super::ImportError;

/// Transports handed to `git`; everything else (`ext::`, `fd::`, helpers) is refused, here and
/// again through `GIT_ALLOW_PROTOCOL`.
pub const ALLOWED_SCHEMES: &[&str] = &["https", "http", "ssh", "git", "file"];

/// A place skills are imported from.
#[derive(Clone, PartialEq, Eq)]
pub enum Source {
    /// A Git repository.
    Git {
        /// What `git` is given (may carry credentials).
        url: String,
        /// The same without credentials: what is recorded and shown.
        display: String,
    },
    /// A local directory that is not a Git work tree.
    Dir(PathBuf),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print credentials, even in debug output.
        f.write_str(&self.display())
    }
}

impl Source {
    /// The source as recorded and shown: credentials removed.
    pub fn display(&self) -> String {
        match self {
            Source::Git { display, .. } => display.clone(),
            Source::Dir(path) => path.display().to_string(),
        }
    }
}

/// Reads what a person typed. `allow_paths` admits local paths (the command line); the HTTP
/// API takes URLs only (`file://` included, for repositories on the server).
pub fn parse_source(input: &str, allow_paths: bool) -> Result<Source, ImportError> {
    let input = input.trim();
    let invalid = |why: &str| Err(ImportError::InvalidSource(why.to_string()));
    if input.is_empty() {
        return invalid("the source is empty");
    }
    if input.chars().any(char::is_control) {
        return invalid("the source contains control characters");
    }
    if input.starts_with('-') {
        return invalid("the source may not start with '-'");
    }
    if input.contains("::") {
        return invalid("Git transport helpers ('<transport>::<address>') are not allowed");
    }
    if let Some((scheme, _)) = input.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        if !ALLOWED_SCHEMES.contains(&scheme.as_str()) {
            return Err(ImportError::InvalidSource(format!(
                "unsupported URL scheme '{scheme}'; use one of {}",
                ALLOWED_SCHEMES.join(", ")
            )));
        }
        let parsed = url::Url::parse(input)
            .map_err(|e| ImportError::InvalidSource(format!("not a valid URL: {e}")))?;
        if scheme != "file" && parsed.host_str().unwrap_or("").is_empty() {
            return invalid("the URL has no host");
        }
        if scheme == "file" && parsed.path().trim_matches('/').is_empty() {
            return invalid("the file:// URL has no path");
        }
        return Ok(Source::Git {
            url: input.to_string(),
            display: redact(&parsed),
        });
    }
    if is_scp_like(input) {
        return Ok(Source::Git {
            url: input.to_string(),
            display: input.to_string(),
        });
    }
    if !allow_paths {
        return invalid(
            "not a Git URL: use https://, http://, ssh://, git://, file:// or user@host:path",
        );
    }
    local_path(Path::new(input))
}

/// `[user@]host:path` with no slash before the colon (Git's SSH shorthand).
fn is_scp_like(input: &str) -> bool {
    match input.split_once(':') {
        Some((host, path)) => {
            let host = host.rsplit('@').next().unwrap_or(host);
            !host.is_empty()
                && !host.contains('/')
                && !path.is_empty()
                // `C:\…` or `c:/…` is a path, not a host.
                && (host.len() != 1 || input.contains('@'))
        }
        None => false,
    }
}

fn local_path(path: &Path) -> Result<Source, ImportError> {
    let dir = path.canonicalize().map_err(|e| {
        ImportError::InvalidSource(format!("cannot open '{}': {e}", path.display()))
    })?;
    if !dir.is_dir() {
        return Err(ImportError::InvalidSource(format!(
            "'{}' is not a directory",
            dir.display()
        )));
    }
    let is_repo =
        dir.join(".git").exists() || (dir.join("HEAD").is_file() && dir.join("objects").is_dir());
    if !is_repo {
        return Ok(Source::Dir(dir));
    }
    // A `file://` URL, so that `git` honours a shallow fetch (it ignores depth for paths).
    let url = url::Url::from_file_path(&dir)
        .map_err(|()| ImportError::InvalidSource(format!("cannot use '{}'", dir.display())))?;
    Ok(Source::Git {
        url: url.to_string(),
        display: url.to_string(),
    })
}

/// Refuses a source on the server's own file system (a `file://` URL, or a local path)
/// unless it lies inside one of `roots` once links are resolved. Nothing in the refusal says
/// whether the path exists, so the import cannot be used to probe the file system.
pub fn check_file_roots(source: &Source, roots: &[PathBuf]) -> Result<(), ImportError> {
    let path = match source {
        Source::Dir(dir) => dir.clone(),
        Source::Git { url, .. } => {
            let Ok(parsed) = url::Url::parse(url) else {
                return Ok(());
            };
            if parsed.scheme() != "file" {
                return Ok(());
            }
            parsed.to_file_path().unwrap_or_default()
        }
    };
    let refused = || {
        ImportError::InvalidSource(if roots.is_empty() {
            "imports from the server's file system (file://) are off; an admin can allow folders with skills.import.allowed_file_roots".into()
        } else {
            "that path is not inside a folder allowed by skills.import.allowed_file_roots".into()
        })
    };
    if roots.is_empty() {
        return Err(refused());
    }
    let real = path.canonicalize().map_err(|_| refused())?;
    let inside = roots.iter().any(|root| {
        root.canonicalize()
            .is_ok_and(|root| real.starts_with(&root))
    });
    if inside { Ok(()) } else { Err(refused()) }
}

/// `git`'s error text without the server's local paths (an absolute path that is not part
/// of a URL becomes `…`).
pub fn without_local_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('/') {
        let (before, from) = rest.split_at(i);
        out.push_str(before);
        // A path starts a word (or follows a quote); `https://host/path` does not.
        let starts_word = before
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "'\"`(=".contains(c));
        let end = from
            .find(|c: char| c.is_whitespace() || "'\"`)".contains(c))
            .unwrap_or(from.len());
        if starts_word && end > 1 {
            out.push('…');
        } else {
            out.push_str(&from[..end]);
        }
        rest = &from[end..];
    }
    out.push_str(rest);
    out
}

/// The URL without user name or password.
pub fn redact(url: &url::Url) -> String {
    let mut clean = url.clone();
    // Both fail only for URLs that cannot carry credentials at all.
    let _ = clean.set_username("");
    let _ = clean.set_password(None);
    clean.to_string()
}

/// Checks a branch, tag or commit name before it reaches `git`.
pub fn check_ref(name: &str) -> Result<(), ImportError> {
    let ok = !name.is_empty()
        && name.len() <= 255
        && !name.starts_with('-')
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/-+@".contains(c));
    if ok {
        Ok(())
    } else {
        Err(ImportError::InvalidSource(format!(
            "'{name}' is not a branch, tag or commit name"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_accepted_and_redacted() {
        let s = parse_source("https://user:secret@example.com/org/repo.git", false).unwrap();
        assert_eq!(s.display(), "https://example.com/org/repo.git");
        assert!(!format!("{s:?}").contains("secret"));
        assert!(matches!(
            parse_source("git@github.com:org/repo.git", false).unwrap(),
            Source::Git { .. }
        ));
        assert!(matches!(
            parse_source("file:///srv/repo", false).unwrap(),
            Source::Git { .. }
        ));
    }

    #[test]
    fn dangerous_or_odd_sources_are_refused() {
        for bad in [
            "",
            "ext::sh -c touch% /tmp/pwned",
            "fd::17",
            "--upload-pack=touch /tmp/x",
            "ftp://example.com/repo",
            "https://",
            "file://",
            "https://example.com/\nrepo",
            "relative/path",
        ] {
            assert!(
                matches!(parse_source(bad, false), Err(ImportError::InvalidSource(_))),
                "{bad:?} was accepted"
            );
        }
    }

    #[test]
    fn local_paths_only_when_allowed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().to_str().unwrap();
        assert!(parse_source(path, false).is_err());
        assert!(matches!(parse_source(path, true).unwrap(), Source::Dir(_)));
        std::fs::create_dir(tmp.path().join(".git")).unwrap();
        let Source::Git { url, .. } = parse_source(path, true).unwrap() else {
            panic!("a work tree is a Git source");
        };
        assert!(url.starts_with("file:///"), "{url}");
    }

    #[test]
    fn file_sources_must_lie_inside_an_allowed_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repos");
        std::fs::create_dir_all(root.join("a")).unwrap();
        let inside = parse_source(&format!("file://{}", root.join("a").display()), false).unwrap();
        let outside = parse_source("file:///etc", false).unwrap();
        let missing = parse_source("file:///no/such/dir", false).unwrap();
        let escape = parse_source(&format!("file://{}/a/../../", root.display()), false).unwrap();
        let remote = parse_source("https://example.com/r.git", false).unwrap();
        check_file_roots(&remote, &[]).unwrap();
        for refused in [&inside, &outside, &missing] {
            assert!(check_file_roots(refused, &[]).is_err(), "off by default");
        }
        check_file_roots(&inside, std::slice::from_ref(&root)).unwrap();
        let messages: Vec<String> = [&outside, &missing, &escape]
            .iter()
            .map(|s| {
                check_file_roots(s, std::slice::from_ref(&root))
                    .unwrap_err()
                    .to_string()
            })
            .collect();
        assert!(
            messages.windows(2).all(|w| w[0] == w[1]),
            "a missing path reads like any other refusal: {messages:?}"
        );
        // A link inside the root that points out of it is outside.
        std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
        let linked =
            parse_source(&format!("file://{}", root.join("link").display()), false).unwrap();
        assert!(check_file_roots(&linked, std::slice::from_ref(&root)).is_err());
    }

    #[test]
    fn local_paths_are_cut_from_git_messages() {
        assert_eq!(
            without_local_paths("fatal: '/etc/shadow' does not appear to be a git repository"),
            "fatal: '…' does not appear to be a git repository"
        );
        assert_eq!(
            without_local_paths("fatal: repository 'https://example.com/x.git/' not found"),
            "fatal: repository 'https://example.com/x.git/' not found"
        );
        assert_eq!(
            without_local_paths("error: could not lock config file /tmp/x/.git/config: No"),
            "error: could not lock config file … No"
        );
    }

    #[test]
    fn refs_are_checked() {
        for good in ["main", "v1.2.3", "feature/x", "0123abcd"] {
            check_ref(good).unwrap();
        }
        for bad in ["", "-b", "a..b", "a b", "x:y", "a\nb"] {
            assert!(check_ref(bad).is_err(), "{bad:?}");
        }
    }
}
