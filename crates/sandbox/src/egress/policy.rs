//! The allow-list: which hosts and ports a sandbox may reach, and the check of every
//! address a name resolves to.

use std::net::IpAddr;

use antler_protocol::egress::NetworkMode;
use ipnet::IpNet;

use super::address::is_public;

/// Ports an entry without one allows (and the web tools' default ports).
pub const WEB_PORTS: [u16; 2] = [80, 443];

/// What the named presets stand for.
const PRESETS: &[(&str, &[&str])] = &[
    (
        "@packages",
        &[
            "pypi.org",
            "files.pythonhosted.org",
            "registry.npmjs.org",
            "registry.yarnpkg.com",
        ],
    ),
    (
        "@github",
        &[
            "github.com",
            "*.github.com",
            "*.githubusercontent.com",
            "codeload.github.com",
        ],
    ),
];

/// The names of the presets, for messages and documentation.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(name, _)| *name).collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    /// `example.com`.
    Exact(String),
    /// `*.example.com`, kept as `.example.com`: any name below, not the name itself.
    Below(String),
}

impl Pattern {
    fn matches(&self, host: &str) -> bool {
        match self {
            Pattern::Exact(name) => name == host,
            Pattern::Below(suffix) => host.ends_with(suffix.as_str()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HostRule {
    pattern: Pattern,
    port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct NetRule {
    net: IpNet,
    port: Option<u16>,
}

/// A sandbox's network policy, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rules {
    mode: NetworkMode,
    hosts: Vec<HostRule>,
    nets: Vec<NetRule>,
}

/// What the proxy connects to once a host passed [`Rules::admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A name to resolve (each address then goes through [`Rules::pick`]).
    Name(String),
    /// An address listed explicitly.
    Ip(IpAddr),
}

impl Rules {
    /// Parses `entries` for `mode`; `Err` names the entry (by index) and what is wrong.
    pub fn parse(mode: NetworkMode, entries: &[String]) -> Result<Rules, (usize, String)> {
        let mut rules = Rules {
            mode,
            ..Rules::default()
        };
        for (i, entry) in entries.iter().enumerate() {
            let entry = entry.trim().to_ascii_lowercase();
            if entry.starts_with('@') {
                let Some((_, members)) = PRESETS.iter().find(|(name, _)| *name == entry) else {
                    return Err((
                        i,
                        format!(
                            "unknown preset {entry}; the presets are {}",
                            preset_names().join(", ")
                        ),
                    ));
                };
                for member in *members {
                    rules.add(member).map_err(|m| (i, m))?;
                }
            } else {
                rules.add(&entry).map_err(|m| (i, m))?;
            }
        }
        Ok(rules)
    }

    /// The mode these rules belong to.
    pub fn mode(&self) -> NetworkMode {
        self.mode
    }

    fn add(&mut self, entry: &str) -> Result<(), String> {
        if entry.is_empty() {
            return Err("must not be empty".into());
        }
        if let Ok(net) = entry.parse::<IpNet>() {
            self.nets.push(NetRule { net, port: None });
            return Ok(());
        }
        let (host, port) = split_port(entry)?;
        if let Ok(ip) = host.parse::<IpAddr>() {
            self.nets.push(NetRule {
                net: IpNet::from(ip),
                port,
            });
            return Ok(());
        }
        let pattern = match host.strip_prefix("*.") {
            Some(rest) => {
                check_name(rest)?;
                Pattern::Below(format!(".{rest}"))
            }
            None => {
                check_name(host)?;
                Pattern::Exact(host.to_string())
            }
        };
        self.hosts.push(HostRule { pattern, port });
        Ok(())
    }

    /// Whether `host:port` may be asked for at all (before any DNS lookup).
    pub fn admit(&self, host: &str, port: u16) -> Result<Target, String> {
        match self.mode {
            NetworkMode::None => {
                return Err("this sandbox has no network access (sandbox.network: none)".into());
            }
            NetworkMode::Open => return Ok(Target::Name(normalize(host))),
            NetworkMode::Allowlist => {}
        }
        let host = normalize(host);
        if let Ok(ip) = host.parse::<IpAddr>() {
            return if self.net_allows(ip, port) {
                Ok(Target::Ip(ip))
            } else {
                Err(format!(
                    "{host}:{port} is an IP address, which the egress policy allows only when sandbox.egress.allowed_domains lists it"
                ))
            };
        }
        if check_name(&host).is_err() {
            return Err(format!("{host} is not a host name"));
        }
        let mut named = false;
        for rule in &self.hosts {
            if rule.pattern.matches(&host) {
                named = true;
                if port_ok(rule.port, port) {
                    return Ok(Target::Name(host));
                }
            }
        }
        Err(if named {
            format!(
                "port {port} of {host} is not allowed by the egress policy (an entry without a port allows 80 and 443; list {host}:{port} to allow it)"
            )
        } else {
            format!("{host} is not in the egress allow-list (sandbox.egress.allowed_domains)")
        })
    }

    /// The address to connect to among those `host` resolved to: every one must be public
    /// or listed, so a name pointing inside (or rebinding there) is refused as a whole.
    pub fn pick(&self, host: &str, addrs: &[IpAddr], port: u16) -> Result<IpAddr, String> {
        self.checked(host, addrs, port).map(|all| all[0])
    }

    /// Every address `host` resolved to, in order, once all of them passed (see
    /// [`Rules::pick`]); never empty.
    pub fn checked(&self, host: &str, addrs: &[IpAddr], port: u16) -> Result<Vec<IpAddr>, String> {
        if addrs.is_empty() {
            return Err(format!("{host} did not resolve to any address"));
        }
        if self.mode != NetworkMode::Open
            && let Some(bad) = addrs
                .iter()
                .find(|ip| !is_public(**ip) && !self.net_allows(**ip, port))
        {
            return Err(format!(
                "{host} resolves to {bad}, a private or reserved address the egress policy refuses unless sandbox.egress.allowed_domains lists it"
            ));
        }
        let mut out: Vec<IpAddr> = Vec::with_capacity(addrs.len());
        for ip in addrs {
            if !out.contains(ip) {
                out.push(*ip);
            }
        }
        Ok(out)
    }

    /// Whether an entry names `host` (a name, or an IP literal inside a listed network),
    /// whatever its port: for lists that block, or that allow a host outright.
    pub fn names(&self, host: &str) -> bool {
        let host = normalize(host);
        if let Ok(ip) = host.parse::<IpAddr>() {
            return self.lists_ip(ip);
        }
        self.hosts.iter().any(|rule| rule.pattern.matches(&host))
    }

    /// Whether a listed IP or CIDR holds `ip`, whatever its port.
    pub fn lists_ip(&self, ip: IpAddr) -> bool {
        let ip = unmapped(ip);
        self.nets.iter().any(|rule| rule.net.contains(&ip))
    }

    fn net_allows(&self, ip: IpAddr, port: u16) -> bool {
        let ip = unmapped(ip);
        self.nets
            .iter()
            .any(|rule| rule.net.contains(&ip) && rule.port.is_none_or(|p| p == port))
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it is (listed networks are matched so).
fn unmapped(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn port_ok(rule: Option<u16>, port: u16) -> bool {
    rule.map_or(WEB_PORTS.contains(&port), |p| p == port)
}

/// `host` as compared: lower case, without a trailing dot or IPv6 brackets.
pub fn normalize(host: &str) -> String {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        Some(inner) => inner.to_string(),
        None => host,
    }
}

/// `host[:port]` or `[v6]:port`.
fn split_port(entry: &str) -> Result<(&str, Option<u16>), String> {
    let bad_port = || format!("{entry}: the port must be a number from 1 to 65535");
    if let Some(rest) = entry.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("{entry}: missing ]"))?;
        return match after.strip_prefix(':') {
            Some(p) => Ok((host, Some(parse_port(p).ok_or_else(bad_port)?))),
            None if after.is_empty() => Ok((host, None)),
            None => Err(format!("{entry}: unexpected text after ]")),
        };
    }
    match entry.rsplit_once(':') {
        // More than one colon: a bare IPv6 address.
        Some((host, _)) if host.contains(':') => Ok((entry, None)),
        Some((host, p)) => Ok((host, Some(parse_port(p).ok_or_else(bad_port)?))),
        None => Ok((entry, None)),
    }
}

fn parse_port(p: &str) -> Option<u16> {
    p.parse::<u16>().ok().filter(|p| *p > 0)
}

fn check_name(name: &str) -> Result<(), String> {
    let ok_label = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if name.len() > 253 || !name.split('.').all(ok_label) {
        return Err(format!(
            "{name} is not a host name (use example.com, *.example.com, host:port, an IP address or a CIDR)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(entries: &[&str]) -> Rules {
        let entries: Vec<String> = entries.iter().map(|s| s.to_string()).collect();
        Rules::parse(NetworkMode::Allowlist, &entries).unwrap_or_default()
    }

    fn ip(s: &str) -> IpAddr {
        s.parse()
            .unwrap_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
    }

    #[test]
    fn names_match_exactly_or_below_a_wildcard() {
        let rules = allow(&["Example.com", "*.pythonhosted.org"]);
        assert!(rules.admit("example.com", 443).is_ok());
        assert!(rules.admit("EXAMPLE.com.", 80).is_ok());
        assert!(rules.admit("www.example.com", 443).is_err());
        assert!(rules.admit("files.pythonhosted.org", 443).is_ok());
        assert!(rules.admit("a.b.pythonhosted.org", 443).is_ok());
        assert!(rules.admit("pythonhosted.org", 443).is_err());
        assert!(rules.admit("evilpythonhosted.org", 443).is_err());
        assert!(
            rules.admit("x\\.pythonhosted.org", 443).is_err(),
            "not a name"
        );
        let refused = rules.admit("other.org", 443).unwrap_err();
        assert!(refused.contains("allow-list"), "{refused}");
    }

    #[test]
    fn ports_are_web_ports_unless_an_entry_names_one() {
        let rules = allow(&["example.com", "api.test:8443"]);
        assert!(
            rules
                .admit("example.com", 22)
                .unwrap_err()
                .contains("port 22")
        );
        assert!(rules.admit("api.test", 8443).is_ok());
        assert!(rules.admit("api.test", 443).is_err());
    }

    #[test]
    fn ip_literals_need_an_explicit_entry() {
        let rules = allow(&["example.com", "127.0.0.2:8080", "10.0.0.0/8", "[::1]:9000"]);
        assert!(
            rules
                .admit("1.1.1.1", 443)
                .unwrap_err()
                .contains("IP address")
        );
        assert_eq!(
            rules.admit("127.0.0.2", 8080),
            Ok(Target::Ip(ip("127.0.0.2")))
        );
        assert!(rules.admit("127.0.0.2", 8081).is_err());
        assert!(rules.admit("10.9.8.7", 5432).is_ok());
        assert!(rules.admit("[::1]", 9000).is_ok());
        assert!(rules.admit("169.254.169.254", 80).is_err());
    }

    #[test]
    fn a_name_resolving_inside_is_refused_unless_listed() {
        let rules = allow(&["localhost", "mirror.corp", "10.1.0.0/16"]);
        let refused = rules.pick("localhost", &[ip("127.0.0.1")], 80).unwrap_err();
        assert!(refused.contains("127.0.0.1"), "{refused}");
        // One private address among public ones (a rebinding answer) refuses the name.
        assert!(
            rules
                .pick("x", &[ip("93.184.216.34"), ip("169.254.169.254")], 80)
                .is_err()
        );
        assert!(rules.pick("x", &[ip("::ffff:10.0.0.1")], 80).is_err());
        assert_eq!(
            rules.pick("mirror.corp", &[ip("10.1.2.3")], 443),
            Ok(ip("10.1.2.3"))
        );
        assert_eq!(
            rules.pick("x", &[ip("93.184.216.34")], 443),
            Ok(ip("93.184.216.34"))
        );
        assert!(rules.pick("x", &[], 443).is_err());
    }

    #[test]
    fn presets_expand_and_bad_entries_are_named() {
        let rules = allow(&["@packages"]);
        assert!(rules.admit("pypi.org", 443).is_ok());
        assert!(rules.admit("registry.npmjs.org", 443).is_ok());
        let bad = |e: &str| Rules::parse(NetworkMode::Allowlist, &[e.to_string()]).unwrap_err();
        assert!(bad("@nope").1.contains("@packages"));
        assert!(bad("exa mple.com").1.contains("not a host name"));
        assert!(bad("a.com:99999").1.contains("port"));
        assert!(bad("*.*.com").1.contains("not a host name"));
        assert_eq!(bad("").0, 0);
    }

    #[test]
    fn no_network_refuses_everything() {
        let rules = Rules::parse(NetworkMode::None, &["example.com".into()]).unwrap_or_default();
        assert!(
            rules
                .admit("example.com", 443)
                .unwrap_err()
                .contains("none")
        );
    }
}
