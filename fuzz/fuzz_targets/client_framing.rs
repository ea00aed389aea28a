#![no_main]
//! The NFS client's receive framing (`nfs_client::tcp::RecordSplitter`) on a hostile stream.
//!
//! Input: a byte `n`, a limits byte, then `n % 16` chunk sizes (one byte each, 0 read as 1), then the
//! record-marked stream. The stream is appended to a `BytesMut` in chunks of those sizes (cycling; no
//! sizes: all at once), as socket reads would, and `next()` is called after each until `None` or
//! `Err`. The limits byte gives `max_record = 64 KiB >> (b & 7)` and `max_fragments = 1 + (b >> 3)`.
//!
//! Checked: the bytes of the records returned plus those left in the buffer never exceed the bytes
//! fed; no record exceeds `max_record`; between reads `wanted()` is at least 1 and at most
//! `max_record + 4` (the reader reserves that much); and the records, the error and the end state
//! agree with `onc_rpc::RecordDecoder` (the server's decoder) fed the same chunks.
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use nfs_client::tcp::RecordSplitter;
use onc_rpc::{RecordDecoder, RecordLimits};

fuzz_target!(|data: &[u8]| {
    let [n, limits_byte, rest @ ..] = data else { return };
    let n = usize::from(n % 16);
    if rest.len() < n {
        return;
    }
    let (sizes, stream) = rest.split_at(n);
    let limits =
        RecordLimits { max_record: (64 << 10) >> (limits_byte & 7), max_fragments: 1 + usize::from(limits_byte >> 3) };
    let sizes: Vec<usize> = if sizes.is_empty() {
        vec![stream.len().max(1)]
    } else {
        sizes.iter().map(|&s| usize::from(s).max(1)).collect()
    };

    let mut splitter = RecordSplitter::new(limits);
    let mut oracle = RecordDecoder::new(limits);
    let mut buf = BytesMut::new();
    let (mut fed, mut out_bytes) = (0usize, 0usize);
    let mut records = Vec::new();
    let mut failed = None;
    let mut oracle_failed = false;
    let mut at = 0;
    for size in sizes.iter().cycle() {
        if at >= stream.len() {
            break;
        }
        let piece = &stream[at..(at + size).min(stream.len())];
        at += piece.len();
        buf.extend_from_slice(piece);
        fed += piece.len();
        oracle_failed |= oracle.push(piece).is_err();
        loop {
            match splitter.next(&mut buf) {
                Ok(Some(record)) => {
                    assert!(record.len() <= limits.max_record, "record of {} > {:?}", record.len(), limits);
                    out_bytes += record.len();
                    records.push(record);
                }
                Ok(None) => break,
                Err(e) => {
                    let _ = e.to_string();
                    failed = Some(e);
                    break;
                }
            }
        }
        assert!(out_bytes + buf.len() <= fed, "{out_bytes} record bytes + {} buffered > {fed} fed", buf.len());
        if failed.is_some() {
            break;
        }
        let wanted = splitter.wanted(&buf);
        assert!(wanted >= 1 && wanted <= limits.max_record + 4, "wanted {wanted} with {limits:?}");
    }
    assert_eq!(failed.is_some(), oracle_failed, "splitter {failed:?}, RecordDecoder failed: {oracle_failed}");
    let mut expected = Vec::new();
    while let Some(r) = oracle.pop() {
        expected.push(r);
    }
    assert_eq!(records.len(), expected.len(), "record count differs from RecordDecoder");
    for (got, want) in records.iter().zip(&expected) {
        assert_eq!(&got[..], &want[..], "record differs from RecordDecoder");
    }
    if failed.is_none() {
        assert_eq!(splitter.at_boundary(&buf), oracle.is_at_record_boundary(), "end state differs");
    }
});
