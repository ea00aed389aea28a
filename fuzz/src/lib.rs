//! Shared checks for the fuzz targets: every decoder must never panic, and whatever it accepts must
//! survive decode → encode → decode unchanged, with a stable encoding.

/// Splits `data` into a leading big-endian u32 (a procedure number) and the rest.
pub fn split_word(data: &[u8]) -> Option<(u32, &[u8])> {
    let (head, rest) = data.split_first_chunk::<4>()?;
    Some((u32::from_be_bytes(*head), rest))
}

/// The round-trip law for a decoded `value`: `decode(encode(v)) == v` and the encoding is stable.
/// `|v| encode` and `|b| decode` (returning an `Option`) are written inline so the decoded copy may
/// borrow from the re-encoded bytes.
#[macro_export]
macro_rules! assert_round_trip {
    ($value:expr, |$v:ident| $encode:expr, |$b:ident| $decode:expr) => {{
        let value = &$value;
        let bytes = {
            let $v = value;
            $encode
        };
        let again = {
            let $b: &[u8] = &bytes;
            $decode
        }
        .expect("re-encoded value decodes");
        assert_eq!(&again, value, "decode(encode(v)) != v");
        let stable = {
            let $v = &again;
            $encode
        };
        assert_eq!(stable, bytes, "encoding is not stable");
    }};
}
