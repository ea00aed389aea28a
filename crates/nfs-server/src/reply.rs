/// An encoded RPC reply (no record mark): the bytes of `inline`, with `payload` (READ data, READLINK
/// path; borrowed from nowhere, owned here so the transport can send it after the call returns) spliced in
/// at byte `payload_at` of `inline` and followed by its XDR padding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub inline: Vec<u8>,
    pub payload: Vec<u8>,
    pub payload_at: usize,
}

const ZEROS: [u8; 4] = [0; 4];

impl Reply {
    /// A reply with no separate payload.
    pub fn from_inline(inline: Vec<u8>) -> Self {
        Reply { inline, payload: Vec::new(), payload_at: 0 }
    }

    /// Length of the whole reply on the wire (without the record mark).
    pub fn len(&self) -> usize {
        self.inline.len() + self.payload.len() + xdr::padding(self.payload.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The reply as an ordered gather list for a vectored write (empty slices left out).
    pub fn slices(&self) -> Vec<&[u8]> {
        let at = self.payload_at.min(self.inline.len());
        let pad = &ZEROS[..xdr::padding(self.payload.len())];
        [&self.inline[..at], &self.payload[..], pad, &self.inline[at..]].into_iter().filter(|s| !s.is_empty()).collect()
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

    /// The reply as one buffer (tests, small replies).
    pub fn to_vec(&self) -> Vec<u8> {
        self.slices().concat()
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
}
