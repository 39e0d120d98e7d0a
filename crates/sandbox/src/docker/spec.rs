//! The container definition: binds, labels, and the hardening every sandbox gets.

use std::collections::HashMap;
use std::path::Path;

use bollard::models::{ContainerCreateBody, HostConfig};

use crate::config::SandboxConfig;
use crate::egress;

/// Label marking containers as Antler sandboxes.
pub const LABEL_SANDBOX: &str = "antler.sandbox";
/// Label holding the thread id (empty for warm containers).
pub const LABEL_THREAD: &str = "antler.thread";
/// Label holding the owning server instance.
pub const LABEL_INSTANCE: &str = "antler.instance";

/// Host directories behind one container's `/mnt/user-data/{workspace,uploads,outputs}`.
#[derive(Debug, Clone)]
pub struct Binds<'a> {
    /// Directory holding `workspace`, `uploads` and `outputs`.
    pub user_data: &'a Path,
    /// The skills view (mounted read-only).
    pub skills_view: &'a Path,
    /// The owner's personal skills (mounted read-only at `/mnt/skills/user`).
    pub personal: Option<&'a Path>,
    /// How the container reaches the network.
    pub network: Net<'a>,
}

/// A container's network.
#[derive(Debug, Clone, Copy)]
pub enum Net<'a> {
    /// Loopback only.
    None,
    /// Loopback only, with the relay to its egress endpoint (the directory holding the
    /// socket).
    Proxied(&'a Path),
    /// The named Docker network.
    Open(&'a str),
}

/// The create request for one sandbox container.
pub fn container_body(
    cfg: &SandboxConfig,
    binds: &Binds<'_>,
    user: (u32, u32),
    instance: &str,
    thread: Option<&str>,
) -> ContainerCreateBody {
    let d = &cfg.docker;
    let memory = i64::try_from(d.memory_mb.saturating_mul(1024 * 1024)).unwrap_or(i64::MAX);
    let mut bind_list: Vec<String> = ["workspace", "uploads", "outputs"]
        .iter()
        .map(|dir| {
            format!(
                "{}:/mnt/user-data/{dir}:rw",
                binds.user_data.join(dir).display()
            )
        })
        .collect();
    bind_list.push(format!("{}:/mnt/skills:ro", binds.skills_view.display()));
    if let Some(personal) = binds.personal {
        // Over the empty `user/` of the shared view, which is its mount point.
        bind_list.push(format!("{}:/mnt/skills/user:ro", personal.display()));
    }
    let labels = HashMap::from([
        (LABEL_SANDBOX.to_string(), "1".to_string()),
        (LABEL_THREAD.to_string(), thread.unwrap_or("").to_string()),
        (LABEL_INSTANCE.to_string(), instance.to_string()),
    ]);
    let mut env: Vec<String> = vec![
        "HOME=/tmp".into(),
        "LANG=C.UTF-8".into(),
        "PYTHONDONTWRITEBYTECODE=1".into(),
        // `pip install --user` into /tmp/.local despite Debian's externally-managed marker.
        "PIP_BREAK_SYSTEM_PACKAGES=1".into(),
    ];
    let mut cmd = None;
    let network_mode = match binds.network {
        Net::None => "none".to_string(),
        Net::Proxied(dir) => {
            bind_list.push(format!("{}:{}:ro", dir.display(), egress::CONTAINER_DIR));
            env.extend(egress::proxy_env());
            cmd = Some(egress::relay_command());
            "none".to_string()
        }
        Net::Open(name) => name.to_string(),
    };
    ContainerCreateBody {
        image: Some(cfg.image.clone()),
        user: Some(format!("{}:{}", user.0, user.1)),
        working_dir: Some("/mnt/user-data/workspace".into()),
        env: Some(env),
        cmd,
        labels: Some(labels),
        host_config: Some(HostConfig {
            binds: Some(bind_list),
            cap_drop: Some(vec!["ALL".into()]),
            // Docker's default seccomp profile stays in force: no `seccomp=unconfined` here.
            security_opt: Some(vec!["no-new-privileges:true".into()]),
            readonly_rootfs: Some(true),
            tmpfs: Some(HashMap::from([(
                "/tmp".to_string(),
                format!("rw,nosuid,nodev,size={}m,mode=1777", d.tmp_size_mb),
            )])),
            pids_limit: Some(d.pids_limit),
            memory: Some(memory),
            memory_swap: Some(memory),
            nano_cpus: Some((d.cpus * 1e9) as i64),
            network_mode: Some(network_mode),
            runtime: d.runtime.clone().filter(|r| !r.is_empty()),
            init: Some(true),
            ipc_mode: Some("private".into()),
            privileged: Some(false),
            publish_all_ports: Some(false),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_hardened_by_default() {
        let cfg = SandboxConfig::default();
        let binds = Binds {
            user_data: Path::new("/d/t/user-data"),
            skills_view: Path::new("/d/skills-view"),
            personal: Some(Path::new("/d/personal/x/user")),
            network: Net::None,
        };
        let body = container_body(&cfg, &binds, (1000, 1000), "inst", Some("t1"));
        let host = body.host_config.unwrap();
        assert_eq!(host.cap_drop.unwrap(), ["ALL"]);
        let security = host.security_opt.unwrap();
        assert!(security.contains(&"no-new-privileges:true".to_string()));
        assert!(!security.iter().any(|s| s.contains("unconfined")));
        assert_eq!(host.readonly_rootfs, Some(true));
        assert_eq!(host.network_mode.as_deref(), Some("none"));
        assert_eq!(host.pids_limit, Some(256));
        assert_eq!(
            host.memory, host.memory_swap,
            "no swap beyond the memory limit"
        );
        assert!(host.port_bindings.is_none());
        assert_eq!(
            host.binds.unwrap(),
            [
                "/d/t/user-data/workspace:/mnt/user-data/workspace:rw",
                "/d/t/user-data/uploads:/mnt/user-data/uploads:rw",
                "/d/t/user-data/outputs:/mnt/user-data/outputs:rw",
                "/d/skills-view:/mnt/skills:ro",
                "/d/personal/x/user:/mnt/skills/user:ro",
            ]
        );
        assert_eq!(body.user.as_deref(), Some("1000:1000"));
        let labels = body.labels.unwrap();
        assert_eq!(labels[LABEL_THREAD], "t1");
        assert_eq!(labels[LABEL_INSTANCE], "inst");
        assert!(body.cmd.is_none(), "the image's own command");
    }

    #[test]
    fn a_proxied_container_has_no_network_but_its_relay() {
        let cfg = SandboxConfig::default();
        let binds = Binds {
            user_data: Path::new("/d/t/user-data"),
            skills_view: Path::new("/d/skills-view"),
            personal: None,
            network: Net::Proxied(Path::new("/d/egress/i/abc")),
        };
        let body = container_body(&cfg, &binds, (1000, 1000), "inst", Some("t1"));
        let host = body.host_config.unwrap_or_default();
        assert_eq!(host.network_mode.as_deref(), Some("none"));
        assert!(
            host.binds
                .unwrap_or_default()
                .contains(&"/d/egress/i/abc:/run/antler-egress:ro".to_string())
        );
        let env = body.env.unwrap_or_default();
        assert!(env.contains(&"HTTPS_PROXY=http://127.0.0.1:3128".to_string()));
        assert!(body.cmd.unwrap_or_default().join(" ").contains("socat"));
    }
}
