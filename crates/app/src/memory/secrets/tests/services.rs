//! Chat, payment and SaaS tokens and JWTs caught; prose about them kept.

use super::{Case, check};

pub(super) const SERVICES: &[Case] = &[
    (
        "slack-bot-token",
        &["xoxb-1234567890-abcdef", "xoxb-{40a}"],
        &["xoxb- is the bot prefix"],
    ),
    (
        "slack-user-token",
        &["xoxp-{40a}", "xoxe.xoxp-1-{150a}"],
        &["xoxp tokens belong to users"],
    ),
    (
        "slack-legacy-token",
        &["xoxa-2-{30a}", "xoxs-{30a}"],
        &["xoxs is old"],
    ),
    (
        "slack-app-token",
        &[
            "xapp-1-A{10U}-1234567890123-{64h}",
            "SLACK=xapp-2-B{10U}-98765-{40h}",
        ],
        &["xapp- tokens are app-level"],
    ),
    (
        "slack-webhook-url",
        &[
            "https://hooks.slack.com/services/T{8U}/B{8U}/{24a}",
            "hooks.slack.com/triggers/{50a}",
        ],
        &[
            "Posts to hooks.slack.com via an incoming webhook",
            "The base is https://hooks.slack.com/services/",
        ],
    ),
    (
        "microsoft-teams-webhook",
        &[
            "https://acme.webhook.office.com/webhookb2/{8h}-{4h}-{4h}-{4h}-{12h}@{8h}-{4h}-{4h}-{4h}-{12h}/IncomingWebhook/{32h}/{8h}-{4h}-{4h}-{4h}-{12h}",
            "x.webhook.office.com/webhookb2/{8h}-{4h}-{4h}-{4h}-{12h}@{8h}-{4h}-{4h}-{4h}-{12h}/IncomingWebhook/{32h}/",
        ],
        &["Uses a Teams webhook at acme.webhook.office.com"],
    ),
    (
        "discord-webhook-url",
        &[
            "https://discord.com/api/webhooks/123456789012345678/{68u}",
            "discordapp.com/api/webhooks/987654321098765432/{64u}",
        ],
        &["Read discord.com/api/webhooks/ docs"],
    ),
    (
        "discord-api-token",
        &["DISCORD_BOT_TOKEN={64h}", "discord client secret: {32u}"],
        &[
            "Chats on Discord every evening",
            "discord: gaming-community-server",
        ],
    ),
    (
        "telegram-bot-api-token",
        &["123456789:AA{33u}", "bot 9876543210:AA{33u} here"],
        &["Meeting at 10:30 in room A12, ratio 16:9"],
    ),
    (
        "stripe-access-token",
        &[
            "stripe sk_live_51HabcdefghijklmnopQRST",
            "rk_test_{24a}",
            "pk_live_{24a}",
        ],
        &["Uses sk_live keys only in production"],
    ),
    (
        "stripe-webhook-secret",
        &["whsec_{32a}", "whsec_{40a}"],
        &["whsec_ marks webhook secrets"],
    ),
    (
        "square-access-token",
        &["EAAA{60u}", "square sq0atp-{22u}"],
        &["Rated EAAA by the agency"],
    ),
    (
        "twilio-api-key",
        &["SK{32h}", "twilio SK{32h}."],
        &["Bought SKU 12345 for skiing"],
    ),
    (
        "sendgrid-api-token",
        &["SG.{22u}.{43u}", "SENDGRID=SG.{22a}.{43a}"],
        &["Lives in SG. Loves it."],
    ),
    (
        "sendinblue-api-token",
        &["xkeysib-{64h}-{16a}", "brevo xkeysib-{64h}-{16a}"],
        &["xkeysib- marks Brevo keys"],
    ),
    (
        "mailchimp-api-key",
        &["{32h}-us6", "mailchimp {32h}-us21"],
        &["Mailchimp account in the us6 region, build-us1"],
    ),
    (
        "mailgun-private-api-token",
        &["key-{32h}", "mailgun key-{32h}"],
        &["Likes key-value stores like key-3f2a"],
    ),
    (
        "shopify-access-token",
        &["shpat_{32h}", "shpss_{32h}"],
        &["shpat_ marks Shopify tokens"],
    ),
    (
        "postman-api-token",
        &["PMAK-{24h}-{34h}", "postman PMAK-{24h}-{34h}"],
        &["PMAK- marks Postman keys"],
    ),
    (
        "linear-api-key",
        &["lin_api_{40a}", "LINEAR=lin_api_{40a}"],
        &["lin_api_ marks Linear"],
    ),
    (
        "notion-api-token",
        &["ntn_{11d}{35a}", "NOTION=ntn_{11d}{35a}"],
        &["ntn_ marks Notion"],
    ),
    (
        "perplexity-api-key",
        &["pplx-{48a}", "PPLX=pplx-{48a}"],
        &["pplx- marks Perplexity"],
    ),
    (
        "atlassian-api-token",
        &["ATATT3{186u}", "JIRA=ATATT3{186a}"],
        &["ATATT3 marks Atlassian"],
    ),
    (
        "new-relic-user-api-key",
        &["NRAK-{27U}", "newrelic NRAK-{27U}"],
        &["NRAK- marks New Relic"],
    ),
    (
        "twitter-bearer-token",
        &[
            "AAAAAAAAAAAAAAAAAAAAAA{90a}",
            "bearer_token=AAAAAAAAAAAAAAAAAAAAAA{100a}",
        ],
        &["Rated AAA by the agency"],
    ),
    (
        "jwt",
        &[
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
            "token_eyJ{30u}.eyJ{40u}.{43u}",
        ],
        &["They say hey. Key points: eyeball it."],
    ),
    (
        "antler-pat",
        &["uses antler_pat_0123456789abcdef0123", "antler_pat_{32a}"],
        &["antler_pat_ marks Antler tokens"],
    ),
];

#[test]
fn chat_payment_and_saas_tokens() {
    check(SERVICES);
}
