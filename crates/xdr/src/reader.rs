use crate::{padding, XdrError};

/// A cursor over an XDR-encoded byte slice. Every getter checks bounds first; nothing panics,
/// and nothing is allocated from a length read off the wire before that length is proven present.
#[derive(Debug, Clone)]
pub struct XdrReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> XdrReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        XdrReader { buf, pos: 0 }
    }

    /// Offset of the next byte to be read, from the start of the buffer.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The unread rest of the buffer, without consuming it.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// Succeeds only when every byte has been consumed.
    pub fn finish(&self) -> Result<(), XdrError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(XdrError::TrailingBytes { count }),
        }
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], XdrError> {
        let remaining = self.remaining();
        if n > remaining {
            return Err(XdrError::UnexpectedEnd { offset: self.pos, needed: n, remaining });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], XdrError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    #[inline]
    pub fn get_u32(&mut self) -> Result<u32, XdrError> {
        Ok(u32::from_be_bytes(self.take_array()?))
    }

    #[inline]
    pub fn get_i32(&mut self) -> Result<i32, XdrError> {
        Ok(i32::from_be_bytes(self.take_array()?))
    }

    #[inline]
    pub fn get_u64(&mut self) -> Result<u64, XdrError> {
        Ok(u64::from_be_bytes(self.take_array()?))
    }

    #[inline]
    pub fn get_i64(&mut self) -> Result<i64, XdrError> {
        Ok(i64::from_be_bytes(self.take_array()?))
    }

    /// RFC 4506 §4.4: a boolean is an enum whose only values are 0 and 1.
    #[inline]
    pub fn get_bool(&mut self) -> Result<bool, XdrError> {
        let offset = self.pos;
        match self.get_u32()? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(XdrError::BadDiscriminant { what: "bool", value, offset }),
        }
    }

    /// Reads an enum or union discriminant and maps it with `f`; `None` from `f` is a bad discriminant.
    pub fn get_enum<T>(&mut self, what: &'static str, f: impl FnOnce(u32) -> Option<T>) -> Result<T, XdrError> {
        let offset = self.pos;
        let value = self.get_u32()?;
        f(value).ok_or(XdrError::BadDiscriminant { what, value, offset })
    }

    /// Fixed-length opaque of `len` bytes plus its padding (RFC 4506 §4.9); borrowed.
    pub fn get_opaque_fixed(&mut self, len: usize) -> Result<&'a [u8], XdrError> {
        let data = self.take(len)?;
        self.take(padding(len))?;
        Ok(data)
    }

    /// Fixed-length opaque copied into an array (verifiers, cookie verifiers).
    pub fn get_array<const N: usize>(&mut self) -> Result<[u8; N], XdrError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.get_opaque_fixed(N)?);
        Ok(out)
    }

    /// Variable-length opaque `opaque<max>` (RFC 4506 §4.10); borrowed. The length is checked against
    /// `max` and against the bytes present before anything else happens.
    pub fn get_opaque(&mut self, what: &'static str, max: u32) -> Result<&'a [u8], XdrError> {
        let offset = self.pos;
        let len = self.get_u32()?;
        if len > max {
            return Err(XdrError::LengthOverLimit { what, len: len.into(), max: max.into(), offset });
        }
        self.get_opaque_fixed(len as usize)
    }

    /// `string<max>` (RFC 4506 §4.11). NFS names are bytes in no particular encoding, so this is
    /// the same as [`get_opaque`](Self::get_opaque).
    pub fn get_string(&mut self, what: &'static str, max: u32) -> Result<&'a [u8], XdrError> {
        self.get_opaque(what, max)
    }

    /// The count of a variable-length array `T<max>` (RFC 4506 §4.13). Each element takes at least
    /// `min_element_size` bytes, so a count the buffer cannot possibly hold is rejected before the caller
    /// reserves memory for it.
    pub fn get_array_len(&mut self, what: &'static str, max: u32, min_element_size: usize) -> Result<usize, XdrError> {
        let offset = self.pos;
        let len = self.get_u32()?;
        if len > max {
            return Err(XdrError::LengthOverLimit { what, len: len.into(), max: max.into(), offset });
        }
        let needed = (len as usize).saturating_mul(min_element_size.max(1));
        if needed > self.remaining() {
            return Err(XdrError::UnexpectedEnd { offset: self.pos, needed, remaining: self.remaining() });
        }
        Ok(len as usize)
    }

    /// Decodes a counted array `T<max>` whose elements are at least `min_element_size` bytes each.
    pub fn get_vec<T>(
        &mut self,
        what: &'static str,
        max: u32,
        min_element_size: usize,
        mut element: impl FnMut(&mut Self) -> Result<T, XdrError>,
    ) -> Result<Vec<T>, XdrError> {
        let n = self.get_array_len(what, max, min_element_size)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(element(self)?);
        }
        Ok(out)
    }

    /// Decodes an XDR linked list (`*entry` chains as in READDIR, RFC 1813): "value follows" booleans
    /// each followed by one element, ended by FALSE. Bounded by the buffer, since every element takes bytes.
    pub fn get_list<T>(
        &mut self,
        mut element: impl FnMut(&mut Self) -> Result<T, XdrError>,
    ) -> Result<Vec<T>, XdrError> {
        let mut out = Vec::new();
        while self.get_bool()? {
            let before = self.pos;
            out.push(element(self)?);
            if self.pos == before {
                return Err(XdrError::Invalid { what: "list element of zero size", offset: before });
            }
        }
        Ok(out)
    }

    /// Creates an error for a rule above XDR, located at the current offset.
    pub fn invalid(&self, what: &'static str) -> XdrError {
        XdrError::Invalid { what, offset: self.pos }
    }
}
