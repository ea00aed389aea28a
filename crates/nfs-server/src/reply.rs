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

    /// The reply as one buffer (tests, small replies).
    pub fn to_vec(&self) -> Vec<u8> {
        self.slices().concat()
    }
}
