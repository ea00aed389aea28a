//! Exports at run time: the configured [`ExportConfig`]s checked once, with the access rules of
//! exports(5) applied on MNT and on every NFS call: allowed client networks (IPv4-mapped IPv6 peers
//! match IPv4 networks), "secure" source ports, root/all squash and read-only.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use nfs3_proto::NfsErr3;

use crate::access::{Cred, Identity};
use crate::backend::{Backend, FileId};
use crate::{ConfigError, ExportConfig, IpNet, Squash};

/// Longest export path (RFC 1813 §5.1.4: MNTPATHLEN).
const MAX_PATH: usize = 1024;
/// Ports below this are privileged (exports(5) "secure").
const PRIVILEGED_PORTS: u16 = 1024;

/// Why a client may not use an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The client's address is in none of the export's networks.
    NotAllowed,
    /// The export is "secure" and the client's source port is 1024 or above.
    InsecurePort,
}

impl Refusal {
    /// The NFSv3 status knfsd answers: ACCES for an unlisted client, PERM for an insecure port.
    pub(crate) fn nfs_error(self) -> NfsErr3 {
        match self {
            Refusal::NotAllowed => NfsErr3::Acces,
            Refusal::InsecurePort => NfsErr3::Perm,
        }
    }
}

/// One export, validated.
pub(crate) struct Export {
    pub index: u16,
    pub path: String,
    pub backend: std::sync::Arc<dyn Backend>,
    pub root: FileId,
    pub read_only: bool,
    clients: Vec<IpNet>,
    squash: Squash,
    anon_uid: u32,
    anon_gid: u32,
    secure: bool,
}

impl std::fmt::Debug for Export {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Export")
            .field("index", &self.index)
            .field("path", &self.path)
            .field("backend", &self.backend.describe())
            .field("root", &self.root)
            .field("read_only", &self.read_only)
            .field("clients", &self.clients)
            .field("squash", &self.squash)
            .field("secure", &self.secure)
            .finish()
    }
}

impl Export {
    /// Checks the client's address and port against the export's rules.
    pub(crate) fn admit(&self, peer: SocketAddr) -> Result<(), Refusal> {
        if !self.clients.is_empty() {
            let ip = canonical_ip(peer.ip());
            if !self.clients.iter().any(|net| net_contains(net, ip)) {
                return Err(Refusal::NotAllowed);
            }
        }
        if self.secure && peer.port() >= PRIVILEGED_PORTS {
            return Err(Refusal::InsecurePort);
        }
        Ok(())
    }

    /// The credentials a caller acts with on this export (exports(5): root_squash, all_squash, anonuid,
    /// anongid; AUTH_NONE callers are anonymous).
    pub(crate) fn credentials(&self, who: &Identity) -> Cred {
        let anon = Cred::new(self.anon_uid, self.anon_gid, &[]);
        match (who, self.squash) {
            (Identity::Anonymous, _) | (Identity::Unix(_), Squash::All) => anon,
            (Identity::Unix(cred), Squash::None) => *cred,
            (Identity::Unix(cred), Squash::Root) => {
                let mut out = cred.map_groups(|g| if g == 0 { self.anon_gid } else { g });
                if out.uid == 0 {
                    out.uid = self.anon_uid;
                }
                out
            }
        }
    }

    /// The groups of the EXPORT reply (RFC 1813 §5.2.5): the allowed networks as text, none = everyone.
    pub(crate) fn group_names(&self) -> Vec<String> {
        self.clients.iter().map(|n| format!("{}/{}", n.addr, n.prefix_len)).collect()
    }
}

/// Checks the configured exports and builds their run-time form.
pub(crate) fn build(configs: &[ExportConfig]) -> Result<Vec<Export>, ConfigError> {
    let mut out: Vec<Export> = Vec::with_capacity(configs.len());
    for (i, cfg) in configs.iter().enumerate() {
        let bad = |why: &str| ConfigError::Export { path: cfg.path.clone(), why: why.to_string() };
        let index = u16::try_from(i).map_err(|_| bad("more than 65536 exports"))?;
        check_path(&cfg.path).map_err(bad)?;
        if out.iter().any(|e| e.path == cfg.path) {
            return Err(bad("exported twice"));
        }
        let mut clients = Vec::with_capacity(cfg.clients.len());
        for net in &cfg.clients {
            clients.push(canonical_net(net).ok_or_else(|| bad("client network prefix length out of range"))?);
        }
        out.push(Export {
            index,
            path: cfg.path.clone(),
            backend: cfg.backend.clone(),
            root: cfg.backend.root(),
            read_only: cfg.read_only,
            clients,
            squash: cfg.squash,
            anon_uid: cfg.anon_uid,
            anon_gid: cfg.anon_gid,
            secure: cfg.secure,
        });
    }
    Ok(out)
}

fn check_path(path: &str) -> Result<(), &'static str> {
    if !path.starts_with('/') {
        return Err("the path must be absolute");
    }
    if path.len() > 1 && path.ends_with('/') {
        return Err("the path must not end with '/'");
    }
    if path.len() > MAX_PATH {
        return Err("the path is longer than 1024 bytes");
    }
    if path.contains('\0') || path.split('/').any(|c| c == "." || c == "..") || path.contains("//") {
        return Err("the path must not contain NUL, '.', '..' or empty components");
    }
    Ok(())
}

/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as dual-stack sockets report IPv4 peers) as IPv4.
pub(crate) fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// A network in the form [`net_contains`] expects: IPv4-mapped IPv6 networks become IPv4 networks.
fn canonical_net(net: &IpNet) -> Option<IpNet> {
    match net.addr {
        IpAddr::V4(_) if net.prefix_len <= 32 => Some(*net),
        IpAddr::V6(v6) if net.prefix_len <= 128 => match v6.to_ipv4_mapped() {
            Some(v4) if net.prefix_len >= 96 => Some(IpNet { addr: IpAddr::V4(v4), prefix_len: net.prefix_len - 96 }),
            _ => Some(*net),
        },
        _ => None,
    }
}

/// True when `ip` (already canonical) lies in `net`.
pub(crate) fn net_contains(net: &IpNet, ip: IpAddr) -> bool {
    match (net.addr, ip) {
        (IpAddr::V4(n), IpAddr::V4(a)) => prefix_eq_v4(n, a, net.prefix_len),
        (IpAddr::V6(n), IpAddr::V6(a)) => prefix_eq_v6(n, a, net.prefix_len),
        _ => false,
    }
}

fn prefix_eq_v4(n: Ipv4Addr, a: Ipv4Addr, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len.min(32))).unwrap_or(0);
    u32::from(n) & mask == u32::from(a) & mask
}

fn prefix_eq_v6(n: Ipv6Addr, a: Ipv6Addr, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len.min(128))).unwrap_or(0);
    u128::from(n) & mask == u128::from(a) & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(text: &str, prefix_len: u8) -> IpNet {
        IpNet { addr: text.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)), prefix_len }
    }

    fn peer(text: &str) -> IpAddr {
        canonical_ip(text.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)))
    }

    #[test]
    fn ipv4_networks_match_by_prefix() {
        assert!(net_contains(&net("10.0.0.0", 8), peer("10.200.3.4")));
        assert!(!net_contains(&net("10.0.0.0", 8), peer("11.0.0.1")));
        assert!(net_contains(&net("0.0.0.0", 0), peer("192.0.2.1")));
        assert!(net_contains(&net("192.0.2.7", 32), peer("192.0.2.7")));
        assert!(!net_contains(&net("192.0.2.7", 32), peer("192.0.2.8")));
    }

    #[test]
    fn ipv4_mapped_peers_match_ipv4_networks() {
        assert!(net_contains(&net("127.0.0.0", 8), peer("::ffff:127.0.0.1")));
        let mapped = canonical_net(&net("::ffff:10.0.0.0", 104)).unwrap_or(net("::", 128));
        assert_eq!(mapped, net("10.0.0.0", 8));
        assert!(net_contains(&mapped, peer("10.1.2.3")));
    }

    #[test]
    fn ipv6_networks_do_not_match_ipv4_peers() {
        assert!(net_contains(&net("fd00::", 8), peer("fd12::1")));
        assert!(!net_contains(&net("::", 0), peer("127.0.0.1")));
    }

    #[test]
    fn prefix_lengths_beyond_the_address_size_are_refused() {
        assert_eq!(canonical_net(&net("10.0.0.0", 33)), None);
        assert_eq!(canonical_net(&net("::", 129)), None);
    }

    #[test]
    fn export_paths_must_be_absolute_and_normalised() {
        assert!(check_path("/").is_ok());
        assert!(check_path("/export/a").is_ok());
        for bad in ["export", "/export/", "/a/../b", "/a//b", "/a/./b"] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
