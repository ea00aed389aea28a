//! Hostile and broken input: nothing panics, nothing allocates much, every error is typed.

use xdr::XdrError;

use super::{encode, sample_headers, words};
use crate::{peek, ChunkLists, DecodeLimits, RdmaHeader, RpcRdmaError};

fn decode(buf: &[u8]) -> Result<(RdmaHeader, &[u8]), RpcRdmaError> {
    RdmaHeader::decode(buf, &DecodeLimits::default())
}

fn over_limit(err: &RpcRdmaError) -> Option<&'static str> {
    match err {
        RpcRdmaError::Xdr(XdrError::LengthOverLimit { what, .. }) => Some(what),
        _ => None,
    }
}

#[test]
fn every_truncation_of_every_valid_header_fails_cleanly_and_peek_works_from_16_bytes() {
    for h in sample_headers() {
        let bytes = encode(&h);
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            let err = decode(prefix).unwrap_err();
            assert!(matches!(err, RpcRdmaError::Xdr(XdrError::UnexpectedEnd { .. })), "cut {cut} of {h:?}: {err:?}");
            let p = peek(prefix);
            assert_eq!(p.is_some(), cut >= 16);
            if let Some(p) = p {
                assert_eq!((p.xid, p.credits, p.procedure), (h.xid, h.credits, h.procedure().as_u32()));
            }
        }
    }
}

#[test]
fn huge_write_chunk_segment_count_in_a_short_buffer_is_refused_before_allocating() {
    let err = decode(&words(&[1, 1, 1, 0, 0, 1, u32::MAX, 0, 0])).unwrap_err();
    assert_eq!(over_limit(&err), Some("write chunk segments"));
    // Under the limit but past the buffer: refused on the bytes present.
    let err = decode(&words(&[1, 1, 1, 0, 0, 1, 200, 0, 0])).unwrap_err();
    assert!(matches!(err, RpcRdmaError::Xdr(XdrError::UnexpectedEnd { needed: 3200, .. })), "{err:?}");
    let err = decode(&words(&[1, 1, 1, 1, 0, 0, 1, u32::MAX])).unwrap_err();
    assert_eq!(over_limit(&err), Some("reply chunk segments"));
}

fn read_list(positions: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut ws = vec![1, 1, 1, 0];
    for p in positions {
        ws.extend([1, p, 7, 4, 0, 0]);
    }
    ws.extend([0, 0, 0]);
    ws
}

#[test]
fn read_list_with_more_chunks_than_allowed_is_refused() {
    assert!(decode(&words(&read_list((1..=8).map(|i| i * 4)))).is_ok());
    let err = decode(&words(&read_list((1..=9).map(|i| i * 4)))).unwrap_err();
    assert_eq!(over_limit(&err), Some("read list chunks"));
}

#[test]
fn read_chunk_with_more_segments_than_allowed_is_refused() {
    let limits = DecodeLimits { max_segments_per_chunk: 3, ..DecodeLimits::default() };
    let buf = words(&read_list([8, 8, 8, 8]));
    let err = RdmaHeader::decode(&buf, &limits).unwrap_err();
    assert_eq!(over_limit(&err), Some("read chunk segments"));
    let no_segments = DecodeLimits { max_segments_per_chunk: 0, ..DecodeLimits::default() };
    assert!(RdmaHeader::decode(&buf, &no_segments).is_err());
}

#[test]
fn write_list_with_more_chunks_than_allowed_is_refused() {
    let mut ws = vec![1, 1, 1, 0, 0];
    for _ in 0..9 {
        ws.extend([1, 0]);
    }
    ws.extend([0, 0]);
    let err = decode(&words(&ws)).unwrap_err();
    assert_eq!(over_limit(&err), Some("write list chunks"));
}

#[test]
fn segments_are_counted_across_all_lists_of_one_header() {
    let mut ws = read_list(vec![8; 200]);
    ws.truncate(ws.len() - 3);
    ws.extend([0, 1, 57]);
    ws.extend(vec![0; 57 * 4]);
    ws.extend([0, 0]);
    let buf = words(&ws);
    let err = decode(&buf).unwrap_err();
    assert_eq!(over_limit(&err), Some("segments in one header"));
    let roomier = DecodeLimits { max_total_segments: 257, ..DecodeLimits::default() };
    let ok = RdmaHeader::decode(&buf, &roomier);
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn unknown_procedure_and_bad_version_are_typed_errors_not_panics() {
    for procedure in [5, 6, 0x8000_0000, u32::MAX] {
        assert_eq!(decode(&words(&[1, 1, 1, procedure])).unwrap_err(), RpcRdmaError::UnknownProcedure { procedure });
    }
    for vers in [0, 2, u32::MAX] {
        assert_eq!(decode(&words(&[1, vers])).unwrap_err(), RpcRdmaError::VersionMismatch { vers });
    }
}

/// xorshift64*: deterministic noise without a dependency.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn random_bytes_and_mutated_headers_never_panic_and_decoded_ones_round_trip() {
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    let samples: Vec<Vec<u8>> = sample_headers().iter().map(encode).collect();
    let tight = DecodeLimits { max_chunks_per_list: 2, max_segments_per_chunk: 2, max_total_segments: 3 };
    let (mut decoded, mut refused) = (0, 0);
    for i in 0..20_000 {
        let mut buf = samples[i % samples.len()].clone();
        match noise.next() % 3 {
            0 => {
                // Flip a word to a small value, where discriminators and counts live.
                let at = (noise.next() as usize % (buf.len() / 4)) * 4;
                buf[at..at + 4].copy_from_slice(&((noise.next() % 4) as u32).to_be_bytes());
            }
            1 => {
                let at = noise.next() as usize % buf.len();
                buf[at] = noise.next() as u8;
            }
            _ => {
                let len = noise.next() as usize % 96;
                buf = (0..len).map(|_| noise.next() as u8).collect();
            }
        }
        for limits in [DecodeLimits::default(), tight] {
            let Ok((h, rest)) = RdmaHeader::decode(&buf, &limits) else {
                refused += 1;
                continue;
            };
            decoded += 1;
            let mut again = encode(&h);
            again.extend_from_slice(rest);
            assert_eq!(again, buf, "decoded bytes must re-encode identically");
            assert!(h.chunks().map_or(0, ChunkLists::segment_count) <= limits.max_total_segments as usize);
        }
        let _ = peek(&buf);
    }
    assert!(decoded > 1000 && refused > 1000, "the noise must exercise both paths: {decoded} {refused}");
}
