//! The target: `HOST:/EXPORT` as mount.nfs takes it (`[IPv6]:/EXPORT`), or a libnfs URL
//! `nfs://HOST[:PORT]/EXPORT?key=value&...` (RFC 2224 style, `[IPv6]` in brackets, `%XX` escapes).

use std::net::Ipv6Addr;

use crate::error::OptionsError;

/// Longest export path: `dirpath` is `string<MNTPATHLEN>` (RFC 1813 Appendix I §5.1.4, §5.1.5).
const MNTPATHLEN: usize = 1024;
/// Longest host name (RFC 1035 §2.3.4).
const MAX_HOST: usize = 255;

/// A parsed target, before any option is applied.
#[derive(Debug)]
pub(crate) struct Target {
    pub server: String,
    pub export: String,
    /// The port of a URL's authority (`nfs://host:2049/...`): the NFS port.
    pub port: Option<u16>,
    /// URL parameters in order, percent-decoded.
    pub params: Vec<(String, Option<String>)>,
}

pub(crate) fn parse(target: &str) -> Result<Target, OptionsError> {
    let bad = |reason: &str| OptionsError::BadTarget { target: target.into(), reason: reason.into() };
    match target.get(..6) {
        Some(scheme) if scheme.eq_ignore_ascii_case("nfs://") => parse_url(target, &target[6..]),
        _ if target.contains("://") => Err(bad("the only URL scheme is nfs://")),
        _ => {
            let (host, export) = match target.strip_prefix('[') {
                Some(rest) => rest.split_once("]:").ok_or_else(|| bad("no ']:' after an [IPv6] server"))?,
                None => target.split_once(':').ok_or_else(|| bad("expected HOST:/EXPORT or nfs://HOST/EXPORT"))?,
            };
            if !export.starts_with('/') {
                let hint = if export.contains(':') { "; write an IPv6 server in brackets, [::1]:/export" } else { "" };
                return Err(bad(&format!("the export path must start with '/'{hint}")));
            }
            let server = if target.starts_with('[') {
                ipv6(target, host)?
            } else if host.contains(',') {
                return Err(bad("server lists (a,b:/export) are not supported; give one server"));
            } else {
                hostname(target, host)?
            };
            Ok(Target { server, export: export_path(target, export.into())?, port: None, params: Vec::new() })
        }
    }
}

fn parse_url(target: &str, rest: &str) -> Result<Target, OptionsError> {
    let bad = |reason: &str| OptionsError::BadTarget { target: target.into(), reason: reason.into() };
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let slash = before_query.find('/').ok_or_else(|| bad("the URL has no export path (nfs://HOST/EXPORT)"))?;
    let (authority, path) = before_query.split_at(slash);
    if let Some((user, _)) = authority.split_once('@') {
        return Err(bad(&format!(
            "a user name in the URL ('{user}@') is for Kerberos, which nfsbench does not support"
        )));
    }
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let (host, after) = inner.split_once(']').ok_or_else(|| bad("no ']' after an [IPv6] server"))?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or_else(|| bad("expected ':PORT' after ']'"))?),
        };
        (ipv6(target, host)?, port)
    } else {
        match authority.split_once(':') {
            Some((_, p)) if p.contains(':') => return Err(bad("write an IPv6 server in brackets, nfs://[::1]/export")),
            Some((h, p)) => (hostname(target, h)?, Some(p)),
            None => (hostname(target, authority)?, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse::<u16>().map_err(|_| bad(&format!("port {p} is over 65535")))?)
        }
        Some(p) => return Err(bad(&format!("'{p}' is not a port number"))),
    };
    let export = export_path(target, decode(target, path)?)?;
    let mut params = Vec::new();
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = match pair.split_once('=') {
            Some((k, v)) => (decode(target, k)?, Some(decode(target, v)?)),
            None => (decode(target, pair)?, None),
        };
        params.push((k, v));
    }
    Ok(Target { server: host, export, port, params })
}

fn ipv6(target: &str, host: &str) -> Result<String, OptionsError> {
    host.parse::<Ipv6Addr>().map(|_| host.to_owned()).map_err(|_| OptionsError::BadTarget {
        target: target.into(),
        reason: format!("'{host}' in brackets is not an IPv6 address"),
    })
}

/// A host name or IPv4 address: letters, digits, '-', '.', '_'.
fn hostname(target: &str, host: &str) -> Result<String, OptionsError> {
    let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_');
    if host.is_empty() || host.len() > MAX_HOST || !host.bytes().all(ok) {
        return Err(OptionsError::BadTarget { target: target.into(), reason: format!("'{host}' is not a host name") });
    }
    Ok(host.to_owned())
}

fn export_path(target: &str, export: String) -> Result<String, OptionsError> {
    let bad = |reason: String| OptionsError::BadTarget { target: target.into(), reason };
    if !export.starts_with('/') {
        return Err(bad("the export path must start with '/'".into()));
    }
    if export.len() > MNTPATHLEN {
        return Err(bad(format!("the export path is over {MNTPATHLEN} bytes (MNTPATHLEN)")));
    }
    if export.contains('\0') {
        return Err(bad("the export path contains a NUL byte".into()));
    }
    Ok(export)
}

/// Percent-decoding (`%2F` → `/`); the result must be UTF-8.
fn decode(target: &str, text: &str) -> Result<String, OptionsError> {
    let bad = |reason: String| OptionsError::BadTarget { target: target.into(), reason };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok().filter(|_| !h.starts_with('+')));
            out.push(byte.ok_or_else(|| bad(format!("bad %-escape in '{text}'")))?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| bad(format!("'{text}' does not decode to UTF-8")))
}
