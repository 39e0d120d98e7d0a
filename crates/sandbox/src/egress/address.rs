//! Which addresses are the public internet. Everything else (loopback, private, link-local
//! with the cloud metadata service, CGNAT, multicast, …) is only reachable when a policy
//! names it explicitly.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    class(ip).is_none()
}

/// What kind of non-public address `ip` is (`None` for a public one), for refusals that
/// name the rule.
pub fn class(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => class_v4(v4),
        IpAddr::V6(v6) => class_v6(v6),
    }
}

fn class_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, d] = ip.octets();
    Some(if ip.is_unspecified() || a == 0 {
        "an unspecified (0.0.0.0/8) address"
    } else if ip.is_loopback() {
        "a loopback address"
    } else if ip.is_private() {
        "a private (RFC 1918) address"
    } else if a == 169 && b == 254 && c == 169 && d == 254 {
        "the cloud metadata address"
    } else if ip.is_link_local() {
        "a link-local address"
    } else if a == 100 && (64..128).contains(&b) {
        "a carrier-grade NAT (100.64.0.0/10) address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if ip.is_broadcast() || a >= 240 {
        "a reserved address"
    } else if ip.is_documentation() {
        "a documentation address"
    } else if a == 192 && b == 0 && c == 0 {
        "an IETF protocol address (192.0.0.0/24)"
    } else if a == 198 && (b == 18 || b == 19) {
        "a benchmarking address"
    } else {
        return None;
    })
}

fn class_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = embedded_v4(ip) {
        return class_v4(v4).map(|_| "an IPv6 address embedding a non-public IPv4 address");
    }
    let first = ip.segments()[0];
    Some(if ip.is_unspecified() {
        "an unspecified address"
    } else if ip.is_loopback() {
        "a loopback address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if (first & 0xfe00) == 0xfc00 {
        // fd00:ec2::254 is AWS's metadata service over IPv6.
        "a unique-local (fc00::/7) address"
    } else if (first & 0xffc0) == 0xfe80 || (first & 0xffc0) == 0xfec0 {
        "a link-local address"
    } else if first == 0x2001 && ip.segments()[1] == 0x0db8 {
        "a documentation address"
    } else {
        return None;
    })
}

/// The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 address: such an
/// address reaches that IPv4 host, so it is judged as that host.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    // ::a.b.c.d (deprecated IPv4-compatible; `::` and `::1` are handled as themselves).
    if s[..6].iter().all(|&x| x == 0) && !ip.is_unspecified() && !ip.is_loopback() {
        return Some(low);
    }
    // NAT64, 64:ff9b::/96.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6].iter().all(|&x| x == 0) {
        return Some(low);
    }
    // 6to4, 2002:AABB:CCDD::/48.
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(s: &str) -> bool {
        is_public(s.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)))
    }

    #[test]
    fn internal_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "127.9.9.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "240.0.0.1",
            "192.0.0.170",
            "198.18.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:a9fe:a9fe::1",
            "2001:db8::1",
            "fd00:ec2::254",
        ] {
            assert!(!public(ip), "{ip} counted as public");
        }
    }

    #[test]
    fn internet_addresses_are_public() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "151.101.0.223",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(public(ip), "{ip} counted as internal");
        }
    }
}
