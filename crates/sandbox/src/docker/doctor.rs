//! `antler sandbox doctor`: what a sandbox image holds, found by running a probe in a
//! throwaway container started as sandboxes are (no network, read-only root, unprivileged).

use std::collections::HashMap;
use std::time::Duration;

use antler_protocol::health::SandboxImage;
use bollard::Docker;
use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::CreateContainerOptionsBuilder;
use serde::{Deserialize, Serialize};

use super::spec::LABEL_SANDBOX;
use crate::api::ExecRequest;
use crate::error::SandboxError;

/// The probe: Python's standard library only, so it runs in every image of the project.
const PROBE: &str = include_str!("doctor_probe.py");

/// How long the probe may take (`fc-list` builds its cache on a cold start).
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// One thing looked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// `program`, `python`, `node` or `font`.
    pub kind: String,
    /// Command, import name, package or script (`cjk`).
    pub name: String,
    /// Whether the image has it.
    pub present: bool,
    /// What was found (font families).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The image's own manifest checked item by item (the full image carries it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestCheck {
    /// Items (imports, programs, node packages) the manifest promises.
    pub total: usize,
    /// Those not found, as `kind:name`.
    pub missing: Vec<String>,
}

/// What the doctor found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The image as the engine describes it.
    pub image: SandboxImage,
    /// The headline capabilities.
    pub checks: Vec<Check>,
    /// The manifest, when the image has one.
    pub manifest: Option<ManifestCheck>,
}

#[derive(Deserialize)]
struct ProbeOutput {
    checks: Vec<Check>,
    manifest: Option<ManifestCheck>,
}

/// Inspects `image` and runs the probe in a container of it, removed afterwards.
pub async fn examine(docker: &Docker, image: &str) -> Result<Report, SandboxError> {
    let described = super::check(docker, image).await?;
    let body = ContainerCreateBody {
        image: Some(image.to_string()),
        user: Some("1000:1000".into()),
        labels: Some(HashMap::from([(
            LABEL_SANDBOX.to_string(),
            "1".to_string(),
        )])),
        network_disabled: Some(true),
        host_config: Some(HostConfig {
            network_mode: Some("none".into()),
            cap_drop: Some(vec!["ALL".into()]),
            security_opt: Some(vec!["no-new-privileges:true".into()]),
            readonly_rootfs: Some(true),
            tmpfs: Some(HashMap::from([(
                "/tmp".to_string(),
                "rw,nosuid,nodev,size=64m,mode=1777".to_string(),
            )])),
            init: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    };
    let name = format!("antler-doctor-{}", uuid::Uuid::new_v4().simple());
    let created = docker
        .create_container(
            Some(CreateContainerOptionsBuilder::new().name(&name).build()),
            body,
        )
        .await
        .map_err(|e| SandboxError::Infra(format!("docker create: {e}")))?;
    let outcome = async {
        docker
            .start_container(
                &created.id,
                None::<bollard::query_parameters::StartContainerOptions>,
            )
            .await
            .map_err(|e| SandboxError::Infra(format!("docker start: {e}")))?;
        let request = ExecRequest::new(
            format!("python3 - <<'ANTLER_PROBE'\n{PROBE}\nANTLER_PROBE\n"),
            PROBE_TIMEOUT,
        );
        super::admin::exec_in(docker, &created.id, &request, 1024 * 1024).await
    }
    .await;
    super::admin::remove(docker, std::slice::from_ref(&created.id)).await;
    let output = outcome?;
    if output.exit_code != Some(0) {
        return Err(SandboxError::Infra(format!(
            "the probe failed in {image} (exit {:?}): {}",
            output.exit_code,
            output.stderr.trim()
        )));
    }
    let found: ProbeOutput = serde_json::from_str(output.stdout.trim())
        .map_err(|e| SandboxError::Infra(format!("the probe's answer could not be read: {e}")))?;
    Ok(Report {
        image: described,
        checks: found.checks,
        manifest: found.manifest,
    })
}
