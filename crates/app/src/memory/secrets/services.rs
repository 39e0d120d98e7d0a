//! Tokens of chat, payment and other SaaS services, and JWTs, ported from the gitleaks
//! default rule set like [`super::providers`].

use super::{Rule, rule};

/// Tried after [`super::providers::PROVIDERS`], in this order.
pub(super) static SERVICES: &[Rule] = &[
    // gitleaks: slack-bot-token, slack-legacy-bot-token.
    rule(
        "slack-bot-token",
        &["xoxb-"],
        r"xoxb-[0-9A-Za-z-]{10,}",
        2.0,
    ),
    // gitleaks: slack-user-token, slack-config-access-token, slack-config-refresh-token.
    rule(
        "slack-user-token",
        &["xoxp-", "xoxe"],
        r"xox[pe](?:\.xox[bp])?-[0-9A-Za-z-]{10,}",
        2.0,
    ),
    // gitleaks: slack-legacy-token, slack-legacy-workspace-token.
    rule(
        "slack-legacy-token",
        &["xoxa-", "xoxo-", "xoxr-", "xoxs-"],
        r"xox[aors]-[0-9A-Za-z-]{10,}",
        2.0,
    ),
    rule(
        "slack-app-token",
        &["xapp-"],
        r"(?i)xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+",
        2.0,
    ),
    rule(
        "slack-webhook-url",
        &["hooks.slack.com"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[0-9A-Za-z+/]{20,}",
        0.0,
    ),
    rule(
        "microsoft-teams-webhook",
        &["webhook.office.com"],
        r"(?i)[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/",
        0.0,
    ),
    rule(
        "discord-webhook-url",
        &["/api/webhooks/"],
        // Not gitleaks: Discord webhook URLs carry their token in the path.
        r"(?i)discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[0-9A-Za-z_-]{60,}",
        0.0,
    ),
    // gitleaks: discord-api-token, discord-client-secret (only next to the name).
    rule(
        "discord-api-token",
        &["discord"],
        keyed!("discord", r"[0-9A-Za-z=_-]{32,64}"),
        2.0,
    ),
    // Secret, restricted and (as the old check did) publishable keys.
    rule(
        "stripe-access-token",
        &["k_live", "k_test", "k_prod"],
        r"[srp]k_(?:live|test|prod)_[0-9A-Za-z]{10,}",
        2.0,
    ),
    // Not gitleaks: Stripe webhook signing secrets.
    rule(
        "stripe-webhook-secret",
        &["whsec_"],
        r"whsec_[0-9A-Za-z+/]{24,}",
        3.0,
    ),
    rule("twilio-api-key", &["sk"], lone!(r"SK[0-9a-fA-F]{32}"), 3.0),
    rule(
        "sendgrid-api-token",
        &["sg."],
        r"SG\.[0-9A-Za-z_-]{16,}\.[0-9A-Za-z_-]{30,}",
        2.0,
    ),
    rule(
        "sendinblue-api-token",
        &["xkeysib-"],
        r"xkeysib-[0-9a-f]{64}-[0-9A-Za-z]{16}",
        2.0,
    ),
    // gitleaks pairs it with the word mailchimp; the `-usNN` data-centre tail is enough.
    rule(
        "mailchimp-api-key",
        &["-us"],
        lone!(r"[0-9a-f]{32}-us[0-9]{1,2}"),
        2.0,
    ),
    rule(
        "mailgun-private-api-token",
        &["key-"],
        lone!(r"key-[0-9a-f]{32}"),
        3.0,
    ),
    // gitleaks: shopify-access-token, -custom-access-token, -private-app-access-token,
    // -shared-secret.
    rule(
        "shopify-access-token",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}",
        2.0,
    ),
    // gitleaks wants the word telegram nearby; `digits:A` plus 34 is distinctive enough.
    rule(
        "telegram-bot-api-token",
        &[":a"],
        lone!(r"[0-9]{5,16}:A[0-9A-Za-z_-]{34}"),
        3.0,
    ),
    rule(
        "jwt",
        &["ey"],
        r"ey[0-9A-Za-z_-]{10,}\.ey[0-9A-Za-z_/\\-]{10,}\.",
        3.0,
    ),
    rule(
        "postman-api-token",
        &["pmak-"],
        r"PMAK-[0-9a-fA-F]{24}-[0-9a-fA-F]{34}",
        3.0,
    ),
    rule(
        "linear-api-key",
        &["lin_api_"],
        r"lin_api_[0-9A-Za-z]{40}",
        2.0,
    ),
    rule(
        "notion-api-token",
        &["ntn_"],
        r"ntn_[0-9]{11}[0-9A-Za-z]{35}",
        4.0,
    ),
    rule(
        "perplexity-api-key",
        &["pplx-"],
        r"pplx-[0-9A-Za-z]{48}",
        4.0,
    ),
    rule(
        "square-access-token",
        &["eaaa", "sq0atp-"],
        lone!(r"(?:EAAA|sq0atp-)[0-9A-Za-z_-]{22,60}"),
        2.0,
    ),
    rule(
        "atlassian-api-token",
        &["atatt3"],
        r"ATATT3[0-9A-Za-z_=-]{150,}",
        3.5,
    ),
    rule(
        "new-relic-user-api-key",
        &["nrak-"],
        r"NRAK-[0-9A-Za-z]{27}",
        3.0,
    ),
    rule(
        "twitter-bearer-token",
        &["aaaaaaaaaaaaaaaaaaaaaa"],
        r"A{22}[0-9A-Za-z%]{80,}",
        0.0,
    ),
    // Not gitleaks: Antler's own personal access tokens.
    rule(
        "antler-pat",
        &["antler_pat_"],
        r"antler_pat_[0-9A-Za-z]{16,}",
        0.0,
    ),
];
