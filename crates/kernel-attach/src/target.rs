//! A block target as the kernel engine names it: `KIND://HOST[:PORT]/NAME`, the scheme being the
//! transport (`nvme-tcp`, `nvme-rdma`, `iscsi`, `iser`), the name an NVMe subsystem NQN or an iSCSI
//! target name (IQN, EUI or NAA).

use std::fmt;
use std::net::{IpAddr, Ipv6Addr, ToSocketAddrs};
use std::str::FromStr;

use serde::Serialize;

use crate::error::AttachError;

/// NQNs and iSCSI names are at most 223 bytes (NVMe Base spec NVMF_NQN_SIZE, RFC 7143 §4.2.7.1).
const NAME_MAX: usize = 223;

/// A block transport, each attached with the kernel's own initiator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    NvmeTcp,
    NvmeRdma,
    Iscsi,
    Iser,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::NvmeTcp, Kind::NvmeRdma, Kind::Iscsi, Kind::Iser];

    /// The name, which is also the URL scheme.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::NvmeTcp => "nvme-tcp",
            Kind::NvmeRdma => "nvme-rdma",
            Kind::Iscsi => "iscsi",
            Kind::Iser => "iser",
        }
    }

    /// Whether the transport runs over RDMA (NVMe/RDMA, iSER).
    pub fn is_rdma(self) -> bool {
        matches!(self, Kind::NvmeRdma | Kind::Iser)
    }

    /// Whether the target is NVMe over Fabrics (nvme-cli) rather than iSCSI (open-iscsi).
    pub fn is_nvme(self) -> bool {
        matches!(self, Kind::NvmeTcp | Kind::NvmeRdma)
    }

    /// 4420 is IANA's NVMe-oF port (RDMA and TCP I/O controllers), 3260 iSCSI's (iSER too, RFC 7145).
    pub fn default_port(self) -> u16 {
        if self.is_nvme() {
            4420
        } else {
            3260
        }
    }

    /// Reads a kind's name (`nvme-rdma`), case-insensitively; [`str::parse`] gives an error naming
    /// the four instead of `None`.
    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str().eq_ignore_ascii_case(text))
    }

    /// How reports name the transport: `NVMe/RDMA`, `iSCSI over iSER`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::NvmeTcp => "NVMe/TCP",
            Kind::NvmeRdma => "NVMe/RDMA",
            Kind::Iscsi => "iSCSI over TCP",
            Kind::Iser => "iSCSI over iSER",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Kind {
    type Err = AttachError;
    fn from_str(s: &str) -> Result<Kind, AttachError> {
        Kind::parse(s).ok_or_else(|| AttachError::UnknownKind { kind: s.to_string() })
    }
}

/// A remote block device: where it is and what it is called.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Target {
    pub kind: Kind,
    /// A host name, an IPv4 address or an IPv6 address (without brackets).
    pub host: String,
    pub port: u16,
    /// The subsystem NQN (NVMe) or the target name (iSCSI).
    pub name: String,
}

impl Target {
    /// Reads `KIND://HOST[:PORT]/NAME`; an IPv6 host is written in brackets (`iscsi://[fd00::1]:3260/iqn...`).
    pub fn parse(url: &str) -> Result<Target, AttachError> {
        let bad = |why: &str| AttachError::BadUrl { url: url.to_string(), why: why.to_string() };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("no KIND:// scheme"))?;
        let kind = Kind::parse(scheme)
            .ok_or_else(|| AttachError::UnknownScheme { url: url.to_string(), scheme: scheme.to_string() })?;
        let (authority, name) = rest.split_once('/').ok_or_else(|| bad("no /NAME after the host"))?;
        let (host, port) = split_authority(authority).map_err(|why| bad(&why))?;
        let port = port.unwrap_or(kind.default_port());
        check_name(kind, name).map_err(|why| AttachError::BadName {
            url: url.to_string(),
            kind,
            name: name.to_string(),
            why,
        })?;
        Ok(Target { kind, host, port, name: name.to_string() })
    }

    /// Whether `text` starts like a block target URL (one of the four schemes), to tell it from an NFS
    /// `HOST:/EXPORT` target before parsing.
    pub fn is_target_url(text: &str) -> bool {
        Kind::ALL.iter().any(|k| {
            let scheme = k.as_str();
            text.len() > scheme.len() + 3
                && text.is_char_boundary(scheme.len())
                && text[..scheme.len()].eq_ignore_ascii_case(scheme)
                && text[scheme.len()..].starts_with("://")
        })
    }

    /// The canonical form: lower-case scheme, the port always written, IPv6 in brackets.
    pub fn url(&self) -> String {
        format!("{}://{}/{}", self.kind, host_port(&self.host, self.port), self.name)
    }

    /// The host's address: the host itself when it is an IP address, else its first resolved address
    /// (the kernel's NVMe-oF and iSCSI transports take numeric addresses only).
    pub(crate) fn resolve(&self) -> Result<IpAddr, AttachError> {
        if let Ok(ip) = self.host.parse::<IpAddr>() {
            return Ok(ip);
        }
        let resolve_error = |source| AttachError::Resolve { host: self.host.clone(), kind: self.kind, source };
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(resolve_error)?
            .next()
            .map(|sa| sa.ip())
            .ok_or_else(|| resolve_error(std::io::Error::new(std::io::ErrorKind::NotFound, "no address")))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url())
    }
}

/// `HOST:PORT`, the host in brackets when it is an IPv6 address (as iscsiadm's `-p` takes it).
pub(crate) fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Whether an address the kernel shows (`10.99.0.1`, `fd00::1`, `[fd00::1]`, `fe80::1%eth0`) is `ip`.
pub(crate) fn same_address(shown: &str, ip: IpAddr) -> bool {
    let bare = shown.trim().trim_start_matches('[').trim_end_matches(']');
    let bare = bare.split_once('%').map_or(bare, |(addr, _scope)| addr);
    match bare.parse::<IpAddr>() {
        Ok(shown_ip) => shown_ip == ip || ipv4_mapped(shown_ip) == Some(ip),
        Err(_) => false,
    }
}

fn ipv4_mapped(ip: IpAddr) -> Option<IpAddr> {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4),
        IpAddr::V4(_) => None,
    }
}

/// `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`.
fn split_authority(authority: &str) -> Result<(String, Option<u16>), String> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (v6, after) = rest.split_once(']').ok_or("an IPv6 address without its closing ']'")?;
        v6.parse::<Ipv6Addr>().map_err(|_| format!("'{v6}' in brackets is not an IPv6 address"))?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':').ok_or(format!("'{after}' after the IPv6 address"))?),
        };
        (v6, port)
    } else {
        match authority.split_once(':') {
            Some((_, port)) if port.contains(':') => {
                return Err("an IPv6 host is written in brackets: [ADDRESS]:PORT".to_string())
            }
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("no host".to_string());
    }
    let host_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':');
    if !host.chars().all(host_char) {
        return Err(format!("'{host}' is not a host name or address"));
    }
    let port = match port {
        None => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n != 0 && p.bytes().all(|b| b.is_ascii_digit()) => Some(n),
            _ => return Err(format!("'{p}' is not a port (1 to 65535)")),
        },
    };
    Ok((host.to_string(), port))
}

/// NQNs start `nqn.` (NVMe Base spec 4.5), iSCSI names `iqn.`, `eui.` or `naa.` (RFC 7143 §4.2.7).
fn check_name(kind: Kind, name: &str) -> Result<(), String> {
    let prefixes: &[&str] = if kind.is_nvme() { &["nqn."] } else { &["iqn.", "eui.", "naa."] };
    if name.is_empty() {
        return Err("empty".to_string());
    }
    if !prefixes.iter().any(|p| name.starts_with(p)) {
        return Err(format!("it must start with {}", prefixes.join(", ")));
    }
    if name.len() > NAME_MAX {
        return Err(format!("{} bytes, more than the {NAME_MAX} allowed", name.len()));
    }
    // The kernel's fabrics options and iscsiadm's records are comma-separated: a comma would split it.
    if let Some(c) = name.chars().find(|&c| c == ',' || c == '/' || c.is_whitespace() || c.is_control()) {
        return Err(format!("{c:?} is not allowed in it"));
    }
    Ok(())
}
