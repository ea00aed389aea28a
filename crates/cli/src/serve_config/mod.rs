//! What `nfsbench serve` serves: the TOML configuration file, merged with the command-line flags into
//! one validated [`ServePlan`].
//!
//! ```toml
//! listeners = ["127.0.0.1:2049", "[::1]:2049"]
//!
//! [[exports]]
//! path = "/export"
//! backend = "mem:4GiB"            # mem[:SIZE] | dir:DIR, as --export takes them
//! read_only = false
//! clients = ["127.0.0.0/8", "::1"] # empty or absent: every client
//! squash = "root"                  # none | root | all (exports(5) root_squash / all_squash)
//! anonuid = 65534
//! anongid = 65534
//! secure = false                   # require a client source port below 1024
//!
//! [limits]
//! max_record = "1088KiB"           # sizes: a number of bytes or "64KiB", "1MiB", "1G"
//! max_in_flight_requests = 256     # per connection
//! max_in_flight_bytes = "16MiB"    # per connection
//! max_server_in_flight_bytes = "512MiB" # all connections together (replies waiting, records read)
//! max_connections = 1024           # at the cap a new client evicts an idle connection
//! idle_timeout_secs = 360          # timeouts in seconds (0.5 is half a second; 0 turns one off):
//! partial_record_timeout_secs = 30 #   a record begun must be complete within this
//! write_stall_timeout_secs = 60    #   replies owed and the client takes none of them
//! max_io_size = "1MiB"             # READ/WRITE size offered in FSINFO
//! drc_entries = 4096
//! rdma_read_targets = "32MiB"      # per RDMA connection: buffers registered once that calls' Read
//!                                  #   chunks land in, kept across calls (0: a registration per call)
//!
//! [nfs4]                           # NFSv4.1/4.2: lease, grace, sessions, caps
//! lease_secs = 90                  # (every key: commands/serve/nfs4.rs)
//! ```
//!
//! The `[limits]` of the TCP transport are `server_core::ConnectionLimits` (whose documentation gives
//! the worst-case memory they allow); `nfsbench serve` prints them on one line of stderr at start-up.
//! Unknown keys are errors naming the key. Flags win over the file: `--listen` replaces the file's
//! listeners; `--export PATH=BACKEND` sets the backend of the file's export at PATH (keeping its
//! access rules) or adds an export with default rules. Defaults when neither gives any: listen on
//! 127.0.0.1:2049, export /export=mem:1GiB. Errors are [`ServeConfigError`]s.

mod error;
pub mod spec;

use std::fmt;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use nfs_server::{IpNet, Squash};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use server_core::ConnectionLimits;

pub use self::error::ServeConfigError;
use self::spec::{check_export_path, parse_listen, parse_net, BackendSpec, ExportSpec, DEFAULT_MEM_SIZE};
use crate::commands::serve::nfs4::{nfs4_config, Nfs4Entry};

pub const DEFAULT_LISTEN: &str = "127.0.0.1:2049";
pub const DEFAULT_EXPORT_PATH: &str = "/export";
/// READ/WRITE size offered to clients: 1 MiB, the Linux client's largest rsize/wsize.
pub const DEFAULT_MAX_IO_SIZE: u32 = 1 << 20;
pub const DEFAULT_DRC_ENTRIES: usize = 4096;
/// nobody/nogroup, the anonymous ids of exports(5).
pub const DEFAULT_ANON_ID: u32 = 65534;
/// Room a record needs beyond its READ/WRITE payload (RPC header with credentials, NFS arguments).
const RECORD_HEADROOM: u64 = 4 << 10;
const MIN_IO_SIZE: u64 = 4 << 10;
const MAX_IO_SIZE: u64 = 16 << 20;

/// The configuration file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub listeners: Vec<String>,
    #[serde(default)]
    pub exports: Vec<ExportEntry>,
    #[serde(default)]
    pub limits: LimitsEntry,
    #[serde(default)]
    pub nfs4: Nfs4Entry,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportEntry {
    pub path: String,
    /// `mem[:SIZE]` or `dir:DIR`; absent: `mem:1GiB`.
    pub backend: Option<String>,
    #[serde(default)]
    pub read_only: bool,
    #[serde(default)]
    pub clients: Vec<String>,
    #[serde(default)]
    pub squash: SquashName,
    pub anonuid: Option<u32>,
    pub anongid: Option<u32>,
    #[serde(default)]
    pub secure: bool,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SquashName {
    None,
    #[default]
    Root,
    All,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsEntry {
    pub max_record: Option<Size>,
    pub max_in_flight_requests: Option<usize>,
    pub max_in_flight_bytes: Option<Size>,
    pub max_server_in_flight_bytes: Option<Size>,
    pub max_connections: Option<usize>,
    pub idle_timeout_secs: Option<Timeout>,
    pub partial_record_timeout_secs: Option<Timeout>,
    pub write_stall_timeout_secs: Option<Timeout>,
    pub max_io_size: Option<Size>,
    pub drc_entries: Option<usize>,
    pub rdma_read_targets: Option<Size>,
}

/// A byte count written as an integer or as a size string ("64KiB").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SizeVisitor;
        impl Visitor<'_> for SizeVisitor {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte count: a non-negative integer or a string such as \"64KiB\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                Ok(Size(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                u64::try_from(v).map(Size).map_err(|_| E::custom(format!("size {v} is negative")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                spec::parse_size(v).map(Size).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(SizeVisitor)
    }
}

/// A timeout written as a number of seconds, integer or not (0: off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout(pub Duration);

impl<'de> Deserialize<'de> for Timeout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimeoutVisitor;
        impl Visitor<'_> for TimeoutVisitor {
            type Value = Timeout;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a timeout in seconds (0: off)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Timeout, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Timeout, E> {
                self.visit_f64(v as f64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Timeout, E> {
                spec::seconds(v).map(Timeout).map_err(|e| E::custom(format!("timeout {v} s {e}")))
            }
        }
        deserializer.deserialize_any(TimeoutVisitor)
    }
}

impl ConfigFile {
    /// Parses a configuration file's text; the error is one line, `FILE:LINE:COLUMN: what`.
    pub fn parse(text: &str, file: &Path) -> Result<ConfigFile, ServeConfigError> {
        toml::from_str(text).map_err(|e| ServeConfigError::Syntax {
            file: file.display().to_string(),
            at: e.span().map(|span| line_column(text, span.start)),
            message: e.message().replace('\n', " ").trim().to_string(),
        })
    }

    pub fn load(file: &Path) -> Result<ConfigFile, ServeConfigError> {
        let text = std::fs::read_to_string(file)
            .map_err(|error| ServeConfigError::Read { file: file.display().to_string(), error })?;
        ConfigFile::parse(&text, file)
    }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// One export, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportPlan {
    pub path: String,
    pub backend: BackendSpec,
    pub read_only: bool,
    pub clients: Vec<IpNet>,
    pub squash: Squash,
    pub anon_uid: u32,
    pub anon_gid: u32,
    pub secure: bool,
}

impl ExportPlan {
    fn with_defaults(path: String, backend: BackendSpec) -> ExportPlan {
        ExportPlan {
            path,
            backend,
            read_only: false,
            clients: Vec::new(),
            squash: Squash::Root,
            anon_uid: DEFAULT_ANON_ID,
            anon_gid: DEFAULT_ANON_ID,
            secure: false,
        }
    }
}

/// Everything `nfsbench serve` needs to start, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServePlan {
    pub listen: Vec<SocketAddr>,
    pub exports: Vec<ExportPlan>,
    pub connection: ConnectionLimits,
    pub max_io_size: u32,
    pub drc_entries: usize,
    /// `[limits] rdma_read_targets`: bytes of RDMA Read targets each RDMA connection keeps registered
    /// (`server_rdma::RdmaServerConfig::max_read_target_bytes`); `None` for its default.
    pub rdma_read_targets: Option<usize>,
    /// `[nfs4]`.
    pub nfs4: nfs_server::Nfs4Config,
}

impl ServePlan {
    /// Merges the file (if any; `file_name` for messages) with the flags. Errors are one line naming
    /// the flag or the file and key at fault.
    pub fn build(
        file: Option<(&Path, ConfigFile)>,
        cli_listen: &[SocketAddr],
        cli_exports: &[ExportSpec],
    ) -> Result<ServePlan, ServeConfigError> {
        let (name, config) = match file {
            Some((path, config)) => (path.display().to_string(), config),
            None => ("(no config)".to_string(), ConfigFile::default()),
        };
        let listen = if !cli_listen.is_empty() {
            cli_listen.to_vec()
        } else if !config.listeners.is_empty() {
            let parse = |(index, text): (usize, &String)| {
                parse_listen(text).map_err(|e| ServeConfigError::Listener {
                    file: name.clone(),
                    index,
                    reason: Box::new(e),
                })
            };
            config.listeners.iter().enumerate().map(parse).collect::<Result<_, _>>()?
        } else {
            vec![parse_listen(DEFAULT_LISTEN)?]
        };

        let mut exports = Vec::new();
        for (index, entry) in config.exports.into_iter().enumerate() {
            let in_entry = |e| ServeConfigError::Export { file: name.clone(), index, reason: Box::new(e) };
            let plan = export_from_entry(entry).map_err(in_entry)?;
            if exports.iter().any(|e: &ExportPlan| e.path == plan.path) {
                return Err(in_entry(ServeConfigError::DuplicateExport(plan.path)));
            }
            exports.push(plan);
        }
        for spec in cli_exports {
            match exports.iter_mut().find(|e| e.path == spec.path) {
                Some(existing) => existing.backend = spec.backend.clone(),
                None => exports.push(ExportPlan::with_defaults(spec.path.clone(), spec.backend.clone())),
            }
        }
        if exports.is_empty() {
            let backend = BackendSpec::Mem { size: DEFAULT_MEM_SIZE };
            exports.push(ExportPlan::with_defaults(DEFAULT_EXPORT_PATH.to_string(), backend));
        }

        let (connection, max_io_size, drc_entries) = limits_from_entry(&config.limits)
            .map_err(|e| ServeConfigError::Limits { file: name.clone(), reason: Box::new(e) })?;
        let rdma_read_targets = config
            .limits
            .rdma_read_targets
            .map(|Size(bytes)| {
                usize::try_from(bytes).map_err(|_| ServeConfigError::Limits {
                    file: name.clone(),
                    reason: Box::new(ServeConfigError::LimitTooLarge { key: "rdma_read_targets", value: bytes }),
                })
            })
            .transpose()?;
        let nfs4 = nfs4_config(&config.nfs4, max_io_size)
            .map_err(|e| ServeConfigError::Nfs4 { file: name, reason: Box::new(e) })?;
        Ok(ServePlan { listen, exports, connection, max_io_size, drc_entries, rdma_read_targets, nfs4 })
    }
}

fn export_from_entry(entry: ExportEntry) -> Result<ExportPlan, ServeConfigError> {
    let at = |key| move |e| ServeConfigError::ExportKey { key, reason: Box::new(e) };
    check_export_path(&entry.path).map_err(at("path"))?;
    let backend = match &entry.backend {
        Some(text) => BackendSpec::parse(text).map_err(at("backend"))?,
        None => BackendSpec::Mem { size: DEFAULT_MEM_SIZE },
    };
    let clients = entry.clients.iter().map(|c| parse_net(c)).collect::<Result<_, _>>().map_err(at("clients"))?;
    Ok(ExportPlan {
        path: entry.path,
        backend,
        read_only: entry.read_only,
        clients,
        squash: match entry.squash {
            SquashName::None => Squash::None,
            SquashName::Root => Squash::Root,
            SquashName::All => Squash::All,
        },
        anon_uid: entry.anonuid.unwrap_or(DEFAULT_ANON_ID),
        anon_gid: entry.anongid.unwrap_or(DEFAULT_ANON_ID),
        secure: entry.secure,
    })
}

/// The limits, defaults filled in; an error starts with the key at fault.
fn limits_from_entry(entry: &LimitsEntry) -> Result<(ConnectionLimits, u32, usize), ServeConfigError> {
    let max_io = entry.max_io_size.map_or(u64::from(DEFAULT_MAX_IO_SIZE), |s| s.0);
    if !(MIN_IO_SIZE..=MAX_IO_SIZE).contains(&max_io) {
        return Err(ServeConfigError::IoSizeOutOfRange(max_io));
    }
    let defaults = ConnectionLimits::default();
    let max_record = match entry.max_record {
        Some(Size(record)) if record < max_io + RECORD_HEADROOM => {
            return Err(ServeConfigError::RecordBelowIoSize { record, max_io })
        }
        Some(Size(record)) => record,
        None => (defaults.max_record as u64).max(max_io + (64 << 10)),
    };
    let positive = |key: &'static str, value: Option<u64>, default: usize| match value {
        Some(0) => Err(ServeConfigError::LimitZero { key }),
        Some(value) => usize::try_from(value).map_err(|_| ServeConfigError::LimitTooLarge { key, value }),
        None => Ok(default),
    };
    let connection = ConnectionLimits {
        max_record: usize::try_from(max_record)
            .map_err(|_| ServeConfigError::LimitTooLarge { key: "max_record", value: max_record })?,
        max_in_flight_requests: positive(
            "max_in_flight_requests",
            entry.max_in_flight_requests.map(|v| v as u64),
            defaults.max_in_flight_requests,
        )?,
        max_in_flight_bytes: positive(
            "max_in_flight_bytes",
            entry.max_in_flight_bytes.map(|s| s.0),
            defaults.max_in_flight_bytes,
        )?,
        max_server_in_flight_bytes: positive(
            "max_server_in_flight_bytes",
            entry.max_server_in_flight_bytes.map(|s| s.0),
            defaults.max_server_in_flight_bytes,
        )?,
        max_connections: positive(
            "max_connections",
            entry.max_connections.map(|v| v as u64),
            defaults.max_connections,
        )?,
        idle_timeout: entry.idle_timeout_secs.map_or(defaults.idle_timeout, |t| t.0),
        partial_record_timeout: entry.partial_record_timeout_secs.map_or(defaults.partial_record_timeout, |t| t.0),
        write_stall_timeout: entry.write_stall_timeout_secs.map_or(defaults.write_stall_timeout, |t| t.0),
        ..defaults
    };
    if connection.max_server_in_flight_bytes < connection.max_record {
        return Err(ServeConfigError::BudgetBelowRecord {
            budget: connection.max_server_in_flight_bytes,
            record: connection.max_record,
        });
    }
    let drc_entries = entry.drc_entries.unwrap_or(DEFAULT_DRC_ENTRIES);
    Ok((connection, max_io as u32, drc_entries))
}

#[cfg(test)]
mod tests;
