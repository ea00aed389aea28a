//! A call's way through a connection: the received message is classified ([`crate::inbound`]); the call
//! is laid out by [`crate::assemble`] in a target registered once and kept ([`crate::targets`]), its
//! Read chunks RDMA-Read straight into it, and the handler runs on it where it lies; the reply is laid out by [`crate::outbound`] and its RDMA
//! Writes — gathered from the reply's own memory, the RAM backend's pages included, with nothing
//! registered or copied — and Send are queued without waiting (RC ordering places the Writes first).
//! Failures a peer can cause by what it sends are answered with RDMA_ERROR; failures of RDMA itself
//! break the connection.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use bytes::Bytes;
use nfs_server::Reply;
use rdma::{Access, RegBuf};
use rpcrdma_proto::{peek, RdmaBody, RdmaErrorBody, RdmaHeader};
use server_core::{run_contained, CallMode, Direction, RecordHandler};
use xdr::{XdrEncode, XdrWriter};

use crate::assemble;
use crate::connection::{Call, Connection, Reading, Record};
use crate::inbound::{classify, is_err_vers, Inbound};
use crate::outbound::{self, Planned, Source};
use crate::targets::ReadTargets;
use crate::work_queue::{Work, WrKind, WrTag};

impl<H: RecordHandler> Connection<H> {
    pub(crate) fn on_message(&mut self, message: Bytes) {
        let requested = peek(&message).map_or(1, |h| h.credits);
        match classify(&message, &self.limits, &self.policy) {
            Inbound::Call { header, inline } => {
                let inline = message.slice_ref(inline);
                self.start_call(header, inline);
            }
            Inbound::BackwardReply { header, reply } => self.take_reply(header.xid, header.credits, reply),
            Inbound::Answer { header, why } => self.send_error(header, requested, &why),
            Inbound::Ignore { why } => {
                self.refusals.refused();
                tracing::debug!(peer = %self.setup.info.peer, why = %why, "message dropped");
            }
            // RFC 8166 §4.5: an error is reported with the call's xid; without one, nothing can be said.
            Inbound::Close { why } => self.fail(why),
        }
    }

    fn start_call(&mut self, header: RdmaHeader, inline: Bytes) {
        let credits = self.setup.config.credits;
        // RFC 8166 §3.3.1: a requester never has more calls outstanding than it was granted.
        if self.calls.len() as u32 >= credits {
            return self.fail(format!("peer sent a call with {credits} calls in progress, past its credits"));
        }
        let (RdmaBody::Msg(chunks) | RdmaBody::NoMsg(chunks)) = header.body else {
            return; // validate_call refused RDMA_ERROR as a call already.
        };
        let id = self.next_call;
        self.next_call += 1;
        let mut call = Call {
            xid: header.xid,
            requested: header.credits,
            writes: chunks.writes,
            reply_chunk: chunks.reply,
            reading: None,
        };
        let layout = match assemble::plan(&chunks.reads, inline.len()) {
            Ok(layout) if layout.reads.is_empty() => {
                self.calls.insert(id, call);
                return self.execute(id, Record::Message(inline)); // No Read chunk: the call is what arrived.
            }
            Ok(layout) if self.setup.read_depth > 0 => layout,
            Ok(_) => {
                return self.refuse(header.xid, header.credits, "the peer's responder resources allow no RDMA Read")
            }
            Err(err) => return self.refuse(header.xid, header.credits, err.0),
        };
        let mut target = match self.read_target(layout.len) {
            Ok(target) => target,
            Err(err) => return self.failed("registering a call buffer", err),
        };
        match target.local_bytes_mut().and_then(|bytes| bytes.get_mut(..layout.len)) {
            Some(bytes) => layout.fill(bytes, &inline),
            None => return self.fail("a free call buffer is held by the provider".into()),
        }
        for &(offset, remote) in &layout.reads {
            let work = Work::Read { region: target.clone(), offset, remote };
            self.queue.push(WrTag::new(WrKind::Read, id), work);
        }
        call.reading = Some(Reading { target, len: layout.len, left: layout.reads.len() });
        self.calls.insert(id, call);
    }

    /// A target for a call of `len` bytes: a free one the connection keeps, or, when none fits, a new
    /// one registered for this side only (counted as a pool miss; kept afterwards within the bounds).
    fn read_target(&mut self, len: usize) -> Result<rdma::MemoryRegion, rdma::RdmaError> {
        if let Some(target) = self.targets.take(len) {
            return Ok(target);
        }
        self.stats.pool_misses.fetch_add(1, Relaxed);
        let buffer = self.pool.take(ReadTargets::size_for(len));
        self.qp.register(RegBuf::Writable(buffer), Access::LOCAL_WRITE)
    }

    /// One RDMA Read of call `id` completed; with the last one the call is whole.
    pub(crate) fn on_read(&mut self, id: u64) {
        let Some(call) = self.calls.get_mut(&id) else { return };
        let Some(reading) = call.reading.as_mut() else { return };
        reading.left = reading.left.saturating_sub(1);
        if reading.left > 0 {
            return;
        }
        let Some(Reading { target, len, .. }) = call.reading.take() else { return };
        self.execute(id, Record::Target(target, len));
    }

    /// Runs call `id`; a target it was pulled into is kept for the next calls afterwards.
    fn execute(&mut self, id: u64, mut record: Record) {
        if self.ending.is_some() {
            self.calls.remove(&id);
            return; // The connection is going down: nobody would get the reply.
        }
        let Some(bytes) = record.bytes() else {
            return self.fail("the provider still holds an RDMA Read target after its completions".into());
        };
        // A reply sent as a Long Message (its RPC REPLY in a position-zero Read chunk) is known as one
        // only now: it is taken as a backward reply, never run.
        if Direction::of(bytes) == Direction::Reply {
            if let Some(call) = self.calls.remove(&id) {
                self.take_reply(call.xid, call.requested, bytes);
            }
            return self.recycle(record);
        }
        self.stats.calls.fetch_add(1, Relaxed);
        let (handler, info) = (Arc::clone(&self.handler), self.setup.info);
        let run = move |mut record: Record| {
            let reply = record.bytes().and_then(|bytes| run_contained(&*handler, bytes, &info));
            (id, reply, record)
        };
        match self.setup.mode {
            CallMode::Inline => {
                let (id, reply, record) = run(record);
                self.recycle(record);
                self.finish(id, reply);
            }
            CallMode::Task => {
                self.pending.spawn(async move { run(record) });
            }
            CallMode::Blocking => {
                self.pending.spawn_blocking_on(move || run(record), &self.setup.blocking);
            }
        }
    }

    /// Keeps a call's target for the next calls (within the connection's and the server's bounds); one
    /// past them is deregistered and its buffer goes back to the server's buffers. A target the provider
    /// cannot say is idle once deregistered means the peer claims an access it was never given (the
    /// targets have no remote access): that peer loses its connection.
    pub(crate) fn recycle(&mut self, record: Record) {
        let Record::Target(target, _) = record else { return };
        match self.targets.give(target).map(rdma::MemoryRegion::into_buffer) {
            Some(Ok(RegBuf::Writable(buffer))) => self.pool.give(buffer),
            Some(Err(_)) => self.fail("the peer holds on to a call buffer it has no access to".into()),
            Some(Ok(_)) | None => {}
        }
    }

    /// Call `id` has its reply (or none: nothing is owed, e.g. a retransmission still executing).
    pub(crate) fn finish(&mut self, id: u64, reply: Option<Reply>) {
        let Some(call) = self.calls.remove(&id) else { return };
        let Some(reply) = reply else {
            tracing::debug!(peer = %self.setup.info.peer, xid = call.xid, "call answered with nothing");
            return;
        };
        if self.ending.is_some() {
            return;
        }
        self.refusals.observe(&reply);
        match outbound::plan(reply, &call.writes, call.reply_chunk.as_ref(), self.setup.send_limit) {
            Ok(planned) => self.send_reply(id, &call, planned),
            Err(no_room) => self.refuse(call.xid, call.requested, &no_room.0),
        }
    }

    fn send_reply(&mut self, id: u64, call: &Call, planned: Planned) {
        let Planned { kind, nomsg, chunks, inline, payloads, reply_chunk_body, pushes, copied } = planned;
        let reply_chunk_body = [Bytes::from(reply_chunk_body)];
        for push in &pushes {
            // Straight from where the bytes lie: the payload's slices (the backend's pages), or the
            // flattened reply; the provider holds them until the Write completes.
            let slices = match push.source {
                Source::Payload(i) => payloads.get(i).map_or(&[][..], |p| p.data.slices()),
                Source::ReplyChunk => &reply_chunk_body[..],
            };
            let sources = outbound::gather(slices, push.offset, push.remote.length as usize);
            self.queue.push(WrTag::new(WrKind::Write, id), Work::Write { sources, remote: push.remote });
        }
        // RFC 8166 §3.3.1: every reply grants credits; never 0, never more than the receives posted for
        // calls (those kept for backward replies left out).
        let credits = self.grant.grant(call.requested, self.forward_posted());
        let header = if nomsg {
            RdmaHeader::nomsg(call.xid, credits, chunks)
        } else {
            RdmaHeader::msg(call.xid, credits, chunks)
        };
        // One allocation of the Send's final size: header, then the inline part of the reply.
        let mut w = XdrWriter::with_capacity(header.encoded_len() + inline.len());
        header.encode(&mut w);
        let mut message = w.into_vec();
        message.extend_from_slice(&inline);
        self.queue.push(WrTag::new(WrKind::Reply, id), Work::Send { message });
        self.stats.reply(kind);
        if copied > 0 {
            self.handler.payload_copied(copied);
        }
    }

    /// Answers call `xid` with ERR_CHUNK (RFC 8166 §4.5.3: chunks the responder cannot use).
    fn refuse(&mut self, xid: u32, requested: u32, why: &str) {
        self.send_error(RdmaHeader::error(xid, 0, RdmaErrorBody::Chunk), requested, why);
    }

    fn send_error(&mut self, mut header: RdmaHeader, requested: u32, why: &str) {
        self.refusals.refused();
        header.credits = self.grant.grant(requested, self.forward_posted());
        let counter = if is_err_vers(&header) { &self.stats.err_vers_sent } else { &self.stats.err_chunk_sent };
        counter.fetch_add(1, Relaxed);
        tracing::info!(peer = %self.setup.info.peer, xid = header.xid, why, "answering with RDMA_ERROR");
        self.queue.push(WrTag::new(WrKind::Error, 0), Work::Send { message: header.to_xdr_bytes() });
    }
}
