//! How an I/O becomes RPCs and how each RPC's data crosses the network: the round trips it costs.

use mount_options::Proto;
use rpcrdma_proto::nfs3_binding::{call_plan, nfs3_proc, nfs3_reply_plan, CallPlan, ReplyPlan};
use rpcrdma_proto::RdmaHeader;
use serde::{Deserialize, Serialize};

use crate::input::{Mount, Rw, Workload};

/// RPC call header bytes before the arguments: 24 fixed (RFC 5531 §9), AUTH_SYS credentials for a
/// host name of about 32 bytes and one group (8 + 60), an AUTH_NONE verifier (8). An estimate: it only
/// decides whether a write just under the inline threshold still fits.
pub const RPC_CALL_HEADER_LEN: u64 = 100;
/// WRITE3args before the data (RFC 1813 §3.3.7): a file handle of up to 64 bytes with its length,
/// offset, count, stable_how and the data's length word.
pub const WRITE_ARGS_BEFORE_DATA: u64 = 4 + 64 + 8 + 4 + 4 + 4;
/// RPC reply header bytes the client sizes reply buffers for (as `nfs-client`'s marshalling).
const RPC_REPLY_HEADER_LEN: u32 = 24;

/// How one RPC's data crosses the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// TCP: the data rides the byte stream with the call (write) or the reply (read).
    TcpStream,
    /// RPC-over-RDMA, call and reply within the inline threshold: two Sends.
    RdmaInline,
    /// READ data RDMA-Written into the client's Write chunk, then the reply's Send.
    RdmaWriteChunk,
    /// WRITE data in a Read chunk (or the whole call, a Long Call) the server pulls with RDMA Read
    /// before it can reply.
    RdmaReadChunk,
}

impl Placement {
    /// Network round trips from sending the call to receiving the reply.
    ///
    /// The RDMA Write of a Write chunk is posted before the reply's Send on the same reliable
    /// connection, which delivers them in order: data and reply arrive together, one trip. A Read
    /// chunk is pulled: the server learns of it from the call (half a trip), asks the client for it
    /// and receives it (a whole trip), then replies (half a trip).
    pub fn round_trips(self) -> u32 {
        match self {
            Placement::RdmaReadChunk => 2,
            Placement::TcpStream | Placement::RdmaInline | Placement::RdmaWriteChunk => 1,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Placement::TcpStream => "TCP stream",
            Placement::RdmaInline => "inline Sends",
            Placement::RdmaWriteChunk => "Write chunk (server RDMA-Writes, then replies)",
            Placement::RdmaReadChunk => "Read chunk (server RDMA-Reads, then replies)",
        }
    }
}

/// One I/O as RPCs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RpcShape {
    /// ⌈bs / rsize⌉ (or wsize): the RPCs an I/O is split into, all sent at once.
    pub rpcs_per_io: u64,
    /// Payload bytes of the largest of them: min(bs, rsize).
    pub largest_rpc: u64,
    /// Payload bytes per RPC on average: bs / rpcs_per_io.
    pub bytes_per_rpc: f64,
    /// How the largest one's data moves.
    pub placement: Placement,
}

impl RpcShape {
    pub fn of(mount: &Mount, workload: &Workload) -> RpcShape {
        let bs = workload.bs.max(1);
        let io_size = mount.io_size(workload.rw).max(1);
        let rpcs_per_io = bs.div_ceil(io_size);
        let largest_rpc = bs.min(io_size);
        RpcShape {
            rpcs_per_io,
            largest_rpc,
            bytes_per_rpc: bs as f64 / rpcs_per_io as f64,
            placement: placement(mount, workload.rw, largest_rpc),
        }
    }
}

/// The Linux client's choice for an RPC carrying `payload` bytes (RFC 8166 §3.5, RFC 8267 §3), as
/// `nfs-client`'s marshalling makes it: every header counted against the inline threshold.
pub fn placement(mount: &Mount, rw: Rw, payload: u64) -> Placement {
    if mount.proto == Proto::Tcp {
        return Placement::TcpStream;
    }
    match rw {
        Rw::Read => {
            let count = u32::try_from(payload).unwrap_or(u32::MAX);
            match nfs3_reply_plan(nfs3_proc::READ, count, RPC_REPLY_HEADER_LEN, mount.rdma_inline) {
                Some(ReplyPlan::Inline) => Placement::RdmaInline,
                _ => Placement::RdmaWriteChunk,
            }
        }
        Rw::Write => {
            let call_len = RPC_CALL_HEADER_LEN + WRITE_ARGS_BEFORE_DATA + payload.div_ceil(4) * 4;
            let budget = u64::from(mount.rdma_inline).saturating_sub(RdmaHeader::MIN_LEN as u64);
            match call_plan(call_len, Some(payload), budget) {
                CallPlan::Inline => Placement::RdmaInline,
                CallPlan::ReadChunk | CallPlan::LongCall => Placement::RdmaReadChunk,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rdma(inline: u32) -> Mount {
        Mount { rdma_inline: inline, ..Mount::new(Proto::Rdma) }
    }

    #[test]
    fn a_write_takes_a_read_chunk_once_its_headers_and_data_pass_the_threshold() {
        // 4 KiB of data and ~220 bytes of headers do not fit 4 KiB: the studies' 4 KiB writes are pulled.
        assert_eq!(placement(&rdma(4096), Rw::Write, 4096), Placement::RdmaReadChunk);
        assert_eq!(placement(&rdma(4096), Rw::Write, 3072), Placement::RdmaInline);
        assert_eq!(placement(&rdma(8192), Rw::Write, 4096), Placement::RdmaInline);
        assert_eq!(placement(&rdma(4096), Rw::Write, 1 << 20).round_trips(), 2);
    }

    #[test]
    fn reads_cost_one_round_trip_inline_or_through_a_write_chunk() {
        assert_eq!(placement(&rdma(4096), Rw::Read, 1024), Placement::RdmaInline);
        assert_eq!(placement(&rdma(4096), Rw::Read, 4096), Placement::RdmaWriteChunk);
        assert_eq!(placement(&rdma(4096), Rw::Read, 1 << 20).round_trips(), 1);
        assert_eq!(placement(&Mount::new(Proto::Tcp), Rw::Write, 1 << 20).round_trips(), 1);
    }

    #[test]
    fn an_io_larger_than_rsize_is_split_into_rpcs_sent_together() {
        let mount = Mount { rsize: 256 << 10, ..Mount::new(Proto::Tcp) };
        let shape = RpcShape::of(&mount, &Workload::new(Rw::Read, 1 << 20, 1));
        assert_eq!((shape.rpcs_per_io, shape.largest_rpc), (4, 256 << 10));
        let odd = RpcShape::of(&mount, &Workload::new(Rw::Read, 300 << 10, 1));
        assert_eq!(odd.rpcs_per_io, 2);
        assert!((odd.bytes_per_rpc - 150.0 * 1024.0).abs() < 1e-9);
    }
}
