//! Which URLs the web tools may reach: the same address classes and domain patterns as the
//! sandboxes' egress proxy (`antler_sandbox::egress`), applied to the server's own requests.
//! Every refusal names the rule that refused.

use std::net::IpAddr;

use antler_protocol::egress::NetworkMode;
use antler_protocol::web::AgentWeb;
use antler_sandbox::egress::policy::{WEB_PORTS, normalize};
use antler_sandbox::egress::{Rules, address};
use url::Url;

use super::config::WebToolsConfig;

/// Host lists of one source (the server's `web.*` or an agent's `web`).
#[derive(Debug, Clone)]
struct Layer {
    /// Where the lists come from, for refusals.
    origin: &'static str,
    /// When set, only these hosts.
    allowed: Option<Rules>,
    /// Never these.
    blocked: Rules,
}

/// The rules one run's web tools follow.
#[derive(Debug, Clone)]
pub struct WebPolicy {
    allow_private: bool,
    ports: Vec<u16>,
    layers: Vec<Layer>,
}

impl WebPolicy {
    /// The server's rules; `Err` names the bad entry (`web.allowed_domains[2]: …`).
    pub fn new(cfg: &WebToolsConfig) -> Result<WebPolicy, String> {
        let ports = if cfg.allowed_ports.is_empty() {
            WEB_PORTS.to_vec()
        } else {
            cfg.allowed_ports.clone()
        };
        if ports.contains(&0) {
            return Err("web.allowed_ports: 0 is not a port".into());
        }
        let layer = layer("web", &cfg.allowed_domains, &cfg.blocked_domains)?;
        Ok(WebPolicy {
            allow_private: cfg.allow_private_networks,
            ports,
            layers: vec![layer],
        })
    }

    /// These rules narrowed by an agent's own lists.
    pub fn narrowed(&self, agent: &AgentWeb) -> Result<WebPolicy, String> {
        let allowed = agent.allowed_domains.as_deref().unwrap_or_default();
        let blocked = agent.blocked_domains.as_deref().unwrap_or_default();
        let mut out = self.clone();
        if !allowed.is_empty() || !blocked.is_empty() {
            out.layers.push(layer("context.web", allowed, blocked)?);
        }
        Ok(out)
    }

    /// Whether `url` may be asked for at all (before any DNS lookup): scheme, port, the
    /// domain lists, and an address written into the URL.
    pub fn check_url(&self, url: &Url) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "only http and https URLs can be fetched, not {}:",
                url.scheme()
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("a URL with a user name or password is refused".into());
        }
        let Some(host) = url.host_str().map(normalize).filter(|h| !h.is_empty()) else {
            return Err("the URL has no host".into());
        };
        let port = url.port_or_known_default().unwrap_or(0);
        if !self.ports.contains(&port) {
            return Err(format!(
                "port {port} is not allowed (web.allowed_ports: {})",
                self.ports
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        for layer in &self.layers {
            if layer.blocked.names(&host) {
                return Err(format!(
                    "{host} is blocked by {}.blocked_domains",
                    layer.origin
                ));
            }
            if let Some(allowed) = &layer.allowed
                && !allowed.names(&host)
            {
                return Err(format!("{host} is not in {}.allowed_domains", layer.origin));
            }
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            self.check_addrs(&host, &[ip])?;
        }
        Ok(())
    }

    /// The addresses `host` resolved to, once every one of them passed: an internal one
    /// refuses the whole name (a name that points inside, or rebinds there, is refused
    /// rather than tried elsewhere).
    pub fn check_addrs(&self, host: &str, addrs: &[IpAddr]) -> Result<Vec<IpAddr>, String> {
        if addrs.is_empty() {
            return Err(format!("{host} did not resolve to any address"));
        }
        let mut out: Vec<IpAddr> = Vec::with_capacity(addrs.len());
        for &ip in addrs {
            for layer in &self.layers {
                if layer.blocked.lists_ip(ip) {
                    return Err(format!(
                        "{host} resolves to {ip}, which {}.blocked_domains blocks",
                        layer.origin
                    ));
                }
            }
            if !self.allow_private
                && let Some(class) = address::class(ip)
            {
                let named = |l: &Layer| l.allowed.as_ref().is_some_and(|a| a.lists_ip(ip));
                if !self.layers.iter().all(named) {
                    let shown = if host == ip.to_string() {
                        format!("{ip} is {class}")
                    } else {
                        format!("{host} resolves to {ip}, {class}")
                    };
                    return Err(format!(
                        "{shown}; the web tools refuse internal addresses (web.allow_private_networks is off)"
                    ));
                }
            }
            if !out.contains(&ip) {
                out.push(ip);
            }
        }
        Ok(out)
    }
}

fn layer(origin: &'static str, allowed: &[String], blocked: &[String]) -> Result<Layer, String> {
    let parse = |list: &[String], key: &str| {
        Rules::parse(NetworkMode::Allowlist, list)
            .map_err(|(i, m)| format!("{origin}.{key}[{i}]: {m}"))
    };
    if let Some(preset) = allowed
        .iter()
        .chain(blocked)
        .find(|e| e.trim().starts_with('@'))
    {
        return Err(format!(
            "{origin}: presets such as {preset} are for sandboxes; list the hosts"
        ));
    }
    Ok(Layer {
        origin,
        allowed: if allowed.is_empty() {
            None
        } else {
            Some(parse(allowed, "allowed_domains")?)
        },
        blocked: parse(blocked, "blocked_domains")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(cfg: WebToolsConfig) -> WebPolicy {
        WebPolicy::new(&cfg).unwrap()
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn each_internal_address_class_is_refused_by_name() {
        let p = policy(WebToolsConfig::default());
        for (u, says) in [
            ("http://127.0.0.1/", "loopback"),
            ("http://10.1.2.3/", "private"),
            ("http://172.16.0.1/", "private"),
            ("http://192.168.1.1/", "private"),
            ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
            ("http://169.254.1.1/", "link-local"),
            ("http://100.64.0.1/", "carrier-grade NAT"),
            ("http://224.0.0.1/", "multicast"),
            ("http://0.0.0.0/", "unspecified"),
            ("http://[::1]/", "loopback"),
            ("http://[fd00:ec2::254]/", "unique-local"),
            ("http://[fe80::1]/", "link-local"),
            ("http://[::ffff:127.0.0.1]/", "embedding"),
            ("http://[::]/", "unspecified"),
        ] {
            let e = p.check_url(&url(u)).unwrap_err();
            assert!(
                e.contains(says) && e.contains("allow_private_networks"),
                "{u}: {e}"
            );
        }
        assert!(p.check_url(&url("https://93.184.215.14/")).is_ok());
    }

    #[test]
    fn a_name_resolving_inside_is_refused_as_a_whole() {
        let p = policy(WebToolsConfig::default());
        let public: IpAddr = "93.184.215.14".parse().unwrap();
        let inside: IpAddr = "10.0.0.5".parse().unwrap();
        let e = p
            .check_addrs("evil.example", &[public, inside])
            .unwrap_err();
        assert!(e.contains("evil.example resolves to 10.0.0.5"), "{e}");
        assert_eq!(
            p.check_addrs("ok.example", &[public, public]).unwrap(),
            [public]
        );
        let open = policy(WebToolsConfig {
            allow_private_networks: true,
            ..Default::default()
        });
        assert!(open.check_addrs("intranet", &[inside]).is_ok());
    }

    #[test]
    fn schemes_ports_and_credentials_are_checked() {
        let p = policy(WebToolsConfig::default());
        for (u, says) in [
            ("file:///etc/passwd", "only http and https"),
            ("ftp://example.com/", "only http and https"),
            ("gopher://example.com/", "only http and https"),
            ("http://example.com:8080/", "port 8080"),
            ("https://example.com:22/", "port 22"),
            ("http://user:pw@example.com/", "user name"),
        ] {
            let e = p.check_url(&url(u)).unwrap_err();
            assert!(e.contains(says), "{u}: {e}");
        }
        let wide = policy(WebToolsConfig {
            allowed_ports: vec![8080],
            ..Default::default()
        });
        assert!(wide.check_url(&url("http://example.com:8080/")).is_ok());
        assert!(wide.check_url(&url("http://example.com/")).is_err());
    }

    #[test]
    fn domain_lists_of_server_and_agent_both_apply() {
        let p = policy(WebToolsConfig {
            allowed_domains: vec!["*.example.com".into(), "docs.rs".into()],
            blocked_domains: vec!["secret.example.com".into()],
            ..Default::default()
        });
        assert!(p.check_url(&url("https://www.example.com/a")).is_ok());
        assert!(p.check_url(&url("https://docs.rs/")).is_ok());
        let e = p
            .check_url(&url("https://secret.example.com/"))
            .unwrap_err();
        assert!(e.contains("web.blocked_domains"), "{e}");
        let e = p.check_url(&url("https://evil.org/")).unwrap_err();
        assert!(e.contains("web.allowed_domains"), "{e}");
        let agent = p
            .narrowed(&AgentWeb {
                enabled: None,
                allowed_domains: Some(vec!["docs.rs".into()]),
                blocked_domains: None,
            })
            .unwrap();
        let e = agent
            .check_url(&url("https://www.example.com/"))
            .unwrap_err();
        assert!(e.contains("context.web.allowed_domains"), "{e}");
        assert!(agent.check_url(&url("https://DOCS.rs./")).is_ok());
    }

    #[test]
    fn a_listed_private_network_is_reachable_only_when_every_list_names_it() {
        let p = policy(WebToolsConfig {
            allowed_domains: vec!["10.0.0.0/8".into(), "wiki.corp".into()],
            ..Default::default()
        });
        let inside: IpAddr = "10.0.0.5".parse().unwrap();
        assert!(p.check_addrs("wiki.corp", &[inside]).is_ok());
        let bad = WebPolicy::new(&WebToolsConfig {
            blocked_domains: vec!["not a host".into()],
            ..Default::default()
        })
        .unwrap_err();
        assert!(bad.starts_with("web.blocked_domains[0]"), "{bad}");
    }
}
