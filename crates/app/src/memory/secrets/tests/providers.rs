//! Private keys, AI, code host and cloud tokens caught; prose about them kept.

use super::{Case, check};

pub(super) const KEYS_AND_CODE_HOSTS: &[Case] = &[
    (
        "private-key",
        &[
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\n{70b}",
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----",
        ],
        &[
            "-----BEGIN PUBLIC KEY-----",
            "Rotated their private key last week",
        ],
    ),
    (
        "age-secret-key",
        &["AGE-SECRET-KEY-1{58q}", "key: AGE-SECRET-KEY-1{58q}"],
        &["Encrypts backups with age; keys start with AGE-SECRET-KEY-1"],
    ),
    (
        "anthropic-api-key",
        &[
            "sk-ant-api03-{93u}AA",
            "ANTHROPIC_API_KEY=sk-ant-admin01-{40u}",
        ],
        &["Works at Anthropic on the sk-ant key format"],
    ),
    (
        "openai-api-key",
        &[
            "my key is sk-proj-abcdefghijklmnop1234",
            "key_sk-proj-{48u}",
            "sk-svcacct-{40u}",
            "sk-{20a}T3BlbkFJ{20a}",
        ],
        &[
            "Documents sk-proj keys for the team",
            "Uses sk-learn-pipelines-for-everything",
        ],
    ),
    (
        "sk-api-key",
        &[
            "sk-{48a}",
            "OPENROUTER=sk-or-v1-{64h}",
            "my api key: sk-abcdefghijklmnopqrstuv",
        ],
        &["Took a task-management-and-risk-assessment-2024 course"],
    ),
    (
        "github-pat",
        &["token ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_{36a}"],
        &["Uses ghp_ tokens in CI"],
    ),
    (
        "github-oauth",
        &["gho_{36a}", "token gho_{36a}."],
        &["gho_ marks OAuth tokens"],
    ),
    (
        "github-app-token",
        &["ghu_{36a}", "ghs_{36a}"],
        &["ghs_ marks app tokens"],
    ),
    (
        "github-refresh-token",
        &["ghr_{36a}", "(ghr_{36a})"],
        &["ghr_ is for refresh"],
    ),
    (
        "github-fine-grained-pat",
        &["github_pat_{22a}_{59a}", "GH=github_pat_{30a}"],
        &["Switched to a github_pat_ fine-grained token"],
    ),
    (
        "gitlab-pat",
        &["gitlab glpat-abcdefghijklmnopqrst12", "glpat-{20u}"],
        &["glpat- tokens expire yearly"],
    ),
    (
        "gitlab-token",
        &["glrt-{20a}", "gldt-{20a}", "glcbt-1_{20a}", "glsoat-{20a}"],
        &["The glrt- runner tokens rotate monthly"],
    ),
    (
        "gitlab-rrt",
        &["GR1348941{20a}", "token GR1348941{24a}"],
        &["GR1348941 starts a runner registration token"],
    ),
    (
        "gitlab-session-cookie",
        &["_gitlab_session={32h}", "Cookie: _gitlab_session={32h}"],
        &["Cleared the _gitlab_session= cookie"],
    ),
    (
        "npm-access-token",
        &["npm_{36a}", "//registry/:_authToken=npm_{36a}"],
        &["Sets npm_config_registry"],
    ),
    (
        "pypi-upload-token",
        &[
            "pypi-AgEIcHlwaS5vcmc{60u}",
            "TWINE=pypi-AgEIcHlwaS5vcmc{80u}",
        ],
        &["Uploads to PyPI with twine"],
    ),
    (
        "rubygems-api-token",
        &["rubygems_{48h}", "GEM_HOST_API_KEY=rubygems_{48h}"],
        &["rubygems_mfa_required = true"],
    ),
    (
        "huggingface-access-token",
        &["hf_{34l}", "HF_TOKEN=hf_{34l}"],
        &["Calls hf_hub_download in notebooks"],
    ),
    (
        "huggingface-organization-api-token",
        &["api_org_{34l}", "org api_org_{34l}"],
        &["Edits api_org_settings"],
    ),
];

pub(super) const CLOUD: &[Case] = &[
    (
        "aws-access-token",
        &[
            "AKIAABCDEFGHIJKLMNOP",
            "temporary id ASIA{16U}",
            "key_ABIA{16U}",
            "ACCA{16U}.",
        ],
        &[
            "AKIA is the AWS key prefix",
            "Visited ASIA in 2019",
            "Met the ACCA board",
        ],
    ),
    (
        "aws-secret-access-key",
        &[
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "AWS_SECRET_ACCESS_KEY={40b}",
            "their key {40a} is bare",
        ],
        &[
            "Stores the aws_secret_access_key in Vault",
            "aws_secret_access_key = ${AWS_SECRET}",
        ],
    ),
    (
        "aws-amazon-bedrock-api-key-long-lived",
        &["ABSK{120b}", "BEDROCK=ABSK{140b}"],
        &["ABSK keys are Bedrock keys"],
    ),
    (
        "gcp-api-key",
        &[
            "AIzaSyA1234567890abcdefghijklmnopqrstu",
            "maps key AIzaSy{33u}",
        ],
        &["AIza is the Google API key prefix"],
    ),
    (
        "azure-ad-client-secret",
        &["{3a}8Q~{34a}", "AZURE_CLIENT_SECRET={3a}7Q~{31a}"],
        &["Q~ appears in Azure secrets"],
    ),
    (
        "digitalocean-pat",
        &["dop_v1_{64h}", "doo_v1_{64h}"],
        &["dop_v1_ marks DigitalOcean tokens"],
    ),
    (
        "heroku-api-key-v2",
        &["HRKU-AA{58u}", "key HRKU-AA{58u}"],
        &["HRKU-AA marks Heroku keys"],
    ),
    (
        "heroku-api-key",
        &[
            "HEROKU_API_KEY={8h}-{4h}-{4h}-{4h}-{12h}",
            "heroku key: {8h}-{4h}-{4h}-{4h}-{12h}.",
        ],
        &["Deploys to Heroku, app id 550e8400-e29b-41d4-a716-446655440000"],
    ),
    (
        "vault-service-token",
        &["hvs.{95u}", "hvb.{140u}"],
        &["Visited hvs.example.com for docs"],
    ),
    (
        "openshift-user-token",
        &["sha256~{43u}", "oc login --token=sha256~{43u}"],
        &["sha256~ marks OpenShift tokens"],
    ),
    (
        "hashicorp-tf-api-token",
        &["{14a}.atlasv1.{67a}", "TFE_TOKEN={14a}.atlasv1.{64u}"],
        &["Token format is <id>.atlasv1.<secret>"],
    ),
    (
        "databricks-api-token",
        &["dapi{32h}", "token dapi{32h}-2"],
        &["Calls the dapi endpoint"],
    ),
    (
        "1password-service-account-token",
        &["ops_eyJ{150b}", "OP_TOKEN=ops_eyJ{200b}"],
        &["ops_eyJ starts 1Password service tokens"],
    ),
    (
        "1password-secret-key",
        &[
            "A3-{6U}-{11U}-{5U}-{5U}-{5U}",
            "A3-{6U}-{6U}-{5U}-{5U}-{5U}-{5U}",
        ],
        &["Seat A3-12 on the train"],
    ),
    (
        "doppler-api-token",
        &["dp.pt.{43a}", "DOPPLER=dp.pt.{43a}"],
        &["dp.pt. marks Doppler tokens"],
    ),
    (
        "pulumi-api-token",
        &["pul-{40h}", "PULUMI=pul-{40h}"],
        &["Does pul-ups daily"],
    ),
    (
        "planetscale-api-token",
        &["pscale_tkn_{43u}", "pscale_pw_{43u}"],
        &["pscale_tkn_ marks PlanetScale tokens"],
    ),
    (
        "grafana-cloud-api-token",
        &["glc_{40b}", "glc_{60a}=="],
        &["glc_ marks Grafana tokens"],
    ),
    (
        "grafana-service-account-token",
        &["glsa_{32a}_{8h}", "GRAFANA=glsa_{32a}_{8h}"],
        &["glsa_ marks Grafana service accounts"],
    ),
    (
        "sentry-user-token",
        &["sntryu_{64h}", "SENTRY=sntryu_{64h}"],
        &["sntryu_ marks Sentry"],
    ),
    (
        "sentry-org-token",
        &["sntrys_eyJpYXQiO{80b}", "SENTRY=sntrys_eyJpYXQiO{120b}"],
        &["sntrys_ marks Sentry org tokens"],
    ),
];

#[test]
fn private_keys_and_code_host_tokens() {
    check(KEYS_AND_CODE_HOSTS);
}

#[test]
fn cloud_credentials() {
    check(CLOUD);
}
