//! Addresses: `addr=`, `remoteports=` (parse and canonical form), name resolution, and the AUTH_SYS
//! identity of this process.

use std::net::{IpAddr, Ipv4Addr, ToSocketAddrs};

use crate::error::OptionsError;
use crate::options::Opt;

/// Most addresses one `remoteports=` may name.
pub const MAX_REMOTEPORTS: usize = 64;

/// An IP address that can be connected to (not the any-address, which the kernel refuses as well).
pub(crate) fn parse_ip(o: &Opt<'_>, text: &str) -> Result<IpAddr, OptionsError> {
    let ip: IpAddr = text.parse().map_err(|_| o.bad(format!("'{text}' is not an IP address")))?;
    if ip.is_unspecified() {
        return Err(o.bad(format!("{ip} is the any-address, not a server")));
    }
    Ok(ip)
}

/// `remoteports=A-B` (an inclusive IPv4 range) or `A~B~C` (a list; `~` because `,` separates mount
/// options). List entries may themselves be ranges. At most [`MAX_REMOTEPORTS`] addresses in all.
pub(crate) fn parse_remoteports(o: &Opt<'_>) -> Result<Vec<IpAddr>, OptionsError> {
    let value = o.value()?;
    let mut out: Vec<IpAddr> = Vec::new();
    for part in value.split('~') {
        if part.is_empty() {
            return Err(o.bad("empty address; write a range A-B or a list A~B~C"));
        }
        if let Some((a, b)) = part.split_once('-') {
            let (a, b) = (ipv4(o, a)?, ipv4(o, b)?);
            let (lo, hi) = (u32::from(a), u32::from(b));
            if lo > hi {
                return Err(o.bad(format!("the range {a}-{b} runs backwards")));
            }
            if (hi - lo) as usize >= MAX_REMOTEPORTS - out.len() {
                return Err(o.bad(format!("more than {MAX_REMOTEPORTS} addresses")));
            }
            out.extend((lo..=hi).map(|n| IpAddr::V4(Ipv4Addr::from(n))));
        } else {
            out.push(parse_ip(o, part)?);
            if out.len() > MAX_REMOTEPORTS {
                return Err(o.bad(format!("more than {MAX_REMOTEPORTS} addresses")));
            }
        }
    }
    Ok(out)
}

fn ipv4(o: &Opt<'_>, text: &str) -> Result<Ipv4Addr, OptionsError> {
    match parse_ip(o, text)? {
        IpAddr::V4(v4) => Ok(v4),
        IpAddr::V6(_) => Err(o.bad(format!("ranges are IPv4 only ('{text}'); list IPv6 addresses as A~B~C"))),
    }
}

/// The canonical `remoteports=` value: runs of consecutive IPv4 addresses as `A-B`, joined by `~`.
pub(crate) fn format_remoteports(addrs: &[IpAddr]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < addrs.len() {
        let mut j = i;
        while let (IpAddr::V4(cur), Some(IpAddr::V4(next))) = (addrs[j], addrs.get(j + 1)) {
            if u32::from(cur).checked_add(1) != Some(u32::from(*next)) {
                break;
            }
            j += 1;
        }
        parts.push(if j > i { format!("{}-{}", addrs[i], addrs[j]) } else { addrs[i].to_string() });
        i = j + 1;
    }
    parts.join("~")
}

/// `server` as an address: a literal as is, a name resolved once (first IPv4 address, else the first).
pub(crate) fn resolve(server: &str) -> Result<IpAddr, OptionsError> {
    if let Ok(ip) = server.parse::<IpAddr>() {
        return Ok(ip);
    }
    let fail = |reason: String| OptionsError::Resolve { server: server.into(), reason };
    let found: Vec<IpAddr> =
        (server, 0u16).to_socket_addrs().map_err(|e| fail(e.to_string()))?.map(|sa| sa.ip()).collect();
    found
        .iter()
        .find(|ip| ip.is_ipv4())
        .or_else(|| found.first())
        .copied()
        .ok_or_else(|| fail("the name has no address".into()))
}

/// The uid and gid this process runs as, read from the owner of `/proc/self` (no `unsafe` needed).
pub(crate) fn process_identity() -> Option<(u32, u32)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").ok().map(|m| (m.uid(), m.gid()))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
