//! `bitmap4` (RFC 8881 §3.3.7): a counted array of 32-bit words, bit `n` in word `n / 32`.

use std::fmt;

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

/// `bitmap4`, held inline with at most [`Bitmap4::MAX_WORDS`] words. The wire length is kept (a peer may
/// send trailing zero words), so a decoded bitmap re-encodes byte-identical; words past `len` are zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitmap4 {
    len: u8,
    words: [u32; Bitmap4::MAX_WORDS],
}

impl Bitmap4 {
    /// The most words decoded: 256 bits, three times the highest attribute number of RFC 8276. Linux
    /// sends at most three words.
    pub const MAX_WORDS: usize = 8;

    pub const EMPTY: Bitmap4 = Bitmap4 { len: 0, words: [0; Bitmap4::MAX_WORDS] };

    /// A bitmap of these words; `None` when there are more than [`Self::MAX_WORDS`].
    pub fn from_words(words: &[u32]) -> Option<Self> {
        let mut out = Bitmap4::EMPTY;
        out.words.get_mut(..words.len())?.copy_from_slice(words);
        out.len = words.len() as u8;
        Some(out)
    }

    /// The smallest bitmap with these bits set. Bits at or past 32 × [`Self::MAX_WORDS`] are ignored.
    pub fn from_bits(bits: impl IntoIterator<Item = u32>) -> Self {
        let mut out = Bitmap4::EMPTY;
        for bit in bits {
            out.set(bit);
        }
        out
    }

    /// The words as on the wire, trailing zero words included.
    pub fn words(&self) -> &[u32] {
        self.words.get(..usize::from(self.len)).unwrap_or(&self.words)
    }

    pub fn is_set(&self, bit: u32) -> bool {
        let word = (bit / 32) as usize;
        word < usize::from(self.len) && self.words.get(word).is_some_and(|w| w & (1 << (bit % 32)) != 0)
    }

    /// Sets `bit`, growing the word count as needed; a bit past the capacity is ignored (returns false).
    pub fn set(&mut self, bit: u32) -> bool {
        let word = (bit / 32) as usize;
        let Some(w) = self.words.get_mut(word) else { return false };
        *w |= 1 << (bit % 32);
        self.len = self.len.max(word as u8 + 1);
        true
    }

    pub fn clear(&mut self, bit: u32) {
        if let Some(w) = self.words.get_mut((bit / 32) as usize) {
            *w &= !(1 << (bit % 32));
        }
    }

    /// True when no bit is set (whatever the word count).
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// The set bits in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words()
            .iter()
            .enumerate()
            .flat_map(|(i, &w)| (0..32u32).filter(move |b| w & (1 << b) != 0).map(move |b| i as u32 * 32 + b))
    }

    /// The bits set in both, with the shortest length that holds them.
    pub fn intersect(&self, other: &Bitmap4) -> Bitmap4 {
        let mut out = Bitmap4::EMPTY;
        for (i, w) in out.words.iter_mut().enumerate() {
            *w = self.words[i] & other.words[i];
        }
        out.len = out.words.iter().rposition(|w| *w != 0).map_or(0, |i| i as u8 + 1);
        out
    }

    /// The bits of `self` not in `other`.
    pub fn difference(&self, other: &Bitmap4) -> Bitmap4 {
        let mut out = *self;
        for (i, w) in out.words.iter_mut().enumerate() {
            *w &= !other.words[i];
        }
        out
    }
}

impl fmt::Debug for Bitmap4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl XdrEncode for Bitmap4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(u32::from(self.len));
        for word in self.words() {
            w.put_u32(*word);
        }
    }
}

impl<'a> XdrDecode<'a> for Bitmap4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let n = r.get_array_len("bitmap4", Bitmap4::MAX_WORDS as u32, 4)?;
        let mut out = Bitmap4 { len: n as u8, words: [0; Bitmap4::MAX_WORDS] };
        for word in out.words.iter_mut().take(n) {
            *word = r.get_u32()?;
        }
        Ok(out)
    }
}
