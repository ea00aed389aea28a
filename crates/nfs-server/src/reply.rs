//! An encoded RPC reply as the service hands it to a transport: the inline bytes, and the bulk results
//! (READ data, READLINK path) kept apart as [`Payload`]s, each at its place in the XDR stream, so a
//! transport can send them without copying (TCP: one vectored write) or place them directly
//! (RPC-over-RDMA: payload `i` into the call's Write chunk `i`, RFC 8267 §4.2).
//!
//! An NFSv3 reply has at most one payload; an NFSv4 COMPOUND has one per READ-type operation, in
//! operation order, an empty one included (a READ at end of file), so that Write chunks and results
//! pair up. The first payload is held inline in the [`Payloads`] list, so a v3 READ reply allocates
//! nothing beyond its data. A payload's data is a list of slices that may be the backend's own memory
//! ([`PayloadData`]): [`Reply::pieces`] yields each slice, and nothing here copies them.

use std::iter::Chain;

use crate::payload::{PayloadData, Served};

/// Bulk result data cut out of a reply: `data` belongs at byte `at` of the reply's inline bytes (right
/// after its XDR length word), followed by its XDR padding (RFC 4506 §4.10), which is not stored.
/// `data` may reference the backend's memory ([`PayloadData`]); `copied` says how many of its bytes the
/// service copied into a buffer of its own to make it (not part of equality).
#[derive(Debug, Clone, Default)]
pub struct Payload {
    pub at: usize,
    pub data: PayloadData,
    pub copied: usize,
}

impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        self.at == other.at && self.data == other.data
    }
}

impl Eq for Payload {}

impl Payload {
    /// Bytes on the wire: the data and its padding.
    pub fn wire_len(&self) -> usize {
        self.data.len() + xdr::padding(self.data.len())
    }
}

/// The payloads of one reply in XDR order (positions never decrease). The first is stored in place, the
/// others in a vector that allocates only when a second payload is added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Payloads {
    first: Option<Payload>,
    rest: Vec<Payload>,
}

/// The payloads in order, borrowed.
pub type PayloadIter<'a> = Chain<std::option::Iter<'a, Payload>, std::slice::Iter<'a, Payload>>;

impl Payloads {
    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub fn iter(&self) -> PayloadIter<'_> {
        self.first.iter().chain(self.rest.iter())
    }

    /// Payload `i` in XDR order.
    pub fn get(&self, i: usize) -> Option<&Payload> {
        match i {
            0 => self.first.as_ref(),
            i => self.rest.get(i - 1),
        }
    }

    /// Bytes on the wire of every payload, padding included.
    pub fn wire_len(&self) -> usize {
        self.iter().map(Payload::wire_len).sum()
    }

    fn last_at(&self) -> usize {
        self.rest.last().or(self.first.as_ref()).map_or(0, |p| p.at)
    }

    fn push(&mut self, payload: Payload) {
        match self.first {
            None => self.first = Some(payload),
            Some(_) => self.rest.push(payload),
        }
    }
}

impl IntoIterator for Payloads {
    type Item = Payload;
    type IntoIter = Chain<std::option::IntoIter<Payload>, std::vec::IntoIter<Payload>>;

    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

impl<'a> IntoIterator for &'a Payloads {
    type Item = &'a Payload;
    type IntoIter = PayloadIter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// An encoded RPC reply (no record mark): `inline` with every payload spliced in at its place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub inline: Vec<u8>,
    payloads: Payloads,
    /// The service refused the call although the RPC layer accepted it ([`Reply::mark_refused`]).
    refused: bool,
}

const ZEROS: [u8; 4] = [0; 4];

impl Reply {
    /// A reply with no separate payload.
    pub fn from_inline(inline: Vec<u8>) -> Self {
        Reply { inline, payloads: Payloads::default(), refused: false }
    }

    /// A reply with one payload at byte `at` of `inline` (an NFSv3 READ reply).
    pub fn with_payload(inline: Vec<u8>, at: usize, data: impl Into<PayloadData>) -> Self {
        let mut reply = Reply::from_inline(inline);
        reply.push_payload(at, data);
        reply
    }

    /// Adds the next payload, at byte `at` of the inline bytes. Payloads come in XDR order: `at` is
    /// raised to the previous payload's and lowered to the end of the inline bytes, so the reply always
    /// has one well-formed layout.
    pub fn push_payload(&mut self, at: usize, data: impl Into<PayloadData>) {
        self.push_served(at, Served::shared(data.into()));
    }

    /// [`Reply::push_payload`] with what a backend served, keeping count of the bytes it copied.
    pub fn push_served(&mut self, at: usize, served: Served) {
        let at = at.min(self.inline.len()).max(self.payloads.last_at());
        self.payloads.push(Payload { at, data: served.data, copied: served.copied });
    }

    /// Bytes of payload data, and how many of them the service copied into a buffer of its own.
    pub fn payload_bytes(&self) -> (u64, u64) {
        self.payloads
            .iter()
            .fold((0, 0), |(served, copied), p| (served + p.data.len() as u64, copied + p.copied as u64))
    }

    /// The payloads in XDR order.
    pub fn payloads(&self) -> &Payloads {
        &self.payloads
    }

    /// Rewrites each payload's data, in order, for a wrapper that changes results (tests that corrupt
    /// data): `rewrite` gets a copy of the bytes, which then replace the payload's (the backend's memory
    /// is never written through a reply).
    pub fn rewrite_payloads(&mut self, mut rewrite: impl FnMut(&mut Vec<u8>)) {
        let Payloads { first, rest } = &mut self.payloads;
        for payload in first.iter_mut().chain(rest.iter_mut()) {
            let mut bytes = payload.data.to_vec();
            rewrite(&mut bytes);
            payload.copied = bytes.len();
            payload.data = PayloadData::from(bytes);
        }
    }

    /// The inline bytes and the payloads, for a transport that sends them apart.
    pub fn into_parts(self) -> (Vec<u8>, Payloads) {
        (self.inline, self.payloads)
    }

    /// True when `inline` alone is the whole reply: no payload holds a byte.
    pub fn is_flat(&self) -> bool {
        self.payloads.iter().all(|p| p.data.is_empty())
    }

    /// Length of the whole reply on the wire (without the record mark).
    pub fn len(&self) -> usize {
        self.inline.len() + self.payloads.wire_len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The reply's pieces in wire order: inline bytes up to the first payload, its data, its padding, and
    /// so on, then the rest of the inline bytes. Some pieces may be empty; nothing is allocated.
    pub fn pieces(&self) -> Pieces<'_> {
        Pieces { inline: &self.inline, payloads: self.payloads.iter(), cursor: 0, stage: Stage::Head }
    }

    /// The reply as an ordered gather list for a vectored write (empty slices left out).
    pub fn slices(&self) -> Vec<&[u8]> {
        self.pieces().filter(|s| !s.is_empty()).collect()
    }

    /// True when the RPC layer refused the call (RFC 5531 §9: MSG_DENIED — RPC_MISMATCH, AUTH_ERROR — or
    /// MSG_ACCEPTED with any accept_stat but SUCCESS: PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL,
    /// GARBAGE_ARGS, SYSTEM_ERR): the call never reached a procedure. Transports throttle peers that
    /// send little else. Read from the header's fixed words, without decoding the whole reply.
    pub fn is_rpc_refusal(&self) -> bool {
        let word = |at: usize| self.inline.get(at..at + 4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
        // xid, msg_type (1 = REPLY), reply_stat (0 accepted, 1 denied), then for accepted replies the
        // verifier (flavor, body length, body) and accept_stat.
        match word(8) {
            Some(0) => {
                let verf_len = word(16).map_or(0, |l| l as usize);
                let at = 20usize.saturating_add(verf_len).saturating_add(xdr::padding(verf_len));
                word(at).is_some_and(|stat| stat != 0)
            }
            Some(_) => true,
            None => false,
        }
    }

    /// Marks a reply whose call the service refused for the client's fault although the RPC layer
    /// accepted it: an NFSv4 COMPOUND that failed as only a broken or hostile client makes one fail
    /// (BADXDR, BADSESSION, SEQ_MISORDERED, BAD_STATEID ...). Nothing of it goes on the wire.
    pub fn mark_refused(&mut self) {
        self.refused = true;
    }

    /// True when the call was refused, by the RPC layer ([`Reply::is_rpc_refusal`]) or by the service
    /// ([`Reply::mark_refused`]). Transports throttle peers that send little else.
    pub fn is_refused(&self) -> bool {
        self.refused || self.is_rpc_refusal()
    }

    /// The reply as one buffer (tests, small replies, a Reply chunk).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for piece in self.pieces() {
            out.extend_from_slice(piece);
        }
        out
    }
}

/// What [`Pieces`] yields next.
#[derive(Debug, Clone, Copy)]
enum Stage<'a> {
    /// Inline bytes up to the next payload (or the end).
    Head,
    /// Slice `.1` of the payload's data.
    Data(&'a Payload, usize),
    Pad(usize),
    Done,
}

/// The pieces of a [`Reply`] in wire order ([`Reply::pieces`]).
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    inline: &'a [u8],
    payloads: PayloadIter<'a>,
    /// Inline bytes already yielded.
    cursor: usize,
    stage: Stage<'a>,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        match self.stage {
            Stage::Head => {
                let end = match self.payloads.next() {
                    Some(payload) => {
                        self.stage = Stage::Data(payload, 0);
                        payload.at.clamp(self.cursor, self.inline.len())
                    }
                    None => {
                        self.stage = Stage::Done;
                        self.inline.len()
                    }
                };
                let head = self.inline.get(self.cursor..end).unwrap_or_default();
                self.cursor = end;
                Some(head)
            }
            Stage::Data(payload, i) => match payload.data.slices().get(i) {
                Some(slice) => {
                    self.stage = Stage::Data(payload, i + 1);
                    Some(&slice[..])
                }
                None => {
                    self.stage = Stage::Pad(xdr::padding(payload.data.len()));
                    self.next()
                }
            },
            Stage::Pad(n) => {
                self.stage = Stage::Head;
                Some(ZEROS.get(..n).unwrap_or_default())
            }
            Stage::Done => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onc_rpc::{AcceptStat, OpaqueAuth, ReplyBody, RpcMessage};

    fn reply(body: ReplyBody<'_>) -> Reply {
        Reply::from_inline(RpcMessage::reply(7, body).header_writer(0).into_vec())
    }

    #[test]
    fn refusals_are_told_apart_from_executed_calls() {
        assert!(!reply(ReplyBody::success(OpaqueAuth::NONE)).is_rpc_refusal());
        assert!(reply(ReplyBody::rpc_mismatch()).is_rpc_refusal());
        assert!(reply(ReplyBody::accepted(AcceptStat::GarbageArgs)).is_rpc_refusal());
        assert!(reply(ReplyBody::accepted(AcceptStat::ProcUnavail)).is_rpc_refusal());
        assert!(!Reply::from_inline(vec![0; 6]).is_rpc_refusal(), "too short to say");
    }

    #[test]
    fn each_payload_is_spliced_in_at_its_place_with_its_padding() {
        let mut reply = Reply::from_inline(b"AAAABBBBCCCC".to_vec());
        reply.push_payload(4, b"x".to_vec());
        reply.push_payload(8, b"yyyy".to_vec());
        reply.push_payload(8, Vec::new());
        assert_eq!(reply.to_vec(), b"AAAAx\0\0\0BBBByyyyCCCC");
        assert_eq!(reply.len(), 12 + 4 + 4);
        assert_eq!(reply.payloads().len(), 3);
        assert_eq!(reply.slices().concat(), reply.to_vec());
        assert!(!reply.is_flat());
    }

    #[test]
    fn payload_positions_never_go_back_nor_past_the_inline_bytes() {
        let mut reply = Reply::with_payload(b"abcd".to_vec(), 99, b"P".to_vec());
        reply.push_payload(0, b"Q".to_vec());
        let ats: Vec<usize> = reply.payloads().iter().map(|p| p.at).collect();
        assert_eq!(ats, [4, 4]);
        assert_eq!(reply.to_vec(), b"abcdP\0\0\0Q\0\0\0");
    }

    #[test]
    fn one_payload_allocates_no_list_and_empty_payloads_leave_the_reply_flat() {
        let reply = Reply::with_payload(vec![1; 8], 8, vec![2; 5]);
        assert_eq!(reply.payloads.rest.capacity(), 0, "the first payload is held in place");
        assert_eq!(reply.payloads().get(0).map(|p| p.at), Some(8));
        let empty = Reply::with_payload(vec![1; 8], 8, Vec::new());
        assert!(empty.is_flat());
        assert_eq!(empty.to_vec(), vec![1; 8]);
    }
}
