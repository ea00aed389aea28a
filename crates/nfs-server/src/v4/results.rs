//! The result array of a COMPOUND as it is built (RFC 8881 §16.2.2): each operation's `nfs_resop4`
//! encoded in turn; READ and READLINK data kept apart as payloads at their XDR places (RFC 8267 §4.2:
//! over RDMA each goes into the next Write chunk, an empty one included, so results and chunks pair up).
//!
//! The reply is the RPC header, then `COMPOUND4res` (status, tag, the array). What a session slot caches
//! (sa_cachethis) is `COMPOUND4res` alone — no RPC header, no RDMA framing — with a small table of where
//! its payloads go, so a replay gets a fresh header and its payloads are placed again as the first time:
//!
//! ```text
//! u32 n | n × (u32 offset in the inline part, u32 length) | inline part | payload data, in order
//! ```

use nfs4_proto::{NfsErr4, NfsResOp, NfsStat4, OpNum4};
use xdr::{XdrEncode, XdrWriter};

use crate::rpc::{success_writer, SUCCESS_HEADER_LEN};
use crate::{Reply, Served};

/// The array so far.
#[derive(Debug, Default)]
pub(crate) struct Results {
    /// `base` bytes kept for the RPC header and the head of `COMPOUND4res` (written when the reply is
    /// made, so the reply is this buffer: no second copy), then the encoded results, payload data cut out.
    body: Vec<u8>,
    base: usize,
    /// (offset in the results where the data goes, data as the backend served it).
    payloads: Vec<(usize, Served)>,
    count: u32,
    last: Option<NfsStat4>,
}

/// A point to return to ([`Results::rollback`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    body: usize,
    payloads: usize,
    count: u32,
    last: Option<NfsStat4>,
}

/// Bytes of `COMPOUND4res` before its array: status, the tag (length, bytes, padding), the count.
fn head_len(tag: &[u8]) -> usize {
    4 + 4 + tag.len() + xdr::padding(tag.len()) + 4
}

impl Mark {
    /// Results before the mark.
    pub(crate) fn count(&self) -> u32 {
        self.count
    }
}

/// The RPC header of an accepted, successful reply under `xid` with an AUTH_NONE verifier (RFC 5531 §9:
/// xid, REPLY, MSG_ACCEPTED, the verifier's flavor and length, SUCCESS), as [`success_writer`] writes it.
fn success_header(xid: u32) -> [u8; SUCCESS_HEADER_LEN] {
    let mut out = [0u8; SUCCESS_HEADER_LEN];
    out[..4].copy_from_slice(&xid.to_be_bytes());
    out[4..8].copy_from_slice(&1u32.to_be_bytes());
    out
}

impl Results {
    /// An empty array for a COMPOUND tagged `tag`, with room for the reply's headers and the results of a
    /// typical COMPOUND.
    pub(crate) fn new(tag: &[u8]) -> Self {
        let base = SUCCESS_HEADER_LEN + head_len(tag);
        let mut body = Vec::with_capacity(base + 256);
        body.resize(base, 0);
        Results { body, base, ..Results::default() }
    }

    /// The encoded results (no headers).
    fn results(&self) -> &[u8] {
        &self.body[self.base..]
    }

    /// Appends the success of an operation whose result is its status alone (PUTFH, LOOKUP, ...),
    /// without encoding machinery: the hot path's most frequent results.
    pub(crate) fn put_ok(&mut self, op: OpNum4) {
        self.body.extend_from_slice(&op.as_u32().to_be_bytes());
        self.body.extend_from_slice(&NfsStat4::Ok.as_u32().to_be_bytes());
        self.count += 1;
        self.last = Some(NfsStat4::Ok);
    }

    /// Appends SEQUENCE's success (RFC 8881 §18.46.2 `SEQUENCE4resok`), encoded in place.
    pub(crate) fn put_sequence(&mut self, ok: &nfs4_proto::SequenceResOk) {
        self.put_ok(OpNum4::Sequence);
        self.body.extend_from_slice(&ok.sessionid.0);
        for word in [ok.sequenceid, ok.slotid, ok.highest_slotid, ok.target_highest_slotid, ok.status_flags] {
            self.body.extend_from_slice(&word.to_be_bytes());
        }
    }

    /// Appends one result (an `nfs_resop4`: operation number, status, body).
    pub(crate) fn put(&mut self, res: &NfsResOp<'_>) {
        let mut w = XdrWriter::new();
        res.encode(&mut w);
        self.body.extend_from_slice(w.inline_bytes());
        self.count += 1;
        self.last = Some(res.status());
    }

    /// Appends a successful READ or READLINK result: `head` holds everything up to and including the
    /// data's length word, which this writes (so the data is the next XDR item, a payload).
    pub(crate) fn put_with_payload(&mut self, op: OpNum4, head: &[u8], data: Served) {
        self.body.extend_from_slice(&op.as_u32().to_be_bytes());
        self.body.extend_from_slice(&NfsStat4::Ok.as_u32().to_be_bytes());
        self.body.extend_from_slice(head);
        self.body.extend_from_slice(&(data.data.len() as u32).to_be_bytes());
        self.payloads.push((self.body.len() - self.base, data));
        self.count += 1;
        self.last = Some(NfsStat4::Ok);
    }

    pub(crate) fn mark(&self) -> Mark {
        Mark { body: self.body.len(), payloads: self.payloads.len(), count: self.count, last: self.last }
    }

    /// Forgets every result after `mark`.
    pub(crate) fn rollback(&mut self, mark: Mark) {
        self.body.truncate(mark.body);
        self.payloads.truncate(mark.payloads);
        self.count = mark.count;
        self.last = mark.last;
    }

    pub(crate) fn count(&self) -> u32 {
        self.count
    }

    /// A COMPOUND answered with a status and no results (NFS4ERR_MINOR_VERS_MISMATCH, RFC 8881 §16.2.3).
    pub(crate) fn set_status_only(&mut self, status: NfsErr4) {
        self.body.truncate(self.base);
        self.payloads.clear();
        self.count = 0;
        self.last = Some(status.status());
    }

    /// The status of the last result (the COMPOUND's, RFC 8881 §16.2.3); OK for none.
    pub(crate) fn status(&self) -> NfsStat4 {
        self.last.unwrap_or(NfsStat4::Ok)
    }

    /// The whole reply's size on the wire with tag `tag`, RPC header included.
    pub(crate) fn reply_len(&self, tag: &[u8]) -> usize {
        let data: usize = self.payloads.iter().map(|(_, d)| d.data.len() + xdr::padding(d.data.len())).sum();
        SUCCESS_HEADER_LEN + head_len(tag) + self.results().len() + data
    }

    /// The size of [`Results::cached`]'s form.
    pub(crate) fn cached_len(&self, tag: &[u8]) -> usize {
        let data: usize = self.payloads.iter().map(|(_, d)| d.data.len()).sum();
        4 + 8 * self.payloads.len() + head_len(tag) + self.results().len() + data
    }

    fn head(&self, tag: &[u8]) -> Vec<u8> {
        let mut w = XdrWriter::with_capacity(head_len(tag));
        w.put_u32(self.status().as_u32());
        w.put_opaque(tag);
        w.put_u32(self.count);
        w.into_vec()
    }

    /// The reply to send under `xid`.
    #[cfg(test)]
    pub(crate) fn reply(&self, xid: u32, tag: &[u8]) -> Reply {
        let mut w = success_writer(xid, head_len(tag) + self.results().len());
        w.put_raw(&self.head(tag));
        w.put_raw(self.results());
        let mut reply = Reply::from_inline(w.into_vec());
        let base = SUCCESS_HEADER_LEN + head_len(tag);
        for (at, data) in &self.payloads {
            reply.push_served(base + at, data.clone());
        }
        reply
    }

    /// The reply to send under `xid`, taking the buffer and the payloads (no copy of the results or of
    /// READ data): the headers go into the room [`Results::new`] kept.
    pub(crate) fn into_reply(mut self, xid: u32, tag: &[u8]) -> Reply {
        let base = SUCCESS_HEADER_LEN + head_len(tag);
        let payloads = std::mem::take(&mut self.payloads);
        let mut inline = if self.base == base {
            std::mem::take(&mut self.body)
        } else {
            // Made without room for this tag (Results::default): the headers go in front.
            let mut inline = Vec::with_capacity(base + self.results().len());
            inline.resize(base, 0);
            inline.extend_from_slice(self.results());
            inline
        };
        inline[..SUCCESS_HEADER_LEN].copy_from_slice(&success_header(xid));
        // COMPOUND4res's head: status, tag (length, bytes, zero padding), the count.
        let status = self.status().as_u32().to_be_bytes();
        let (tag_len, count) = ((tag.len() as u32).to_be_bytes(), self.count.to_be_bytes());
        let tag_at = SUCCESS_HEADER_LEN + 8;
        inline[SUCCESS_HEADER_LEN..SUCCESS_HEADER_LEN + 4].copy_from_slice(&status);
        inline[SUCCESS_HEADER_LEN + 4..tag_at].copy_from_slice(&tag_len);
        inline[tag_at..tag_at + tag.len()].copy_from_slice(tag);
        inline[tag_at + tag.len()..base - 4].fill(0);
        inline[base - 4..base].copy_from_slice(&count);
        let mut reply = Reply::from_inline(inline);
        for (at, data) in payloads {
            reply.push_served(base + at, data);
        }
        reply
    }

    /// The form a session slot caches (see the module documentation). The payloads' data is copied into
    /// it (the cache never holds the backend's pages: a slot's reply could pin them for the session's
    /// life) and counted as copied in the reply.
    pub(crate) fn cached(&mut self, tag: &[u8]) -> Vec<u8> {
        let head = self.head(tag);
        let mut out = Vec::with_capacity(self.cached_len(tag));
        out.extend_from_slice(&(self.payloads.len() as u32).to_be_bytes());
        for (at, data) in &self.payloads {
            out.extend_from_slice(&((head.len() + at) as u32).to_be_bytes());
            out.extend_from_slice(&(data.data.len() as u32).to_be_bytes());
        }
        out.extend_from_slice(&head);
        out.extend_from_slice(self.results());
        for (_, served) in &mut self.payloads {
            for slice in served.data.slices() {
                out.extend_from_slice(slice);
            }
            served.copied += served.data.len();
        }
        out
    }
}

/// A reply under `xid` from a slot's cached form; `None` when the bytes are not one (never, for what
/// [`Results::cached`] wrote).
pub(crate) fn replay(xid: u32, cached: &[u8]) -> Option<Reply> {
    let word = |at: usize| -> Option<usize> {
        let bytes: [u8; 4] = cached.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_be_bytes(bytes) as usize)
    };
    let n = word(0)?;
    let table_end = n.checked_mul(8)?.checked_add(4)?;
    let mut places = Vec::with_capacity(n.min(64));
    let mut data_len = 0usize;
    for i in 0..n {
        let (at, len) = (word(4 + 8 * i)?, word(8 + 8 * i)?);
        data_len = data_len.checked_add(len)?;
        places.push((at, len));
    }
    let inline_end = cached.len().checked_sub(data_len)?;
    let inline = cached.get(table_end..inline_end)?;
    let mut w = success_writer(xid, inline.len());
    w.put_raw(inline);
    let mut reply = Reply::from_inline(w.into_vec());
    let mut data_at = inline_end;
    for (at, len) in places {
        reply.push_served(SUCCESS_HEADER_LEN + at, Served::copied(cached.get(data_at..data_at + len)?.to_vec()));
        data_at += len;
    }
    Some(reply)
}

#[cfg(test)]
mod tests {
    use nfs4_proto::{Nfs4Result, Void};

    use super::*;

    fn read_like(results: &mut Results, data: &[u8]) {
        results.put_with_payload(OpNum4::Read, &1u32.to_be_bytes(), Served::copied(data.to_vec()));
    }

    #[test]
    fn the_status_is_the_last_results_and_rollback_forgets_results() {
        let mut results = Results::default();
        assert_eq!(results.status(), NfsStat4::Ok);
        results.put(&NfsResOp::Putrootfh(Nfs4Result::Ok(Void)));
        let mark = results.mark();
        read_like(&mut results, b"abc");
        results.put(&NfsResOp::error(OpNum4::Lookup, NfsErr4::NoEnt));
        assert_eq!((results.count(), results.status()), (3, NfsStat4::from(NfsErr4::NoEnt)));
        results.rollback(mark);
        assert_eq!((results.count(), results.status()), (1, NfsStat4::Ok));
        assert_eq!(results.reply_len(b""), results.reply(1, b"").len());
    }

    #[test]
    fn a_cached_reply_replays_byte_for_byte_under_a_new_xid_with_its_payloads_in_place() {
        let mut results = Results::default();
        results.put(&NfsResOp::Putrootfh(Nfs4Result::Ok(Void)));
        read_like(&mut results, b"hello");
        read_like(&mut results, b"");
        results.put(&NfsResOp::Putrootfh(Nfs4Result::Ok(Void)));
        let original = results.reply(7, b"tag");
        let cached = results.cached(b"tag");
        assert_eq!(cached.len(), results.cached_len(b"tag"));
        let again = replay(8, &cached).expect("a cached reply");
        assert_eq!(again.to_vec()[4..], original.to_vec()[4..], "the same reply but for the xid");
        assert_eq!(again.to_vec()[..4], 8u32.to_be_bytes());
        let ats = |r: &Reply| r.payloads().iter().map(|p| (p.at, p.data.clone())).collect::<Vec<_>>();
        assert_eq!(ats(&again), ats(&original));
        assert_eq!(again.payloads().len(), 2, "the empty payload keeps its place too");
    }

    #[test]
    fn cached_bytes_that_do_not_hold_together_replay_nothing() {
        assert!(replay(1, &[]).is_none());
        assert!(replay(1, &[0, 0, 0, 9, 0, 0]).is_none());
        assert!(replay(1, &[0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]).is_none());
    }

    #[test]
    fn the_success_header_is_the_rpc_layers() {
        assert_eq!(success_header(0x0102_0304).to_vec(), success_writer(0x0102_0304, 0).into_vec());
    }

    #[test]
    fn a_reply_made_in_place_is_the_reply_made_apart_for_any_tag() {
        for tag in [&b""[..], b"a", b"abcd", b"tag-of-seven"] {
            for mut results in [Results::new(tag), Results::default(), Results::new(b"other tag")] {
                results.put(&NfsResOp::Putrootfh(Nfs4Result::Ok(Void)));
                read_like(&mut results, b"hello");
                results.put(&NfsResOp::error(OpNum4::Lookup, NfsErr4::NoEnt));
                let apart = results.reply(9, tag);
                let ats = |r: &Reply| r.payloads().iter().map(|p| (p.at, p.data.clone())).collect::<Vec<_>>();
                let expected = (apart.to_vec(), ats(&apart));
                let in_place = results.into_reply(9, tag);
                assert_eq!((in_place.to_vec(), ats(&in_place)), expected, "tag {tag:?}");
            }
        }
    }
}
