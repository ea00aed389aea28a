//! What a mount did between two readings: [`Mount::delta`] subtracts an earlier reading of the same
//! mount from a later one and derives per-op and per-transport figures.
//!
//! Ops are matched by name, transports by position (the kernel lists them in a fixed order; one that
//! appeared since — a reconnect under `nconnect` — counts from zero), events and bytes by name. A
//! counter that went backwards (the mount was replaced) also counts from zero.

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::counters::{counter_since, Counters};
use crate::mount::{Mount, OpStats};
use crate::transport::{RdmaCounters, Transport};

/// The growth of one mount's counters over a window.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MountWindow {
    pub mountpoint: String,
    /// Ops that did anything in the window (ops or transmissions grew), in procedure order.
    pub ops: Vec<OpWindow>,
    /// One per transport of the later reading.
    pub transports: Vec<TransportWindow>,
    pub events: Counters,
    pub bytes: Counters,
}

/// One procedure over a window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpWindow {
    pub name: String,
    pub ops: u64,
    pub ntrans: u64,
    /// Transmissions beyond one per op (`ntrans - ops`; 0 if in-flight ops make it negative).
    pub retransmissions: u64,
    pub timeouts: u64,
    pub bytes_sent: u64,
    pub bytes_recv: u64,
    pub queue_ms: u64,
    pub rtt_ms: u64,
    pub execute_ms: u64,
    pub errors: Option<u64>,
    /// Average round trip per op, ms (`None` without ops).
    pub avg_rtt_ms: Option<f64>,
    /// Average execution time per op (queue, transmission, reply, and any retransmission), ms.
    pub avg_exec_ms: Option<f64>,
    /// Average time queued before transmission (the backlog wait) per op, ms.
    pub avg_queue_ms: Option<f64>,
}

/// One transport over a window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransportWindow {
    pub proto: String,
    pub sends: u64,
    pub recvs: u64,
    pub bad_xids: u64,
    /// Growth of the backlog-length sum; `avg_backlog` divides it by sends.
    pub bklog_u: u64,
    pub req_u: u64,
    /// Average backlog queue length seen at each send (`None` without sends).
    pub avg_backlog: Option<f64>,
    /// Average requests in flight seen at each send.
    pub avg_requests: Option<f64>,
    pub connect_count: Option<u64>,
    /// The xprtrdma counters' growth (`rdma` only; counters an older kernel lacks stay `None`).
    pub rdma: Option<RdmaCounters>,
}

impl Mount {
    /// The counters' growth from `before` (an earlier reading of the same mount) to `self`.
    pub fn delta(&self, before: &Mount) -> MountWindow {
        let (Some(after), prior) = (self.nfs.as_ref(), before.nfs.as_ref()) else {
            return MountWindow { mountpoint: self.mountpoint.clone(), ..MountWindow::default() };
        };
        let no_ops: &[OpStats] = &[];
        let prior_ops = prior.map(|p| p.ops.as_slice()).unwrap_or(no_ops);
        let prior_transports = prior.map(|p| p.transports.as_slice()).unwrap_or(&[]);
        let ops = after
            .ops
            .iter()
            .map(|op| op_window(op, prior_ops.iter().find(|b| b.name == op.name)))
            .filter(|w| w.ops > 0 || w.ntrans > 0)
            .collect();
        let transports =
            after.transports.iter().enumerate().map(|(i, t)| transport_window(t, prior_transports.get(i))).collect();
        let empty = Counters::default();
        MountWindow {
            mountpoint: self.mountpoint.clone(),
            ops,
            transports,
            events: after.events.since(prior.map(|p| &p.events).unwrap_or(&empty)),
            bytes: after.bytes.since(prior.map(|p| &p.bytes).unwrap_or(&empty)),
        }
    }
}

fn op_window(after: &OpStats, before: Option<&OpStats>) -> OpWindow {
    let d = |f: fn(&OpStats) -> u64| counter_since(f(after), before.map(f));
    let ops = d(|o| o.ops);
    let ntrans = d(|o| o.ntrans);
    let (queue_ms, rtt_ms, execute_ms) = (d(|o| o.queue_ms), d(|o| o.rtt_ms), d(|o| o.execute_ms));
    OpWindow {
        name: after.name.clone(),
        ops,
        ntrans,
        retransmissions: ntrans.saturating_sub(ops),
        timeouts: d(|o| o.timeouts),
        bytes_sent: d(|o| o.bytes_sent),
        bytes_recv: d(|o| o.bytes_recv),
        queue_ms,
        rtt_ms,
        execute_ms,
        errors: after.errors.map(|e| counter_since(e, before.and_then(|b| b.errors))),
        avg_rtt_ms: ratio(rtt_ms, ops),
        avg_exec_ms: ratio(execute_ms, ops),
        avg_queue_ms: ratio(queue_ms, ops),
    }
}

fn transport_window(after: &Transport, before: Option<&Transport>) -> TransportWindow {
    // A transport of another kind at the same position is a new one: it counts from zero.
    let before = before.filter(|b| b.proto == after.proto);
    let d = |f: fn(&Transport) -> u64| counter_since(f(after), before.map(f));
    let (sends, bklog_u, req_u) = (d(|t| t.sends), d(|t| t.bklog_u), d(|t| t.req_u));
    TransportWindow {
        proto: after.proto.clone(),
        sends,
        recvs: d(|t| t.recvs),
        bad_xids: d(|t| t.bad_xids),
        bklog_u,
        req_u,
        avg_backlog: ratio(bklog_u, sends),
        avg_requests: ratio(req_u, sends),
        connect_count: after.connect_count.map(|c| counter_since(c, before.and_then(|b| b.connect_count))),
        rdma: after.rdma.as_ref().map(|r| rdma_since(r, before.and_then(|b| b.rdma.as_ref()))),
    }
}

fn rdma_since(after: &RdmaCounters, before: Option<&RdmaCounters>) -> RdmaCounters {
    let d = |f: fn(&RdmaCounters) -> u64| counter_since(f(after), before.map(f));
    let o = |f: fn(&RdmaCounters) -> Option<u64>| f(after).map(|a| counter_since(a, before.and_then(f)));
    RdmaCounters {
        read_chunk_count: d(|r| r.read_chunk_count),
        write_chunk_count: d(|r| r.write_chunk_count),
        reply_chunk_count: d(|r| r.reply_chunk_count),
        total_rdma_request: d(|r| r.total_rdma_request),
        total_rdma_reply: d(|r| r.total_rdma_reply),
        pullup_copy_count: d(|r| r.pullup_copy_count),
        fixup_copy_count: d(|r| r.fixup_copy_count),
        hardway_register_count: d(|r| r.hardway_register_count),
        failed_marshal_count: d(|r| r.failed_marshal_count),
        bad_reply_count: d(|r| r.bad_reply_count),
        nomsg_call_count: o(|r| r.nomsg_call_count),
        mrs_recycled: o(|r| r.mrs_recycled),
        mrs_orphaned: o(|r| r.mrs_orphaned),
        // mrs_allocated is a running total too (MRs allocated so far), so its growth is what the
        // window allocated.
        mrs_allocated: o(|r| r.mrs_allocated),
        local_inv_needed: o(|r| r.local_inv_needed),
        empty_sendctx_q: o(|r| r.empty_sendctx_q),
        reply_waits_for_send: o(|r| r.reply_waits_for_send),
    }
}

/// `num / den` as a float, `None` when `den` is 0.
fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}
