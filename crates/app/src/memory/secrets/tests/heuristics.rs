//! Heuristic rules: credentials in URLs, headers and prose, cards, SSNs, entropy.

use super::{Case, check};

pub(super) const URLS_AND_HEADERS: &[Case] = &[
    (
        "url-credentials",
        &[
            "postgres://user:pass@host/db",
            "postgresql://app:s3cr3t@db.internal:5432/app",
            "mysql://root:hunter2@localhost/shop",
            "mongodb+srv://admin:Xy9pQ@cluster0.example.net",
            "mongodb://reader:r3ad@mongo:27017",
            "redis://:Sup3rPass@cache:6379",
            "amqp://guest:guest@rabbit:5672",
            "smtp://mailer:Pa55word@smtp.example.com:587",
            "Clones https://deploy:tok3n@git.example.com/repo.git",
        ],
        &[
            "Uses PostgreSQL at postgres://db.internal:5432/app (no password)",
            "Cache at redis://localhost:6379/0",
            "postgres://user:${PGPASSWORD}@db/app",
            "postgres://user:****@db/app",
            "postgres://user@db/app and mail jane@example.com",
            "ssh://git@github.com:22/org/repo",
        ],
    ),
    (
        "authorization-header",
        &[
            "Authorization: Bearer {40u}",
            "authorization: Basic dXNlcjpwYXNzd29yZA==",
            "Proxy-Authorization: token {20a}",
            "curl -H \"Authorization: Bearer {30a}\" https://api",
        ],
        &[
            "Authorization: required for admin endpoints",
            "Authorization: Bearer <token>",
            "Needs authorization from their manager",
        ],
    ),
    (
        "bearer-token",
        &["Send Bearer {40u} to the API", "bearer {24a}"],
        &[
            "Prefers the Bearer of bad news jokes",
            "bearer tokens_are_nice_and_simple",
        ],
    ),
    (
        "curl-auth-user",
        &[
            "curl -u admin:S3cret! https://api.example.com",
            "curl -s --user deploy:{20a} https://x",
        ],
        &[
            "curl -u $USER:$PASS https://api.example.com",
            "Uses curl daily",
        ],
    ),
];

pub(super) const PROSE: &[Case] = &[
    (
        "password-assignment",
        &[
            "My password is hunter22",
            "the password for the bank is Tr0ub4dor",
            "Password of my laptop: correcthorse",
            "Their password is dragon",
            "wifi password: dragonfly",
            "DB_PASSWORD=s3cr3tP@ss",
            "Server=db;User Id=sa;Password=Passw0rd!;",
            "Mon mot de passe est soleil42",
            "我的密码是hunter2",
            "パスワードはabc12345",
        ],
        &[
            "The password is stored in 1Password",
            "Their wifi password is on the fridge",
            "password: see the vault",
            "Resets the password for their parents sometimes",
            "The password was changed yesterday",
            "密码很重要",
            "The password is being reset",
        ],
    ),
    (
        "secret-assignment",
        &[
            "api key: 1234abcd",
            "The token is Xk9-pLm2qR",
            "client secret = aB3$xY9z",
            "pw: hunter2",
            "my pass is hunter2",
            "DB_SECRET=abc123xyz",
        ],
        &[
            "The secret is patience",
            "Token: expired",
            "Their API key rotation is monthly",
            "Boarding pass: gate B12",
            "Secret: they love jazz",
        ],
    ),
    (
        "password-in-prose",
        &[
            "my password hunter2 for email",
            "password hunter2",
            "username bob password Tr0ub4dor&3",
            "Passwort Sommer2024! für das Büro",
        ],
        &[
            "Works on password managers as a product manager",
            "Changed password 3 times this year",
            "Uses passwordless login",
            "password reset emails go to spam",
        ],
    ),
    (
        "pin-code",
        &["PIN 4821", "bank pin code is 1234", "my card pin: 0042"],
        &["Their PIN is secret", "Pinned the 2024 roadmap"],
    ),
    (
        "mfa-backup-code",
        &[
            "recovery codes: 7f3a-9b2c, 1d4e-8f6a",
            "2FA backup code 12345678",
        ],
        &[
            "Lost their 2FA backup codes last year",
            "Promo code SUMMER2024 gave 10% off",
        ],
    ),
    (
        "otp-secret",
        &[
            "TOTP secret JBSWY3DPEHPK3PXP",
            "2fa seed: JBSW Y3DP EHPK 3PXP",
        ],
        &["Uses an authenticator app for 2FA"],
    ),
    (
        "seed-phrase",
        &[
            "seed phrase: abandon ability able about above absent absorb abstract absurd abuse access accident",
            "Recovery words are legal winner thank year wave sausage worth useful legal winner thank yellow",
        ],
        &["Wrote the seed phrase on paper and keeps it in a safe"],
    ),
];

pub(super) const NUMBERS: &[Case] = &[
    (
        "credit-card",
        &[
            "4111 1111 1111 1111",
            "Card 5555-5555-5555-4444 exp 12/26",
            "Amex 378282246310005",
            "4242 4242 4242 4242 12 26",
            "Mastercard 2223003122003222",
            "card 4111111111111111 cvv 123",
        ],
        &[
            "Order number 12345678 arrived",
            "Card 4111 1111 1111 1112 was declined",
            "Timestamp 1700000000000 in logs",
            "ISBN 978-0-306-40615-7",
            "Phone +33 6 12 34 56 78",
            "Account 12345678901234567890123",
            "IBAN FR76 3000 6000 0112 3456 7890 189",
        ],
    ),
    (
        "us-ssn",
        &[
            "SSN 123-45-6789",
            "social security number: 219 09 9999",
            "Their id is 536-22-1234.",
        ],
        &[
            "000-12-3456",
            "666-12-3456",
            "923-45-6789",
            "123-00-4567",
            "123-45-0000",
            "Call 555-1234 on 2024-01-15",
            "Part 12-345-6789-00",
        ],
    ),
];

pub(super) const ENTROPY: &[Case] = &[
    (
        "generic-api-key",
        &[
            "export SERVICE_AUTH={32a}",
            "{\"clientSecret\": \"{24a}\"}",
            "MY_APP_KEY={40b}==",
            "db_creds = {20a}",
        ],
        &[
            "Key takeaways: ship-small-iterate-often",
            "API version: 2024-06-01",
            "Keyboard_layout = us-intl-2024",
            "public_key = ssh-ed25519-2024",
            "access_token_url = https://auth.example.com/token",
            "Key dates: 2024-01-05 and 2024-02-10",
        ],
    ),
    (
        "high-entropy-base64",
        &[
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC{32b}",
            "line {64b}\n{64b}",
            "stored {50u}",
            "Bitcoin address 1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
        ],
        &[
            "Calls getUserAccountSettingsByIdV2Handler from the API layer",
            "src/components/UserProfile2/NavigationBar/Item3/index",
            "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
            "Named it ThisIsAVeryLongCamelCaseIdentifier2024Version",
            "Wi-Fi_Password_For_Office_2nd_Floor_Guest5G is the SSID",
            "Their SSH key fingerprint is SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
            "Public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
            "integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
        ],
    ),
    (
        "high-entropy-hex",
        &["stored {64h} somewhere", "value {48H}"],
        &[
            "Commit 4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it",
            "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "0000000000000000000000000000000000000000000000000",
            "Ethereum 0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
        ],
    ),
];

#[test]
fn credentials_in_urls_and_headers() {
    check(URLS_AND_HEADERS);
}

#[test]
fn passwords_and_codes_in_prose() {
    check(PROSE);
}

#[test]
fn card_numbers_and_ssns() {
    check(NUMBERS);
}

#[test]
fn assignments_and_bare_runs_by_entropy() {
    check(ENTROPY);
}
