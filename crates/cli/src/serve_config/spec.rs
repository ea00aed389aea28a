//! The small grammars of `nfsbench serve`: sizes ("512MiB", "1G"), backends ("mem:1GiB", "dir:/srv/x"),
//! `PATH=BACKEND` exports, listen addresses and client networks. Each error says what was wrong with
//! which text, for one-line messages.

use std::fmt;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use nfs_server::IpNet;

use super::ServeConfigError;

/// The RAM disk's size when `mem` is given without one.
pub const DEFAULT_MEM_SIZE: u64 = 1 << 30;

/// Parses a byte count: digits with an optional binary unit, case-insensitive, as fio reads sizes
/// (`k`/`kb`/`kib` = 1024, then `m`, `g`, `t`); "1G", "512MiB", "65536".
pub fn parse_size(text: &str) -> Result<u64, ServeConfigError> {
    let trimmed = text.trim();
    let digits_end = trimmed.find(|c: char| !c.is_ascii_digit()).unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(digits_end);
    if digits.is_empty() {
        return Err(ServeConfigError::SizeWithoutNumber(text.to_string()));
    }
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(ServeConfigError::SizeUnit(text.to_string())),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| ServeConfigError::SizeTooLarge(text.to_string()))
}

/// Longest timeout accepted: a day (longer is a mistake, or meant "off", which is 0).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 3600);

/// A timeout of this many seconds, 0 (off) up to [`MAX_TIMEOUT`].
pub fn seconds(secs: f64) -> Result<Duration, ServeConfigError> {
    if secs.is_nan() {
        return Err(ServeConfigError::SecondsNotANumber);
    }
    if secs < 0.0 {
        return Err(ServeConfigError::SecondsNegative);
    }
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if d <= MAX_TIMEOUT => Ok(d),
        _ => Err(ServeConfigError::SecondsTooLong),
    }
}

/// Storage behind an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendSpec {
    /// RAM disk of this many bytes.
    Mem { size: u64 },
    /// A local directory.
    Dir { path: PathBuf },
}

impl BackendSpec {
    /// `mem`, `mem:SIZE` or `dir:DIR`.
    pub fn parse(text: &str) -> Result<BackendSpec, ServeConfigError> {
        let (kind, arg) = match text.split_once(':') {
            Some((kind, arg)) => (kind, Some(arg)),
            None => (text, None),
        };
        match (kind, arg) {
            ("mem", None) => Ok(BackendSpec::Mem { size: DEFAULT_MEM_SIZE }),
            ("mem", Some(size)) => match parse_size(size)
                .map_err(|e| ServeConfigError::BackendSize { backend: text.to_string(), reason: Box::new(e) })?
            {
                0 => Err(ServeConfigError::EmptyRamDisk(text.to_string())),
                size => Ok(BackendSpec::Mem { size }),
            },
            ("dir", Some(path)) if !path.is_empty() => Ok(BackendSpec::Dir { path: PathBuf::from(path) }),
            ("dir", _) => Err(ServeConfigError::DirWithoutPath(text.to_string())),
            _ => Err(ServeConfigError::UnknownBackend(text.to_string())),
        }
    }
}

impl fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendSpec::Mem { size } => write!(f, "mem:{size}"),
            BackendSpec::Dir { path } => write!(f, "dir:{}", path.display()),
        }
    }
}

/// `--export PATH=BACKEND`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSpec {
    pub path: String,
    pub backend: BackendSpec,
}

impl ExportSpec {
    pub fn parse(text: &str) -> Result<ExportSpec, ServeConfigError> {
        let (path, backend) =
            text.split_once('=').ok_or_else(|| ServeConfigError::NotPathEqualsBackend(text.to_string()))?;
        check_export_path(path)?;
        Ok(ExportSpec { path: path.to_string(), backend: BackendSpec::parse(backend)? })
    }
}

/// Export paths are absolute and normalised: "/" or "/a/b", no empty, "." or ".." components.
pub fn check_export_path(path: &str) -> Result<(), ServeConfigError> {
    if path == "/" {
        return Ok(());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(ServeConfigError::RelativeExportPath(path.to_string()));
    };
    if rest.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(ServeConfigError::UnnormalisedExportPath(path.to_string()));
    }
    Ok(())
}

/// `ADDR:PORT`: "127.0.0.1:2049", "[::1]:2049", "0.0.0.0:0" (any free port), or "localhost:2049".
pub fn parse_listen(text: &str) -> Result<SocketAddr, ServeConfigError> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if !text.contains(':') {
        return Err(ServeConfigError::NotAddrPort(text.to_string()));
    }
    let mut addrs =
        text.to_socket_addrs().map_err(|error| ServeConfigError::Unresolved { text: text.to_string(), error })?;
    addrs.next().ok_or_else(|| ServeConfigError::NoAddress(text.to_string()))
}

/// A client network: "10.0.0.0/8", "fd00::/8", or a single address ("192.168.1.5", "::1").
pub fn parse_net(text: &str) -> Result<IpNet, ServeConfigError> {
    let (addr, prefix) = match text.split_once('/') {
        Some((addr, prefix)) => (addr, Some(prefix)),
        None => (text, None),
    };
    let addr: IpAddr = addr.parse().map_err(|_| ServeConfigError::NotANetwork(text.to_string()))?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let prefix_len = match prefix {
        None => max,
        Some(p) => p.parse::<u8>().ok().filter(|&p| p <= max).ok_or_else(|| ServeConfigError::PrefixLength {
            text: text.to_string(),
            max,
            family: if max == 32 { "IPv4" } else { "IPv6" },
        })?,
    };
    Ok(IpNet { addr, prefix_len })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_units_in_any_case() {
        for (text, want) in [
            ("512MiB", 512 << 20),
            ("1GiB", 1 << 30),
            ("1G", 1 << 30),
            ("1g", 1 << 30),
            ("64k", 64 << 10),
            ("2TB", 2 << 40),
            ("4096", 4096),
            ("10 MiB", 10 << 20),
        ] {
            assert_eq!(parse_size(text).expect(text), want, "{text}");
        }
    }

    #[test]
    fn sizes_without_a_number_or_with_a_strange_unit_are_refused_by_name() {
        for text in ["", "GiB", "1.5G", "12 parsecs", "-1", "99999999999999999999T"] {
            let err = parse_size(text).expect_err(text).to_string();
            assert!(err.contains(text), "{err}");
        }
    }

    #[test]
    fn timeouts_are_seconds_from_zero_to_a_day() {
        let seconds = |secs| seconds(secs).map_err(|e| e.to_string());
        assert_eq!(seconds(0.0), Ok(Duration::ZERO));
        assert_eq!(seconds(0.25), Ok(Duration::from_millis(250)));
        assert_eq!(seconds(86_400.0), Ok(MAX_TIMEOUT));
        assert_eq!(seconds(-1.0), Err("is negative".to_string()));
        assert!(seconds(86_401.0).expect_err("too long").contains("24 hours"));
        assert_eq!(seconds(f64::NAN), Err("is not a number".to_string()));
    }

    #[test]
    fn backends_are_mem_with_an_optional_size_or_dir() {
        let parse = |text| BackendSpec::parse(text).expect(text);
        assert_eq!(parse("mem"), BackendSpec::Mem { size: 1 << 30 });
        assert_eq!(parse("mem:512MiB"), BackendSpec::Mem { size: 512 << 20 });
        assert_eq!(parse("dir:/srv/x"), BackendSpec::Dir { path: "/srv/x".into() });
    }

    #[test]
    fn unknown_or_incomplete_backends_are_named_in_the_error() {
        for text in ["disk:/x", "dir", "dir:", "mem:0", "mem:lots", "tmpfs"] {
            let err = BackendSpec::parse(text).expect_err(text).to_string();
            assert!(err.contains(text), "{err}");
        }
    }

    #[test]
    fn exports_split_path_and_backend_at_the_first_equals() {
        let spec = ExportSpec::parse("/data=dir:/srv/a=b").expect("valid");
        assert_eq!(spec.path, "/data");
        assert_eq!(spec.backend, BackendSpec::Dir { path: "/srv/a=b".into() });
        assert!(ExportSpec::parse("/data").is_err());
        assert!(ExportSpec::parse("data=mem").expect_err("relative").to_string().contains("not absolute"));
        for bad in ["/a/", "/a//b", "/a/../b", "/./a"] {
            assert!(check_export_path(bad).is_err(), "{bad}");
        }
        assert!(check_export_path("/").is_ok());
    }

    #[test]
    fn listen_addresses_take_ipv4_ipv6_and_names() {
        let listen = |text| parse_listen(text).expect(text);
        assert_eq!(listen("127.0.0.1:2049"), "127.0.0.1:2049".parse::<SocketAddr>().expect("addr"));
        assert_eq!(listen("[::1]:0"), "[::1]:0".parse::<SocketAddr>().expect("addr"));
        assert_eq!(listen("localhost:2049").port(), 2049);
        assert!(parse_listen("127.0.0.1").expect_err("no port").to_string().contains("ADDR:PORT"));
        assert!(parse_listen("127.0.0.1:99999").is_err());
    }

    #[test]
    fn client_networks_are_cidr_or_single_addresses() {
        let net = |a: &str, p| IpNet { addr: a.parse().expect("ip"), prefix_len: p };
        let parse = |text| parse_net(text).expect(text);
        assert_eq!(parse("10.0.0.0/8"), net("10.0.0.0", 8));
        assert_eq!(parse("192.168.1.5"), net("192.168.1.5", 32));
        assert_eq!(parse("::1"), net("::1", 128));
        assert_eq!(parse("fd00::/8"), net("fd00::", 8));
        for bad in ["10.0.0.0/33", "::/129", "*.example.com", "10.0.0.0/x", ""] {
            assert!(parse_net(bad).is_err(), "{bad}");
        }
    }
}
