use crate::padding;

/// A bulk payload that the writer did not copy: `data` belongs in the XDR stream at byte `position`
/// of the logical message, followed by its padding.
#[derive(Debug, Clone, Copy)]
pub struct Payload<'p> {
    /// Offset in the logical XDR stream where the payload's first byte goes (after its length word).
    pub position: usize,
    /// Offset in [`XdrWriter::inline_bytes`] where the payload was cut out.
    pub inline_offset: usize,
    pub data: &'p [u8],
}

impl Payload<'_> {
    /// Padding bytes after the payload in the logical stream.
    pub fn padding(&self) -> usize {
        padding(self.data.len())
    }
}

/// Builds an XDR message. Small items go into an owned buffer; payloads added with
/// [`put_payload`](Self::put_payload) stay borrowed, so a 1 MiB READ reply is encoded without copying its data.
#[derive(Debug, Default, Clone)]
pub struct XdrWriter<'p> {
    inline: Vec<u8>,
    payloads: Vec<Payload<'p>>,
    payload_bytes: usize,
}

const ZEROS: [u8; 4] = [0; 4];

impl<'p> XdrWriter<'p> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_capacity(capacity: usize) -> Self {
        XdrWriter { inline: Vec::with_capacity(capacity), ..Self::default() }
    }

    /// Length of the logical XDR stream written so far (inline bytes, payloads and their padding).
    pub fn len(&self) -> usize {
        self.inline.len() + self.payload_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn put_u32(&mut self, v: u32) {
        self.inline.extend_from_slice(&v.to_be_bytes());
    }

    #[inline]
    pub fn put_i32(&mut self, v: i32) {
        self.inline.extend_from_slice(&v.to_be_bytes());
    }

    #[inline]
    pub fn put_u64(&mut self, v: u64) {
        self.inline.extend_from_slice(&v.to_be_bytes());
    }

    #[inline]
    pub fn put_i64(&mut self, v: i64) {
        self.inline.extend_from_slice(&v.to_be_bytes());
    }

    #[inline]
    pub fn put_bool(&mut self, v: bool) {
        self.put_u32(v as u32);
    }

    /// Fixed-length opaque with padding (RFC 4506 §4.9), copied.
    pub fn put_opaque_fixed(&mut self, data: &[u8]) {
        self.inline.extend_from_slice(data);
        self.inline.extend_from_slice(&ZEROS[..padding(data.len())]);
    }

    /// Variable-length opaque or string (RFC 4506 §4.10/§4.11), copied. For bulk data use
    /// [`put_payload`](Self::put_payload).
    pub fn put_opaque(&mut self, data: &[u8]) {
        self.put_u32(data.len() as u32);
        self.put_opaque_fixed(data);
    }

    /// Variable-length opaque whose bytes are borrowed, not copied: the length word goes inline and the
    /// data (with its padding) is recorded as a [`Payload`] at its XDR position.
    pub fn put_payload(&mut self, data: &'p [u8]) {
        self.put_u32(data.len() as u32);
        if data.is_empty() {
            return;
        }
        self.payloads.push(Payload { position: self.len(), inline_offset: self.inline.len(), data });
        self.payload_bytes += data.len() + padding(data.len());
    }

    /// Appends bytes that are already XDR (a pre-encoded body), copied.
    pub fn put_raw(&mut self, bytes: &[u8]) {
        self.inline.extend_from_slice(bytes);
    }

    /// The bytes written inline, i.e. the message with every payload (and its padding) cut out.
    pub fn inline_bytes(&self) -> &[u8] {
        &self.inline
    }

    /// The borrowed payloads in stream order.
    pub fn payloads(&self) -> &[Payload<'p>] {
        &self.payloads
    }

    /// The logical message as an ordered list of slices, ready for a vectored write.
    pub fn slices(&self) -> Vec<&[u8]> {
        let mut out = Vec::with_capacity(1 + 3 * self.payloads.len());
        let mut at = 0;
        for p in &self.payloads {
            out.push(&self.inline[at..p.inline_offset]);
            out.push(p.data);
            out.push(&ZEROS[..p.padding()]);
            at = p.inline_offset;
        }
        out.push(&self.inline[at..]);
        out.retain(|s| !s.is_empty());
        out
    }

    /// Copies the logical message into one vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for s in self.slices() {
            out.extend_from_slice(s);
        }
        out
    }

    /// Takes the inline buffer when no payload was borrowed (the common case for small messages),
    /// else flattens.
    pub fn into_vec(self) -> Vec<u8> {
        if self.payloads.is_empty() {
            self.inline
        } else {
            self.to_vec()
        }
    }
}
