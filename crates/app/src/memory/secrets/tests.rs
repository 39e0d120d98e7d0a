//! Each rule in both directions: what it catches (reported under its id) and look-alikes it
//! keeps. Fixtures are generated from a fixed seed rather than pasted, so the source holds
//! no key-shaped strings for scanners to trip on.

mod heuristics;
mod providers;
mod services;

use super::{COMPILED, find_secret, looks_secret};

/// A rule id, texts it must catch (as templates for [`expand`]) and look-alikes it keeps.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

/// `len` pseudo-random characters of `alphabet` (xorshift, fixed per seed).
fn random(seed: u64, len: usize, alphabet: &str) -> String {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            chars[(state % chars.len() as u64) as usize]
        })
        .collect()
}

/// Fills each `{<count><class>}` in `template` with random characters of the class: `a`
/// alphanumeric, `b` base64, `u` url-safe base64, `h`/`H` hex, `U` base32 capitals, `l`
/// letters, `d` digits, `q` bech32. Other braces stay as they are.
fn expand(template: &str, seed: u64) -> String {
    let mut out = String::new();
    let mut rest = template;
    let mut n = seed;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let class = after[digits..].chars().next().and_then(alphabet);
        match (after[..digits].parse::<usize>(), class) {
            (Ok(len), Some(set)) if after[digits + 1..].starts_with('}') => {
                n += 1;
                out.push_str(&random(n, len, set));
                rest = &after[digits + 2..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out + rest
}

fn alphabet(class: char) -> Option<&'static str> {
    Some(match class {
        'a' => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        'b' => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        'u' => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
        'h' => "0123456789abcdef",
        'H' => "0123456789ABCDEF",
        'U' => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        'l' => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        'd' => "0123456789",
        'q' => "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
        _ => return None,
    })
}

/// Every case: at least two texts caught under the rule's id, at least one look-alike kept.
fn check(cases: &[Case]) {
    for (i, &(id, caught, kept)) in cases.iter().enumerate() {
        assert!(caught.len() >= 2 && !kept.is_empty(), "{id}: too few cases");
        for template in caught {
            let text = expand(template, i as u64 * 100);
            assert_eq!(
                find_secret(&text),
                Some(id),
                "should be caught as {id}: {text}"
            );
        }
        for text in kept {
            assert_eq!(
                find_secret(text),
                None,
                "should be kept ({id} look-alike): {text}"
            );
        }
    }
}

#[test]
fn every_rule_compiles_and_has_cases() {
    let cases = [
        providers::KEYS_AND_CODE_HOSTS,
        providers::CLOUD,
        services::SERVICES,
        heuristics::URLS_AND_HEADERS,
        heuristics::PROSE,
        heuristics::NUMBERS,
        heuristics::ENTROPY,
    ]
    .concat();
    for (rule, regex) in COMPILED.iter() {
        assert!(regex.is_some(), "{} does not compile", rule.id);
        assert!(
            cases.iter().any(|case| case.0 == rule.id),
            "{} has no cases",
            rule.id
        );
    }
}

#[test]
fn templates_expand() {
    let text = expand("a{4h}b{\"x\": {2d}}", 1);
    assert_eq!(text.len(), "a....b{\"x\": ..}".len(), "{text}");
    assert!(text.starts_with('a') && text.contains("b{\"x\": ") && text.ends_with('}'));
    assert_ne!(expand("{8a}", 1), expand("{8a}", 2));
}

#[test]
fn what_the_previous_version_caught_is_still_caught() {
    for secret in [
        "my key is sk-proj-abcdefghijklmnop1234",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123",
        "AKIAABCDEFGHIJKLMNOP",
        "xoxb-1234567890-abcdef",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
        "-----BEGIN RSA PRIVATE KEY-----",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
        "My password is hunter22",
        "api key: 1234abcd",
        "uses antler_pat_0123456789abcdef0123",
        "the password for the bank is Tr0ub4dor",
        "Password of my laptop: correcthorse",
        "stripe sk_live_51HabcdefghijklmnopQRST",
        "gitlab glpat-abcdefghijklmnopqrst12",
    ] {
        assert!(looks_secret(secret), "{secret}");
    }
}

#[test]
fn plain_facts_are_kept() {
    for fact in [
        "Prefers Python for data analysis",
        "Their team uses tokens of appreciation",
        "Works on password managers as a product manager",
        "Resets the password for their parents sometimes",
        "Lives in Lyon",
        "Uses PostgreSQL at postgres://db.internal:5432/app (no password)",
        "Their phone model is iPhone 15",
        "Born in 1987",
        "Order number 12345678 arrived",
        "Prefers the Bearer of bad news jokes",
        "Project id 550e8400-e29b-41d4-a716-446655440000",
        "Commit 4f2a9c1 fixed the bug",
        "Commit 4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the login bug",
        "他喜欢用 Python 做数据分析，住在上海。",
        "密码管理器很好用",
        "Lives at 221B Baker Street, London NW1 6XE",
        "Phone +33 6 12 34 56 78, email jane.doe@example.com",
        "Meeting every Tuesday at 10:30 in room B-204",
        "Reads docs at https://docs.rs/regex/latest/regex/struct.Regex.html",
        "Repo is https://github.com/rust-lang/rust/tree/master/compiler/rustc_middle",
        "Keeps notes in /home/jane/Documents/notes/2024/q3-planning.md",
        "Uses src/components/UserProfile2/NavigationBar/Item3 as the entry",
        "Calls getUserAccountSettingsByIdV2Handler from the API layer",
        "Antidisestablishmentarianism is their favourite long word",
        "Favourite German word: Donaudampfschifffahrtsgesellschaftskapitaen",
        "Changes passwords every 90 days",
        "Forgot their password twice this year",
        "The password policy requires 12 characters",
        "Password manager: 1Password",
        "Their wifi password is on the fridge",
        "Uses token-based auth with short-lived JWTs",
        "Prefers API keys over OAuth for scripts",
        "Their API version is 2024-06-01",
        "Key dates: 2024-01-05 and 2024-02-10",
        "Auth is handled by Keycloak 24.0.1",
        "Secret Santa budget is 50 euros",
        "The secret to their sourdough is patience",
        "Keyboard layout: us-intl",
        "Access via VPN only, version 10.2.3",
        "Uses an ed25519 public key for SSH",
        "Runs kubernetes 1.29 on Standard_D4s_v5 nodes",
        "ISBN 978-0-306-40615-7 is their favourite book",
        "Salary expectation 85000 EUR",
        "Tracking number 1Z999AA10123456784",
        "Timestamp 1700000000000 in logs",
        "Version v1.2.3-beta.4+build.5678",
        "Their PIN is secret",
        "Pinned the 2024 roadmap",
        "Was pinned at rank 3",
        "Travelled across Asia and Oceania in 2019",
        "Speaks French: mot de passe means password",
        "Le mot de passe est important",
        "Sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 is the empty file",
        "Scored 1234 points",
        "Skiing in SK region",
        "Uses the bearer-token middleware",
        "Authorization: required for admin endpoints",
        "Needs authorization from their manager",
        "Loves the song Token of My Extreme",
        "Visited Mumbai, Kolkata and Bengaluru",
        "Their cat is called Whiskers",
        "Ran a 10k in 52:30",
    ] {
        assert_eq!(find_secret(fact), None, "{fact}");
    }
}

/// Bare random runs are caught almost always, not only for lucky seeds.
#[test]
fn random_runs_are_caught() {
    for (template, least) in [
        ("stored {32b} here", 470),
        ("stored {40b} here", 480),
        ("stored {40u} here", 480),
        ("stored {64b} here", 490),
        ("stored {80u} here", 495),
        ("stored {48h} here", 495),
        ("stored {64H} here", 495),
    ] {
        let caught = (0..500)
            .filter(|&seed| looks_secret(&expand(template, seed * 7)))
            .count();
        assert!(caught >= least, "{template}: {caught}/500");
    }
}
