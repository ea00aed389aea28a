//! Fixed-size arguments read in one piece: the data path's SEQUENCE4args, stateid4 and READ4args are
//! 32, 16 and 28 bytes with no variable part, so their decoders check the length once and take the
//! words from one slice instead of one bounds-checked read per field. Anything the fast path does not
//! accept (too few bytes, a bad boolean) goes to the field-by-field decoder, whose error is the answer.

use xdr::XdrReader;

/// The next `N` bytes of `r`, not consumed; `None` when fewer remain.
pub(crate) fn peek<'a, const N: usize>(r: &XdrReader<'a>) -> Option<&'a [u8; N]> {
    r.rest().get(..N)?.try_into().ok()
}

/// Consumes `N` bytes (a multiple of four, so no padding) that [`peek`] returned.
pub(crate) fn consume<const N: usize>(r: &mut XdrReader<'_>) {
    const { assert!(N.is_multiple_of(4)) };
    // Cannot fail: `peek` saw the bytes.
    let _ = r.get_opaque_fixed(N);
}

/// The big-endian word at byte `at` of `b`.
pub(crate) fn word<const N: usize>(b: &[u8; N], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The big-endian hyper at byte `at` of `b`.
pub(crate) fn hyper<const N: usize>(b: &[u8; N], at: usize) -> u64 {
    (u64::from(word(b, at)) << 32) | u64::from(word(b, at + 4))
}

/// `M` bytes from byte `at` of `b`.
pub(crate) fn bytes<const N: usize, const M: usize>(b: &[u8; N], at: usize) -> [u8; M] {
    let mut out = [0u8; M];
    out.copy_from_slice(&b[at..at + M]);
    out
}

#[cfg(test)]
mod tests {
    use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

    use crate::{ReadArgs, SequenceArgs, SessionId4, Stateid4};

    fn bytes_of<T: XdrEncode>(v: &T) -> Vec<u8> {
        let mut w = XdrWriter::new();
        v.encode(&mut w);
        w.into_vec()
    }

    fn decode<'a, T: XdrDecode<'a>>(b: &'a [u8]) -> Result<(T, usize), XdrError> {
        let mut r = XdrReader::new(b);
        let v = T::decode(&mut r)?;
        Ok((v, r.position()))
    }

    fn sequence() -> SequenceArgs {
        SequenceArgs {
            sessionid: SessionId4(*b"0123456789abcdef"),
            sequenceid: 0x0102_0304,
            slotid: 7,
            highest_slotid: 31,
            cachethis: true,
        }
    }

    #[test]
    fn fixed_size_arguments_decode_to_what_was_encoded_and_leave_what_follows() {
        let read = ReadArgs { stateid: Stateid4::new(9, *b"other-twelve"), offset: 1 << 40 | 5, count: 4096 };
        let mut b = bytes_of(&read);
        b.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(decode::<ReadArgs>(&b).expect("READ4args"), (read, 28));
        let mut b = bytes_of(&sequence());
        b.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(decode::<SequenceArgs>(&b).expect("SEQUENCE4args"), (sequence(), 32));
        let no_cache = SequenceArgs { cachethis: false, ..sequence() };
        assert_eq!(decode::<SequenceArgs>(&bytes_of(&no_cache)).expect("SEQUENCE4args").0, no_cache);
    }

    #[test]
    fn short_or_bad_fixed_size_arguments_fail_as_field_by_field_decoding_does() {
        let b = bytes_of(&sequence());
        for len in [0, 15, 16, 27, 31] {
            assert!(matches!(decode::<SequenceArgs>(&b[..len]), Err(XdrError::UnexpectedEnd { .. })), "{len} bytes");
        }
        let mut bad = b.clone();
        bad[31] = 2;
        assert!(
            matches!(
                decode::<SequenceArgs>(&bad),
                Err(XdrError::BadDiscriminant { what: "bool", value: 2, offset: 28 })
            ),
            "{:?}",
            decode::<SequenceArgs>(&bad)
        );
        let read = bytes_of(&ReadArgs::default());
        for len in [0, 3, 15, 27] {
            assert!(matches!(decode::<ReadArgs>(&read[..len]), Err(XdrError::UnexpectedEnd { .. })), "{len} bytes");
        }
    }
}
