//! A call's way through a connection: the received message is classified ([`crate::inbound`]); Read
//! chunks are pulled into a piece of the connection's pool (registered once, [`crate::arena`]), or
//! into a buffer registered for the call when the pool has no room (counted), and the call is laid out
//! by [`crate::assemble`]; the handler runs; the reply is laid out by [`crate::outbound`] and its RDMA
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
use xdr::XdrEncode;

use crate::assemble::{self, Assembly};
use crate::connection::{Call, Connection, ReadTarget, Reading};
use crate::inbound::{classify, is_err_vers, Inbound};
use crate::outbound::{self, Planned, Source};
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
                return self.execute(id, inline, false); // No Read chunk: the call is what arrived.
            }
            Ok(layout) if self.setup.read_depth > 0 => layout,
            Ok(_) => {
                return self.refuse(header.xid, header.credits, "the peer's responder resources allow no RDMA Read")
            }
            Err(err) => return self.refuse(header.xid, header.credits, err.0),
        };
        let (target, region, base) = match self.read_target(&layout, &inline) {
            Ok(placed) => placed,
            Err(err) => return self.failed("registering a call buffer", err),
        };
        for &(offset, remote) in &layout.reads {
            let work = Work::Read { region: region.clone(), offset: base + offset, remote };
            self.queue.push(WrTag::new(WrKind::Read, id), work);
        }
        let left = layout.reads.len();
        call.reading = Some(Reading { target, left, layout, inline });
        self.calls.insert(id, call);
    }

    /// Where the RDMA Reads of a call laid out as `layout` land: a piece of the pool (its region and
    /// the piece's offset in it), or, when the pool has none free, a buffer registered for this call
    /// alone (counted: what the pool is sized to avoid), the inline pieces already in place.
    fn read_target(
        &mut self,
        layout: &Assembly,
        inline: &[u8],
    ) -> Result<(ReadTarget, rdma::MemoryRegion, usize), rdma::RdmaError> {
        if let Some((region, arena)) = self.read_pool.as_mut() {
            if let Some(piece) = arena.take(layout.len) {
                return Ok((ReadTarget::Pool(piece), region.clone(), piece.offset));
            }
        }
        self.stats.pool_misses.fetch_add(1, Relaxed);
        let mut buffer = self.pool.take(layout.len);
        layout.fill(&mut buffer, inline);
        let region = self.qp.register(RegBuf::Writable(buffer), Access::LOCAL_WRITE)?;
        Ok((ReadTarget::Registered(region.clone()), region, 0))
    }

    /// One RDMA Read of call `id` completed; with the last one the call is whole.
    pub(crate) fn on_read(&mut self, id: u64) {
        let Some(call) = self.calls.get_mut(&id) else { return };
        let Some(reading) = call.reading.as_mut() else { return };
        reading.left = reading.left.saturating_sub(1);
        if reading.left > 0 {
            return;
        }
        let Some(Reading { target, layout, inline, .. }) = call.reading.take() else { return };
        match target {
            ReadTarget::Pool(piece) => {
                // The pool is reached by copies only: the call is laid out in a buffer of its own,
                // and the piece goes back at once.
                let mut buffer = self.pool.take(layout.len);
                layout.fill(&mut buffer, &inline);
                let copied = match self.read_pool.as_ref() {
                    Some((region, _)) => layout.reads.iter().try_for_each(|&(at, remote)| {
                        let dst = buffer.get_mut(at..at + remote.length as usize).unwrap_or_default();
                        region.read_at(piece.offset + at, dst)
                    }),
                    None => Ok(()),
                };
                if let Some((_, arena)) = self.read_pool.as_mut() {
                    arena.give(piece);
                }
                match copied {
                    Ok(()) => self.execute(id, Bytes::from(buffer), true),
                    Err(err) => self.fail(format!("copying a call out of the pool: {err}")),
                }
            }
            ReadTarget::Registered(region) => match region.into_buffer() {
                Ok(buffer) => self.execute(id, buffer.into_bytes(), true),
                Err(_) => self.fail("the provider still holds an RDMA Read target after its completions".into()),
            },
        }
    }

    /// Runs call `id`; a `pooled` record (an RDMA Read target) goes back to the pool afterwards.
    fn execute(&mut self, id: u64, record: Bytes, pooled: bool) {
        if self.ending.is_some() {
            self.calls.remove(&id);
            return; // The connection is going down: nobody would get the reply.
        }
        // A reply sent as a Long Message (its RPC REPLY in a position-zero Read chunk) is known as one
        // only now: it is taken as a backward reply, never run.
        if Direction::of(&record) == Direction::Reply {
            if let Some(call) = self.calls.remove(&id) {
                self.take_reply(call.xid, call.requested, &record);
            }
            return self.recycle(pooled.then_some(record));
        }
        self.stats.calls.fetch_add(1, Relaxed);
        let (handler, info) = (Arc::clone(&self.handler), self.setup.info);
        match self.setup.mode {
            CallMode::Inline => {
                let reply = run_contained(&*handler, &record, &info);
                self.recycle(pooled.then_some(record));
                self.finish(id, reply);
            }
            CallMode::Task => {
                self.pending.spawn(async move {
                    let reply = run_contained(&*handler, &record, &info);
                    (id, reply, pooled.then_some(record))
                });
            }
            CallMode::Blocking => {
                self.pending.spawn_blocking(move || {
                    let reply = run_contained(&*handler, &record, &info);
                    (id, reply, pooled.then_some(record))
                });
            }
        }
    }

    /// Gives a call buffer back to the pool once nothing else holds it.
    pub(crate) fn recycle(&self, record: Option<Bytes>) {
        if let Some(Ok(buffer)) = record.map(Bytes::try_into_mut) {
            self.pool.give(buffer.into());
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
        let mut message = header.to_xdr_bytes();
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
