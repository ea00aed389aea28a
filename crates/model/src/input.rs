//! What the model reads: the mount (transport and its settings), the workload, the network and the
//! figures measured at LAN distance. Defaults are the Linux client's and `--wan`'s. The mount and the
//! link come from mount-options' types ([`MountConfig`], [`LinkSpec`]), as `run` and `compare` hold them.

use std::time::Duration;

use mount_options::{LinkSpec, MountConfig, Proto};
use serde::{Deserialize, Serialize};

use crate::{proto_serde, seconds};

/// Which way the data goes. Random or sequential makes no difference to the transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rw {
    Read,
    Write,
}

impl Rw {
    /// `read` or `write`, or fio's `rw=` values `read`, `randread`, `write`, `randwrite`; mixed
    /// workloads (`rw`, `randrw`, `trim`, ...) are `None`.
    pub fn parse(text: &str) -> Option<Rw> {
        match text {
            "read" | "randread" => Some(Rw::Read),
            "write" | "randwrite" => Some(Rw::Write),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
        }
    }
}

/// The Linux client's largest and default `rsize`/`wsize`.
pub const DEFAULT_IO_SIZE: u64 = 1 << 20;
/// The inline threshold nfsbench's client and server and the Linux client offer (RFC 8797 private
/// data); without private data RFC 8166 §3.3.2 assumes 1 KiB.
pub const DEFAULT_RDMA_INLINE: u32 = 4096;
/// RDMA Reads a queue pair may have outstanding as initiator: the `initiator_depth` nfsbench's
/// providers negotiate (`rdma::QpConfig`), and what mlx5 devices allow.
pub const DEFAULT_RDMA_READ_DEPTH: u32 = 16;
/// The per-operation service time assumed when no LAN measurement is given.
pub const DEFAULT_LAN_LATENCY: Duration = Duration::from_micros(50);

/// The mount: transport, connections and transfer sizes, as `mount -o` and compare's test cases give
/// them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mount {
    /// `tcp` or `rdma` in JSON.
    #[serde(with = "proto_serde")]
    pub proto: Proto,
    /// Connections (`nconnect`); RPCs are spread evenly over them.
    pub nconnect: u32,
    /// Largest READ in bytes; a larger read I/O is split into ⌈bs / rsize⌉ RPCs sent at once.
    pub rsize: u64,
    /// Largest WRITE in bytes, likewise.
    pub wsize: u64,
    /// RPC-over-RDMA credits per connection in force: the smaller of what the client asks (Linux: 128)
    /// and what the server grants (knfsd and `nfsbench serve`: 64). Ignored over TCP.
    pub rdma_credits: u32,
    /// Inline threshold in bytes: a message larger than this moves through chunks. Ignored over TCP.
    pub rdma_inline: u32,
    /// RDMA Reads the server may have outstanding per connection (its queue pair's initiator depth):
    /// how many write payloads it can be pulling at once. Ignored over TCP.
    pub rdma_read_depth: u32,
}

impl Mount {
    /// `proto` with the Linux client's defaults: one connection, 1 MiB rsize/wsize, 128 credits, 4 KiB
    /// inline, RDMA Read depth 16.
    pub fn new(proto: Proto) -> Mount {
        Mount {
            proto,
            nconnect: 1,
            rsize: DEFAULT_IO_SIZE,
            wsize: DEFAULT_IO_SIZE,
            rdma_credits: rpcrdma_proto::LINUX_CLIENT_CREDIT_REQUEST,
            rdma_inline: DEFAULT_RDMA_INLINE,
            rdma_read_depth: DEFAULT_RDMA_READ_DEPTH,
        }
    }

    /// The mount `config` describes: its transport, `nconnect`, `rsize` and `wsize` (as Linux rounds
    /// them) and the credits and inline threshold the client asks for, with the RDMA Read depth of
    /// nfsbench's providers. Lower `rdma_credits` to what the server grants when that is smaller (knfsd
    /// and `nfsbench serve` grant 64 unless told otherwise).
    pub fn from_config(config: &MountConfig) -> Mount {
        let spec = &config.spec;
        Mount {
            nconnect: u32::from(spec.nconnect.max(1)),
            rsize: u64::from(spec.rsize),
            wsize: u64::from(spec.wsize),
            rdma_credits: config.rdma.credits,
            rdma_inline: config.rdma.inline_size,
            ..Mount::new(spec.proto)
        }
    }

    /// `rsize` for reads, `wsize` for writes.
    pub fn io_size(&self, rw: Rw) -> u64 {
        match rw {
            Rw::Read => self.rsize,
            Rw::Write => self.wsize,
        }
    }
}

/// The fio job: direction, block size and how many I/Os are kept in flight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub rw: Rw,
    /// Bytes per I/O (fio's `bs`).
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Client processes (hosts) running the job, each with its own mount.
    pub clients: u32,
}

impl Workload {
    /// One job on one client.
    pub fn new(rw: Rw, bs: u64, iodepth: u32) -> Workload {
        Workload { rw, bs, iodepth, numjobs: 1, clients: 1 }
    }

    /// A fio job's `rw` (read, randread, write, randwrite), `bs`, `iodepth`, `numjobs` and client count
    /// (`None`: one); `None` for a mixed or other workload.
    pub fn from_fio(rw: &str, bs: u64, iodepth: u32, numjobs: u32, clients: Option<u32>) -> Option<Workload> {
        Some(Workload { rw: Rw::parse(rw)?, bs, iodepth, numjobs, clients: clients.unwrap_or(1) })
    }

    /// I/Os in flight at once: iodepth × numjobs × clients.
    pub fn outstanding(&self) -> u64 {
        u64::from(self.iodepth.max(1)) * u64::from(self.numjobs.max(1)) * u64::from(self.clients.max(1))
    }
}

/// The path between client and server (what `--wan` emulates).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// Round-trip propagation delay (seconds in JSON).
    #[serde(with = "seconds")]
    pub rtt: Duration,
    /// Bits per second each way; `None`: no limit but what the LAN measurement saw.
    pub rate_bps: Option<u64>,
    /// Bytes a TCP connection may have unacknowledged (its receive window).
    pub tcp_window: u64,
}

impl Network {
    /// `rtt` with no rate limit and Linux's largest autotuned TCP window.
    pub fn with_rtt(rtt: Duration) -> Network {
        Network { rtt, rate_bps: None, tcp_window: mount_options::link::DEFAULT_TCP_WINDOW }
    }

    /// The link a `--wan` spec describes (its jitter and loss are not modelled).
    pub fn from_wan(spec: &LinkSpec) -> Network {
        Network { rtt: spec.rtt, rate_bps: spec.rate_bps, tcp_window: spec.tcp_window }
    }

    /// Time on the wire for `bytes` at the rate (zero without one).
    pub fn serialisation(&self, bytes: f64) -> Duration {
        match self.rate_bps {
            Some(bps) if bps > 0 => Duration::from_secs_f64(bytes * 8.0 / bps as f64),
            _ => Duration::ZERO,
        }
    }

    /// Payload bytes per second the rate carries (`None` without one).
    pub fn payload_rate(&self) -> Option<f64> {
        self.rate_bps.map(|bps| bps as f64 / 8.0)
    }
}

/// What the same mount and workload did with no emulated distance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LanBaseline {
    /// Per-operation time with no distance: client, server and loopback or LAN together (fio's mean
    /// completion latency at LAN; seconds in JSON).
    #[serde(with = "seconds")]
    pub latency: Duration,
    /// Bytes per second measured at LAN, a ceiling no distance raises; `None`: not measured.
    pub throughput: Option<f64>,
}

impl Default for LanBaseline {
    fn default() -> Self {
        LanBaseline { latency: DEFAULT_LAN_LATENCY, throughput: None }
    }
}

/// Everything one prediction depends on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInput {
    pub mount: Mount,
    pub workload: Workload,
    pub network: Network,
    pub lan: LanBaseline,
}

impl ModelInput {
    /// The same input at another round trip.
    pub fn with_rtt(&self, rtt: Duration) -> ModelInput {
        let mut input = self.clone();
        input.network.rtt = rtt;
        input
    }
}

/// The round trip of a fibre path `km` long: 5 µs per km each way (as `--wan distance=`).
pub use mount_options::link::rtt_of_distance_km;

#[cfg(test)]
mod tests {
    use super::*;

    use mount_options::{MountSpec, RdmaSettings};

    #[test]
    fn a_mount_config_and_fio_job_become_inputs_with_linux_defaults_where_unset() {
        let spec = MountSpec::parse("server:/export", Some("proto=rdma,nconnect=2,rsize=65536")).expect("spec");
        let config =
            MountConfig { rdma: RdmaSettings { credits: 64, ..RdmaSettings::default() }, ..MountConfig::new(spec) };
        let mount = Mount::from_config(&config);
        assert_eq!((mount.proto, mount.nconnect, mount.rsize, mount.wsize), (Proto::Rdma, 2, 65536, 1 << 20));
        assert_eq!((mount.rdma_credits, mount.rdma_inline, mount.rdma_read_depth), (64, 4096, 16));
        let tcp = Mount::from_config(&MountConfig::new(
            MountSpec::parse("server:/export", Some("rsize=1000000")).expect("spec"),
        ));
        // Linux rounds rsize down to a multiple of 4096 (fs/nfs); the model counts what the client uses.
        assert_eq!((tcp.proto, tcp.rsize, tcp.rdma_credits), (Proto::Tcp, 999_424, 128));
        assert_eq!(tcp, Mount { rsize: 999_424, ..Mount::new(Proto::Tcp) });
        let job = Workload::from_fio("randwrite", 4096, 32, 4, Some(6)).expect("randwrite");
        assert_eq!((job.rw, job.outstanding()), (Rw::Write, 32 * 4 * 6));
        assert_eq!(Workload::from_fio("randrw", 4096, 1, 1, None), None);
        assert_eq!(rtt_of_distance_km(100.0), Duration::from_millis(1));
    }
}
