//! One `xprt:` line: an RPC transport of a mount (one per connection; `nconnect=N` prints N) and its
//! counters, named per transport the way the kernel prints them.
//!
//! Field orders, each after `xprt:\tPROTO`:
//! - `tcp` (net/sunrpc/xprtsock.c `xs_tcp_print_stats`): srcport bind_count connect_count
//!   connect_time idle_time sends recvs bad_xids req_u bklog_u max_slots sending_u pending_u
//! - `udp` (`xs_udp_print_stats`): srcport bind_count sends recvs bad_xids req_u bklog_u max_slots
//!   sending_u pending_u
//! - `local` (`xs_local_print_stats`): as tcp without srcport
//! - `rdma` (net/sunrpc/xprtrdma/transport.c `xprt_rdma_print_stats`): as tcp up to bklog_u (srcport
//!   always 0), then the xprtrdma counters of [`RdmaCounters`].
//!
//! Older kernels print fewer trailing fields (max_slots/sending_u/pending_u since 4.x, the rdma
//! counters after bad_reply_count since 4.x): those are `None`. Newer kernels' extra trailing fields
//! are kept in order in [`Transport::extra`].

use serde::Serialize;

/// An RPC transport's counters. `sends`/`recvs` count RPC messages; `req_u`, `bklog_u`,
/// `sending_u` and `pending_u` are running sums sampled at each send (divide by `sends` for an
/// average queue length).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transport {
    /// `tcp`, `udp`, `rdma` or `local`.
    pub proto: String,
    /// The local port (`tcp`, `udp`; `rdma` prints 0; `local` has none).
    pub srcport: Option<u64>,
    pub bind_count: u64,
    /// Connections made (`udp` prints none).
    pub connect_count: Option<u64>,
    /// Jiffies spent connecting (`udp` prints none).
    pub connect_time: Option<u64>,
    /// Seconds since the transport was last used (`udp` prints none).
    pub idle_time: Option<i64>,
    pub sends: u64,
    pub recvs: u64,
    /// Replies whose XID matched no request.
    pub bad_xids: u64,
    /// Sum of the requests in flight, sampled at each send.
    pub req_u: u64,
    /// Sum of the backlog queue length, sampled at each send.
    pub bklog_u: u64,
    pub max_slots: Option<u64>,
    pub sending_u: Option<u64>,
    pub pending_u: Option<u64>,
    /// The xprtrdma counters (`rdma` only).
    pub rdma: Option<RdmaCounters>,
    /// Trailing fields this crate has no name for (a newer kernel), in order.
    pub extra: Vec<u64>,
}

/// The xprtrdma counters of an `rdma` transport, in `xprt_rdma_print_stats` order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RdmaCounters {
    /// RPCs sent with a Read chunk (the client's data pulled by the server: large WRITE arguments).
    pub read_chunk_count: u64,
    /// RPCs sent with a Write chunk (the server pushes READ data into client memory).
    pub write_chunk_count: u64,
    /// RPCs sent with a Reply chunk (a large reply such as READDIR).
    pub reply_chunk_count: u64,
    /// Bytes of RPC requests, inline and chunked.
    pub total_rdma_request: u64,
    /// Bytes of RPC replies, inline and chunked.
    pub total_rdma_reply: u64,
    pub pullup_copy_count: u64,
    pub fixup_copy_count: u64,
    /// Bytes, despite the name: send/receive buffers allocated and registered again because an RPC
    /// outgrew the preallocated ones (xprtrdma/transport.c `rpcrdma_check_regbuf`).
    pub hardway_register_count: u64,
    /// Requests that could not be marshalled into RPC-over-RDMA: every error of `rpcrdma_marshal_req`
    /// (rpc_rdma.c), a call put back to wait for a free memory region included.
    pub failed_marshal_count: u64,
    /// Replies that could not be parsed.
    pub bad_reply_count: u64,
    pub nomsg_call_count: Option<u64>,
    /// MRs recycled after a flush (older kernels: mrs_recovered).
    pub mrs_recycled: Option<u64>,
    pub mrs_orphaned: Option<u64>,
    pub mrs_allocated: Option<u64>,
    /// Local invalidations the client had to post itself (no remote invalidation).
    pub local_inv_needed: Option<u64>,
    /// Times a send context was not available.
    pub empty_sendctx_q: Option<u64>,
    pub reply_waits_for_send: Option<u64>,
}

/// Fields of the common part before `sends`, per transport.
#[derive(Clone, Copy)]
enum Layout {
    /// srcport bind_count connect_count connect_time idle_time
    Connected { srcport: bool },
    /// srcport bind_count
    Datagram,
}

impl Transport {
    /// Reads the fields after `xprt:\tPROTO`; `None` when `proto` is unknown or a field the kernel
    /// has always printed is missing or not a number.
    pub fn from_fields(proto: &str, fields: &[&str]) -> Option<Transport> {
        let layout = match proto {
            "tcp" | "rdma" => Layout::Connected { srcport: true },
            "local" => Layout::Connected { srcport: false },
            "udp" => Layout::Datagram,
            _ => return None,
        };
        let mut nums = Numbers { fields, at: 0 };
        let (srcport, bind_count, connect_count, connect_time, idle_time) = match layout {
            Layout::Connected { srcport } => {
                let port = if srcport { Some(nums.next()?) } else { None };
                let bind = nums.next()?;
                let count = nums.next()?;
                let time = nums.next()?;
                let idle = nums.next_signed()?;
                (port, bind, Some(count), Some(time), Some(idle))
            }
            Layout::Datagram => (Some(nums.next()?), nums.next()?, None, None, None),
        };
        let mut t = Transport {
            proto: proto.to_string(),
            srcport,
            bind_count,
            connect_count,
            connect_time,
            idle_time,
            sends: nums.next()?,
            recvs: nums.next()?,
            bad_xids: nums.next()?,
            req_u: nums.next()?,
            bklog_u: nums.next()?,
            max_slots: None,
            sending_u: None,
            pending_u: None,
            rdma: None,
            extra: Vec::new(),
        };
        if proto == "rdma" {
            t.rdma = Some(RdmaCounters::from_numbers(&mut nums)?);
        } else {
            t.max_slots = nums.optional()?;
            t.sending_u = nums.optional()?;
            t.pending_u = nums.optional()?;
        }
        while let Some(v) = nums.optional()? {
            t.extra.push(v);
        }
        Some(t)
    }
}

impl RdmaCounters {
    fn from_numbers(nums: &mut Numbers<'_>) -> Option<RdmaCounters> {
        Some(RdmaCounters {
            read_chunk_count: nums.next()?,
            write_chunk_count: nums.next()?,
            reply_chunk_count: nums.next()?,
            total_rdma_request: nums.next()?,
            total_rdma_reply: nums.next()?,
            pullup_copy_count: nums.next()?,
            fixup_copy_count: nums.next()?,
            hardway_register_count: nums.next()?,
            failed_marshal_count: nums.next()?,
            bad_reply_count: nums.next()?,
            nomsg_call_count: nums.optional()?,
            mrs_recycled: nums.optional()?,
            mrs_orphaned: nums.optional()?,
            mrs_allocated: nums.optional()?,
            local_inv_needed: nums.optional()?,
            empty_sendctx_q: nums.optional()?,
            reply_waits_for_send: nums.optional()?,
        })
    }
}

/// A cursor over the numeric fields of one line.
struct Numbers<'a> {
    fields: &'a [&'a str],
    at: usize,
}

impl Numbers<'_> {
    /// The next field as a number; `None` when missing or not a number.
    fn next(&mut self) -> Option<u64> {
        let v = self.fields.get(self.at)?.parse().ok()?;
        self.at += 1;
        Some(v)
    }

    /// idle_time is printed with `%ld`.
    fn next_signed(&mut self) -> Option<i64> {
        let v = self.fields.get(self.at)?.parse().ok()?;
        self.at += 1;
        Some(v)
    }

    /// `Some(None)` at the end of the line, `None` when the next field is not a number.
    fn optional(&mut self) -> Option<Option<u64>> {
        if self.at >= self.fields.len() {
            return Some(None);
        }
        self.next().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn reads_a_tcp_line_of_linux_6_1() {
        let t = Transport::from_fields("tcp", &fields("785 1 2 0 0 95 95 0 95 0 2 0 0")).unwrap();
        assert_eq!((t.srcport, t.connect_count, t.sends, t.recvs, t.req_u), (Some(785), Some(2), 95, 95, 95));
        assert_eq!((t.max_slots, t.sending_u, t.pending_u), (Some(2), Some(0), Some(0)));
        assert!(t.rdma.is_none() && t.extra.is_empty());
    }

    #[test]
    fn reads_a_udp_line_without_connect_fields() {
        let t = Transport::from_fields("udp", &fields("901 1 40 40 3 40 7 16 0 0")).unwrap();
        assert_eq!((t.srcport, t.bind_count, t.sends, t.bad_xids, t.bklog_u), (Some(901), 1, 40, 3, 7));
        assert_eq!((t.connect_count, t.idle_time, t.max_slots), (None, None, Some(16)));
    }

    #[test]
    fn reads_a_local_line_without_srcport() {
        let t = Transport::from_fields("local", &fields("1 1 0 5 10 10 0 10 0 2 0 0")).unwrap();
        assert_eq!((t.srcport, t.connect_count, t.idle_time, t.sends), (None, Some(1), Some(5), 10));
    }

    #[test]
    fn reads_every_xprtrdma_counter_of_linux_6_1() {
        let line = "0 0 1 0 0 95 95 0 95 0 103 45 15 6079632 4195580 0 0 0 2 0 0 0 0 33 87 0 0";
        let t = Transport::from_fields("rdma", &fields(line)).unwrap();
        let r = t.rdma.unwrap();
        assert_eq!((r.read_chunk_count, r.write_chunk_count, r.reply_chunk_count), (103, 45, 15));
        assert_eq!((r.total_rdma_request, r.total_rdma_reply), (6079632, 4195580));
        assert_eq!((r.hardway_register_count, r.failed_marshal_count, r.bad_reply_count), (0, 2, 0));
        assert_eq!((r.mrs_allocated, r.local_inv_needed, r.reply_waits_for_send), (Some(33), Some(87), Some(0)));
        assert_eq!(t.max_slots, None);
    }

    #[test]
    fn an_older_rdma_line_leaves_the_newer_counters_out() {
        let t = Transport::from_fields("rdma", &fields("0 0 1 0 0 9 9 0 9 0 1 2 3 4 5 6 7 8 9 10")).unwrap();
        let r = t.rdma.unwrap();
        assert_eq!((r.bad_reply_count, r.nomsg_call_count, r.mrs_recycled), (10, None, None));
    }

    #[test]
    fn keeps_fields_of_a_newer_kernel_as_extras() {
        let t = Transport::from_fields("tcp", &fields("785 1 2 0 0 95 95 0 95 0 2 0 0 41 42")).unwrap();
        assert_eq!(t.extra, vec![41, 42]);
    }

    #[test]
    fn refuses_a_line_missing_a_field_every_kernel_prints_or_an_unknown_transport() {
        assert_eq!(Transport::from_fields("tcp", &fields("785 1 2 0 0 95 95 0")), None);
        assert_eq!(Transport::from_fields("tcp", &fields("785 1 2 0 0 95 x 0 95 0")), None);
        assert_eq!(Transport::from_fields("sctp", &fields("785 1 2 0 0 95 95 0 95 0")), None);
        assert_eq!(Transport::from_fields("tcp", &fields("785 1 2 0 0 95 95 0 95 0 2 zz")), None);
    }
}
