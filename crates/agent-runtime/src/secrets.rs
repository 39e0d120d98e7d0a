//! Secrets a run may hand its commands, and their redaction.
//!
//! An admin grants each secret to agents (by assistant id, `*` for every agent) and to
//! skills (by name), or lists it in an agent's `secrets`. A run's commands get, as
//! environment variables, the secrets granted to its agent or listed by it, and those granted
//! to a skill the run uses: one whose folder under `/mnt/skills/` one of its tool calls named
//! (reading the `SKILL.md`, running a script).
//! Every value of every secret is replaced by `[secret:NAME]` in what leaves the sandbox:
//! tool results (so stored messages and streamed events), custom events, and listings.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock, Mutex};

use aho_corasick::{AhoCorasick, MatchKind};
use async_trait::async_trait;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};
use regex::Regex;
use serde_json::Value;

/// What a URL path leaves as it is (RFC 3986's unreserved characters).
const URL_ENCODED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Shortest piece of a value masked where output was cut through it.
const MIN_PIECE: usize = 4;

/// One secret as runs see it (decrypted).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    /// Its name, also the environment variable it becomes.
    pub name: String,
    /// Its value.
    pub value: String,
    /// Assistant ids whose runs receive it (`*`: every agent).
    pub agents: Vec<String>,
    /// Skill names whose use in a run gives it to the run.
    pub skills: Vec<String>,
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secret")
            .field("name", &self.name)
            .field("agents", &self.agents)
            .field("skills", &self.skills)
            .finish_non_exhaustive()
    }
}

/// Every secret at one moment, with the matcher that finds their values.
#[derive(Debug, Default)]
pub struct SecretSet {
    secrets: Vec<Secret>,
    matcher: Option<AhoCorasick>,
    /// What each pattern of the matcher is replaced by (`[secret:NAME]`).
    replacements: Vec<String>,
}

impl SecretSet {
    /// The set of `secrets`.
    pub fn new(secrets: Vec<Secret>) -> Self {
        // Each value as it is and as it reads inside JSON text (a log line quoting a request
        // body escapes quotes and backslashes).
        let mut patterns = Vec::new();
        let mut replacements = Vec::new();
        for s in &secrets {
            let masked = format!("[secret:{}]", s.name);
            patterns.push(s.value.clone());
            replacements.push(masked.clone());
            let quoted = serde_json::to_string(&s.value).unwrap_or_default();
            let escaped = quoted
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .unwrap_or_default();
            if !escaped.is_empty() && escaped != s.value {
                patterns.push(escaped.to_string());
                replacements.push(masked.clone());
            }
            // As a URL carries it (a file named after the value, in a listing's link).
            let encoded = percent_encoding::utf8_percent_encode(&s.value, URL_ENCODED).to_string();
            if encoded != s.value {
                patterns.push(encoded);
                replacements.push(masked);
            }
        }
        let matcher = if patterns.is_empty() {
            None
        } else {
            // Longest first where values overlap, so one secret inside another is not left
            // half shown; case-blind (ASCII), as host names are lower-cased on the way.
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .ascii_case_insensitive(true)
                .build(&patterns)
                .ok()
        };
        SecretSet {
            secrets,
            matcher,
            replacements,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret value replaced by `[secret:NAME]`.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let Some(matcher) = &self.matcher else {
            return Cow::Borrowed(text);
        };
        if !matcher.is_match(text) {
            return Cow::Borrowed(text);
        }
        Cow::Owned(matcher.replace_all(text, &self.replacements))
    }

    /// `text` redacted, and where it was cut (`marker` ends its head, and its tail follows),
    /// a value's start just before the cut or its end just after it is masked too: a value
    /// the cut went through would otherwise leave its halves.
    pub fn redact_cut(&self, text: &str, marker: &regex::Regex) -> String {
        let text = self.redact(text).into_owned();
        if self.secrets.is_empty() {
            return text;
        }
        let Some(found) = marker.find(&text) else {
            return text;
        };
        let (head, cut, tail) = (&text[..found.start()], found.as_str(), &text[found.end()..]);
        let mut head = head.to_string();
        let mut tail = tail.to_string();
        for s in &self.secrets {
            let v = s.value.as_str();
            let masked = format!("[secret:{}]", s.name);
            // The longest start of the value that ends the head.
            if let Some(k) = (MIN_PIECE..v.len())
                .rev()
                .filter(|k| v.is_char_boundary(*k))
                .find(|k| head.ends_with(&v[..*k]))
            {
                head.truncate(head.len() - k);
                head.push_str(&masked);
            }
            if let Some(k) = (1..=v.len() - MIN_PIECE.min(v.len()))
                .filter(|k| v.is_char_boundary(*k))
                .find(|k| tail.starts_with(&v[*k..]))
            {
                tail.replace_range(..v.len() - k, &masked);
            }
        }
        format!("{head}{cut}{tail}")
    }

    /// Redacts every string (and key) inside `value`.
    pub fn redact_json(&self, value: &mut Value) {
        if self.matcher.is_none() {
            return;
        }
        match value {
            Value::String(s) => {
                if let Cow::Owned(r) = self.redact(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_json(v)),
            Value::Object(map) => {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let Some(mut v) = map.remove(&key) else {
                        continue;
                    };
                    self.redact_json(&mut v);
                    map.insert(self.redact(&key).into_owned(), v);
                }
            }
            _ => {}
        }
    }

    fn granted(
        &self,
        agent: &str,
        listed: &[String],
        used: &BTreeSet<String>,
    ) -> Vec<(String, String)> {
        self.secrets
            .iter()
            .filter(|s| {
                listed.contains(&s.name)
                    || s.agents.iter().any(|a| a == "*" || a == agent)
                    || s.skills.iter().any(|k| used.contains(k))
            })
            .map(|s| (s.name.clone(), s.value.clone()))
            .collect()
    }

    fn wants_skills(&self) -> bool {
        self.secrets.iter().any(|s| !s.skills.is_empty())
    }
}

/// The secrets the server's log is redacted with (the latest set any service read).
static FOR_LOGS: std::sync::RwLock<Option<Arc<SecretSet>>> = std::sync::RwLock::new(None);

/// Makes `set` the one log lines are redacted with.
pub fn redact_logs_with(set: Arc<SecretSet>) {
    if let Ok(mut current) = FOR_LOGS.write() {
        *current = Some(set);
    }
}

/// `line` with every secret value the log knows of replaced by its name.
pub fn redact_log_line(line: &[u8]) -> Cow<'_, [u8]> {
    let set = FOR_LOGS.read().ok().and_then(|s| s.clone());
    let Some(set) = set.filter(|s| !s.is_empty()) else {
        return Cow::Borrowed(line);
    };
    let text = String::from_utf8_lossy(line);
    match set.redact(&text) {
        Cow::Borrowed(_) => Cow::Borrowed(line),
        Cow::Owned(clean) => Cow::Owned(clean.into_bytes()),
    }
}

/// Where runs get the current secrets.
#[async_trait]
pub trait SecretSource: Send + Sync {
    /// The secrets now (read again, so a change by any replica reaches the next run).
    async fn current(&self) -> Arc<SecretSet>;
}

/// A skill folder named in a tool call: `/mnt/skills/<category>/<path…>`.
static SKILL_PATH: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"/mnt/skills/(?:public|custom|user)/([A-Za-z0-9._/-]+)").ok());

/// One run's secrets: the set at its start, its agent, and the skills it used so far.
#[derive(Debug)]
pub struct RunSecrets {
    set: Arc<SecretSet>,
    agent: String,
    /// The secrets the agent's settings list.
    listed: Vec<String>,
    used: Mutex<BTreeSet<String>>,
}

impl RunSecrets {
    /// The secrets of a run of `agent` (an assistant id) whose settings list `listed`.
    pub fn new(set: Arc<SecretSet>, agent: &str, listed: &[String]) -> Self {
        RunSecrets {
            set,
            agent: agent.to_string(),
            listed: listed.to_vec(),
            used: Mutex::new(BTreeSet::new()),
        }
    }

    /// The set.
    pub fn set(&self) -> &SecretSet {
        &self.set
    }

    /// Notes the skills whose folders `text` (a tool call's arguments) names.
    pub fn note_uses(&self, text: &str) {
        if !self.set.wants_skills() || !text.contains("/mnt/skills/") {
            return;
        }
        let Some(re) = SKILL_PATH.as_ref() else {
            return;
        };
        let mut used = self
            .used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for found in re.captures_iter(text) {
            // Every folder on the path: a skill may sit in a collection's subfolder.
            for segment in found[1].split('/').filter(|s| !s.is_empty()) {
                used.insert(segment.to_string());
            }
        }
    }

    /// The variables a command of this run gets now.
    pub fn env(&self) -> Vec<(String, String)> {
        if self.set.is_empty() {
            return Vec::new();
        }
        let used = self
            .used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.set.granted(&self.agent, &self.listed, &used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(name: &str, value: &str, agents: &[&str], skills: &[&str]) -> Secret {
        Secret {
            name: name.into(),
            value: value.into(),
            agents: agents.iter().map(|s| s.to_string()).collect(),
            skills: skills.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn values_are_replaced_by_their_names_everywhere() {
        let set = SecretSet::new(vec![
            secret("IMAGE_KEY", "sk-image-0123456789", &[], &["imagegen"]),
            secret("LONGER", "sk-image-0123456789-and-more", &[], &[]),
        ]);
        assert_eq!(
            set.redact("key=sk-image-0123456789 and sk-image-0123456789-and-more."),
            "key=[secret:IMAGE_KEY] and [secret:LONGER]."
        );
        assert!(matches!(set.redact("nothing here"), Cow::Borrowed(_)));
        let mut v = serde_json::json!({"a": ["x sk-image-0123456789"], "sk-image-0123456789": 1});
        set.redact_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"a": ["x [secret:IMAGE_KEY]"], "[secret:IMAGE_KEY]": 1})
        );
        assert!(
            !format!("{set:?}").contains("0123456789"),
            "Debug hides values"
        );
        let quoted = SecretSet::new(vec![secret("Q", "pa\"ss\\word!", &[], &[])]);
        assert_eq!(
            quoted.redact(r#"{"Env":["Q=pa\"ss\\word!"]} and pa"ss\word!"#),
            r#"{"Env":["Q=[secret:Q]"]} and [secret:Q]"#
        );
    }

    #[test]
    fn case_url_encoding_and_a_cut_through_a_value_do_not_show_it() {
        let set = SecretSet::new(vec![secret("K", "AbCd+Ef=Gh/1234", &[], &[])]);
        assert_eq!(
            set.redact("host abcd+ef=gh/1234.evil"),
            "host [secret:K].evil"
        );
        assert_eq!(
            set.redact("/outputs/AbCd%2BEf%3DGh%2F1234.txt"),
            "/outputs/[secret:K].txt"
        );
        let marker =
            regex::Regex::new(r"\n\n\[\.\.\. \d+ bytes of output skipped \.\.\.\]\n\n").unwrap();
        let cut = "key=AbCd+E\n\n[... 10 bytes of output skipped ...]\n\nh/1234 done";
        assert_eq!(
            set.redact_cut(cut, &marker),
            "key=[secret:K]\n\n[... 10 bytes of output skipped ...]\n\n[secret:K] done"
        );
        let clean = "nothing\n\n[... 10 bytes of output skipped ...]\n\nto hide";
        assert_eq!(set.redact_cut(clean, &marker), clean);
    }

    #[test]
    fn a_run_gets_what_its_agent_or_a_skill_it_uses_is_granted() {
        let set = Arc::new(SecretSet::new(vec![
            secret("FOR_AGENT", "value-for-agent", &["a1"], &[]),
            secret("FOR_ALL", "value-for-all-agents", &["*"], &[]),
            secret("FOR_SKILL", "value-for-the-skill", &[], &["imagegen"]),
        ]));
        let names =
            |run: &RunSecrets| -> Vec<String> { run.env().into_iter().map(|(k, _)| k).collect() };
        let run = RunSecrets::new(set.clone(), "a1", &[]);
        assert_eq!(names(&run), ["FOR_AGENT", "FOR_ALL"]);
        run.note_uses(r#"{"command":"ls /mnt/skills/public/other/"}"#);
        assert_eq!(names(&run), ["FOR_AGENT", "FOR_ALL"]);
        run.note_uses(
            r#"{"command":"python3 /mnt/skills/custom/collection/imagegen/scripts/gen.py"}"#,
        );
        assert_eq!(names(&run), ["FOR_AGENT", "FOR_ALL", "FOR_SKILL"]);
        let other = RunSecrets::new(set.clone(), "a2", &[]);
        assert_eq!(names(&other), ["FOR_ALL"]);
        let listing = RunSecrets::new(set, "a3", &["FOR_SKILL".to_string()]);
        assert_eq!(names(&listing), ["FOR_ALL", "FOR_SKILL"]);
    }
}
