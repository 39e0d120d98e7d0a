//! Private keys and the tokens of AI providers, code hosts and clouds, ported from the
//! gitleaks default rule set (`config/gitleaks.toml`; rules keep their gitleaks id). Where
//! gitleaks pins an exact length we accept that length or more, and we drop its `\b` before
//! prefixes: a fact is short prose, a truncated or `key_`-prefixed token is still a leak,
//! and `\b` is defeated by a preceding `_`.

use super::{Candidate, Rule, checks, rule};

/// Legacy and provider `sk-` keys (OpenAI, DeepSeek, OpenRouter, …) have no fixed body; a
/// digit (or one long unbroken run) keeps hyphenated words like `sk-learn-pipelines-for-teams`
/// out.
fn sk_key(c: &Candidate<'_>) -> bool {
    // Or one unbroken run too long for a word.
    let body = c.secret.trim_start_matches("sk-");
    checks::has_digit(c.secret) || (body.len() >= 20 && !body.contains('-'))
}

/// Tried first, in this order (more specific shapes first).
pub(super) static PROVIDERS: &[Rule] = &[
    rule(
        "private-key",
        &["private key"],
        // PEM, OpenSSH and PGP (`… PRIVATE KEY BLOCK`) headers; the header alone is enough.
        r"(?i)-{3,}\s*BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?\s*-{3,}",
        0.0,
    ),
    rule(
        "age-secret-key",
        &["age-secret-key-1"],
        r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        0.0,
    ),
    // gitleaks: anthropic-api-key, anthropic-admin-api-key.
    rule(
        "anthropic-api-key",
        &["sk-ant-"],
        r"sk-ant-[a-z]+[0-9]{2}-[0-9A-Za-z_-]{20,}",
        3.0,
    ),
    rule(
        "openai-api-key",
        &["sk-"],
        r"sk-(?:(?:proj|svcacct|admin)-[0-9A-Za-z_-]{16,}|[0-9A-Za-z]{20}T3BlbkFJ[0-9A-Za-z]{20})",
        3.0,
    ),
    Rule {
        id: "sk-api-key",
        keywords: &["sk-"],
        pattern: lone!(r"sk-[0-9A-Za-z_-]{16,}"),
        entropy: 3.0,
        check: Some(sk_key),
    },
    rule("github-pat", &["ghp_"], r"ghp_[0-9A-Za-z]{20,}", 3.0),
    rule("github-oauth", &["gho_"], r"gho_[0-9A-Za-z]{20,}", 3.0),
    rule(
        "github-app-token",
        &["ghu_", "ghs_"],
        r"gh[us]_[0-9A-Za-z]{20,}",
        3.0,
    ),
    rule(
        "github-refresh-token",
        &["ghr_"],
        r"ghr_[0-9A-Za-z]{20,}",
        3.0,
    ),
    rule(
        "github-fine-grained-pat",
        &["github_pat_"],
        r"github_pat_[0-9A-Za-z_]{22,}",
        3.0,
    ),
    rule("gitlab-pat", &["glpat-"], r"glpat-[0-9A-Za-z_-]{20,}", 3.0),
    // gitleaks: gitlab-deploy-token, -runner-authentication-token, -ptt, -cicd-job-token,
    // -feature-flag-client-token, -feed-token, -incoming-mail-token,
    // -kubernetes-agent-token, -oauth-app-secret, -scim-token.
    rule(
        "gitlab-token",
        &[
            "gldt-", "glrt-", "glptt-", "glcbt-", "glffct-", "glft-", "glimt-", "glagent-",
            "gloas-", "glsoat-",
        ],
        r"gl(?:dt|rt|ptt|cbt|ffct|ft|imt|agent|oas|soat)-[0-9A-Za-z_-]{20,}",
        3.0,
    ),
    rule(
        "gitlab-rrt",
        &["gr1348941"],
        r"GR1348941[0-9A-Za-z_-]{20,}",
        3.0,
    ),
    rule(
        "gitlab-session-cookie",
        &["_gitlab_session="],
        r"_gitlab_session=[0-9a-z]{32}",
        3.0,
    ),
    rule(
        "aws-access-token",
        &["a3t", "akia", "asia", "abia", "acca"],
        // Access key ids (AKIA), temporary STS ids (ASIA) and the rest; digits 0/1/8/9 too,
        // as the old check allowed them.
        lone!(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
        3.0,
    ),
    rule(
        "aws-secret-access-key",
        &[
            "secret_access_key",
            "secret access key",
            "secretaccesskey",
            "aws_secret",
            "aws secret",
        ],
        // Not gitleaks (it has no AWS secret rule): the value of `aws_secret_access_key`.
        r#"(?i)(?:(?:aws[_ .-]?)?secret[_ .-]?access[_ .-]?key|aws[_ .-]?secret(?:[_ .-]?key)?)["']?\s*(?:[:=]|=>|\s+is)\s*["'`]?([0-9A-Za-z/+=]{16,})"#,
        0.0,
    ),
    rule(
        "aws-amazon-bedrock-api-key-long-lived",
        &["absk"],
        r"ABSK[0-9A-Za-z+/]{109,}={0,2}",
        3.0,
    ),
    rule("gcp-api-key", &["aiza"], r"AIza[0-9A-Za-z_-]{30,}", 3.5),
    rule(
        "huggingface-access-token",
        &["hf_"],
        r"hf_[0-9A-Za-z]{30,}",
        2.0,
    ),
    rule(
        "huggingface-organization-api-token",
        &["api_org_"],
        r"api_org_[A-Za-z]{30,}",
        2.0,
    ),
    rule("npm-access-token", &["npm_"], r"npm_[0-9A-Za-z]{36}", 2.0),
    rule(
        "pypi-upload-token",
        &["pypi-ageichlwas5vcmc"],
        r"pypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}",
        3.0,
    ),
    rule(
        "rubygems-api-token",
        &["rubygems_"],
        r"rubygems_[0-9a-f]{48}",
        2.0,
    ),
    // gitleaks: digitalocean-pat, -access-token, -refresh-token.
    rule(
        "digitalocean-pat",
        &["_v1_"],
        r"do[opr]_v1_[0-9a-f]{64}",
        3.0,
    ),
    rule(
        "1password-service-account-token",
        &["ops_ey"],
        r"ops_eyJ[0-9A-Za-z+/]{100,}",
        4.0,
    ),
    rule(
        "1password-secret-key",
        &["a3-"],
        r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
        3.8,
    ),
    // gitleaks: vault-service-token, vault-batch-token.
    rule(
        "vault-service-token",
        &["hvs.", "hvb."],
        r"hv[sb]\.[0-9A-Za-z_-]{90,}",
        3.5,
    ),
    rule(
        "doppler-api-token",
        &["dp.pt."],
        r"dp\.pt\.[0-9A-Za-z]{40,}",
        2.0,
    ),
    rule(
        "pulumi-api-token",
        &["pul-"],
        lone!(r"pul-[0-9a-f]{40}"),
        2.0,
    ),
    rule(
        "databricks-api-token",
        &["dapi"],
        lone!(r"dapi[0-9a-f]{32}(?:-[0-9])?"),
        3.0,
    ),
    rule(
        "grafana-cloud-api-token",
        &["glc_"],
        r"glc_[0-9A-Za-z+/]{32,}={0,3}",
        3.0,
    ),
    rule(
        "grafana-service-account-token",
        &["glsa_"],
        r"glsa_[0-9A-Za-z]{32}_[0-9A-Fa-f]{8}",
        3.0,
    ),
    rule(
        "sentry-user-token",
        &["sntryu_"],
        r"sntryu_[0-9a-f]{64}",
        3.5,
    ),
    rule(
        "sentry-org-token",
        &["sntrys_"],
        r"sntrys_eyJpYXQiO[0-9A-Za-z+/=_]{50,}",
        4.0,
    ),
    rule(
        "hashicorp-tf-api-token",
        &["atlasv1"],
        r"[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z_=-]{60,}",
        3.5,
    ),
    // gitleaks: planetscale-api-token, planetscale-password, planetscale-oauth-token.
    rule(
        "planetscale-api-token",
        &["pscale_"],
        r"pscale_(?:tkn|pw|oauth)_[0-9A-Za-z_=.-]{32,}",
        3.0,
    ),
    rule(
        "heroku-api-key-v2",
        &["hrku-aa"],
        r"HRKU-AA[0-9A-Za-z_-]{58}",
        4.0,
    ),
    rule(
        "heroku-api-key",
        &["heroku"],
        keyed!(
            "heroku",
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        ),
        0.0,
    ),
    rule(
        "openshift-user-token",
        &["sha256~"],
        r"sha256~[0-9A-Za-z_-]{43}",
        3.5,
    ),
    rule(
        "azure-ad-client-secret",
        &["q~"],
        r"[0-9A-Za-z_~.]{3}[0-9]Q~[0-9A-Za-z_~.-]{31,34}",
        3.0,
    ),
];
