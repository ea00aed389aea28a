//! Hostile and malformed input: every decoder rejects it with a typed error and never panics.

use xdr::XdrError;

use super::samples::{calls, mount_calls, mount_replies, replies};
use super::{encode, Bytes};
use crate::mount::{MountCall, MountReply};
use crate::*;

fn xdr_err(r: Result<impl std::fmt::Debug, DecodeError>) -> XdrError {
    match r {
        Err(DecodeError::Xdr(e)) => e,
        other => panic!("expected an XDR error, got {other:?}"),
    }
}

fn fattr3_words(ftype: u32) -> Bytes {
    Bytes::new().u32(ftype).u32(0o644).u32(1).u32(0).u32(0).u64(1).u64(1).u32(0).u32(0).u64(1).u64(2).raw(&[0; 24])
}

#[test]
fn rejects_file_handle_longer_than_64_bytes() {
    let bytes = Bytes::new().opaque(&[0xab; 65]).0;
    let err = xdr_err(Nfs3Call::decode(1, &bytes));
    assert_eq!(err, XdrError::LengthOverLimit { what: "nfs_fh3", len: 65, max: 64, offset: 0 });
}

#[test]
fn accepts_file_handle_of_exactly_64_bytes() {
    let bytes = Bytes::new().opaque(&[0xab; 64]).0;
    let call = Nfs3Call::decode(1, &bytes).expect("64-byte handle is legal");
    assert_eq!(call, Nfs3Call::Getattr(GetattrArgs { object: FileHandle3::new(&[0xab; 64]).expect("64 bytes") }));
}

#[test]
fn rejects_truncated_fattr3() {
    let mut bytes = Bytes::new().u32(0).raw(&fattr3_words(1).0).0;
    assert_eq!(bytes.len(), 88);
    assert!(Nfs3Reply::decode(1, &bytes).is_ok());
    bytes.truncate(84);
    assert!(matches!(
        xdr_err(Nfs3Reply::decode(1, &bytes)),
        XdrError::UnexpectedEnd { offset: 84, needed: 4, remaining: 0 }
    ));
}

#[test]
fn rejects_ftype3_outside_the_rfc_values() {
    for bad in [0, 8, u32::MAX] {
        let bytes = Bytes::new().u32(0).raw(&fattr3_words(bad).0).0;
        let err = xdr_err(Nfs3Reply::decode(1, &bytes));
        assert_eq!(err, XdrError::BadDiscriminant { what: "ftype3", value: bad, offset: 4 });
    }
}

#[test]
fn rejects_nfsstat3_value_the_rfc_does_not_define() {
    for bad in [3, 4, 10000, 10009, u32::MAX] {
        let bytes = Bytes::new().u32(bad).0;
        let err = xdr_err(Nfs3Reply::decode(1, &bytes));
        assert_eq!(err, XdrError::BadDiscriminant { what: "nfsstat3", value: bad, offset: 0 });
    }
}

#[test]
fn rejects_stable_how_beyond_file_sync() {
    let bytes = Bytes::new().opaque(&[1; 8]).u64(0).u32(1).u32(3).opaque(b"x").0;
    let err = xdr_err(Nfs3Call::decode(7, &bytes));
    assert_eq!(err, XdrError::BadDiscriminant { what: "stable_how", value: 3, offset: 24 });
    let reply = Bytes::new().u32(0).u32(0).u32(0).u32(1).u32(7).raw(&[0; 8]).0;
    assert!(matches!(xdr_err(Nfs3Reply::decode(7, &reply)), XdrError::BadDiscriminant { what: "stable_how", .. }));
}

#[test]
fn rejects_other_bad_union_discriminants_by_name() {
    // post_op_attr's bool, time_how, createmode3, mknoddata3's ftype3.
    let attr_follows_two = Bytes::new().u32(0).u32(2).0;
    assert!(matches!(
        xdr_err(Nfs3Reply::decode(4, &attr_follows_two)),
        XdrError::BadDiscriminant { what: "bool", value: 2, .. }
    ));
    let bad_time = Bytes::new().u32(0).u32(0).u32(0).u32(0).u32(0).u32(3).u32(0).u32(0).0;
    assert!(matches!(
        xdr_err(Nfs3Call::decode(2, &bad_time)),
        XdrError::BadDiscriminant { what: "time_how", value: 3, .. }
    ));
    let bad_mode = Bytes::new().u32(0).opaque(b"f").u32(3).0;
    assert!(matches!(xdr_err(Nfs3Call::decode(8, &bad_mode)), XdrError::BadDiscriminant { what: "createmode3", .. }));
    let bad_node = Bytes::new().u32(0).opaque(b"n").u32(0).0;
    assert!(matches!(
        xdr_err(Nfs3Call::decode(11, &bad_node)),
        XdrError::BadDiscriminant { what: "ftype3", value: 0, .. }
    ));
}

#[test]
fn rejects_trailing_bytes_after_a_complete_body() {
    let mut call = Bytes::new().u32(4).raw(&[1, 2, 3, 4]).opaque(b"foo").0;
    call.extend_from_slice(&[0; 4]);
    assert_eq!(xdr_err(Nfs3Call::decode(3, &call)), XdrError::TrailingBytes { count: 4 });
    assert_eq!(xdr_err(Nfs3Call::decode(0, &[0])), XdrError::TrailingBytes { count: 1 });
    let reply = Bytes::new().u32(NfsStat3::Stale.as_u32()).u32(0).0;
    assert_eq!(xdr_err(Nfs3Reply::decode(1, &reply)), XdrError::TrailingBytes { count: 4 });
}

#[test]
fn reports_an_undefined_procedure_apart_from_malformed_bodies() {
    assert_eq!(Nfs3Call::decode(22, &[]), Err(DecodeError::UnknownProcedure(22)));
    assert_eq!(Nfs3Reply::decode(u32::MAX, &[]), Err(DecodeError::UnknownProcedure(u32::MAX)));
    assert_eq!(MountCall::decode(6, &[]), Err(DecodeError::UnknownProcedure(6)));
    assert_eq!(MountReply::decode(6, &[]), Err(DecodeError::UnknownProcedure(6)));
}

#[test]
fn rejects_readdir_reply_claiming_a_huge_name_in_a_short_buffer() {
    let bytes = Bytes::new().u32(0).u32(0).raw(&[0; 8]).u32(1).u64(5).u32(0xFFFF_FFF0).raw(b"ab\0\0").0;
    let err = xdr_err(Nfs3Reply::decode(16, &bytes));
    assert!(matches!(err, XdrError::UnexpectedEnd { needed: 0xFFFF_FFF0, remaining: 4, .. }), "{err:?}");
    let plus = Bytes::new().u32(0).u32(0).raw(&[0; 8]).u32(1).u64(5).u32(u32::MAX).0;
    assert!(matches!(xdr_err(Nfs3Reply::decode(17, &plus)), XdrError::UnexpectedEnd { .. }));
}

#[test]
fn rejects_read_reply_claiming_four_gib_of_data_in_a_short_buffer() {
    let bytes = Bytes::new().u32(0).u32(0).u32(u32::MAX).u32(1).u32(u32::MAX).raw(b"tiny").0;
    assert!(matches!(xdr_err(Nfs3Reply::decode(6, &bytes)), XdrError::UnexpectedEnd { needed: 4_294_967_295, .. }));
}

#[test]
fn rejects_unterminated_directory_list() {
    let bytes = Bytes::new().u32(0).u32(0).raw(&[0; 8]).u32(1).u64(5).opaque(b"a").u64(1).0;
    assert!(matches!(xdr_err(Nfs3Reply::decode(16, &bytes)), XdrError::UnexpectedEnd { .. }));
}

/// Every strict prefix of a valid message must fail cleanly: the encodings are self-delimiting.
/// `decode` returns the decoded value's debug text, or `None` on error.
fn assert_every_truncation_fails(bytes: &[u8], decode: impl Fn(&[u8]) -> Option<String>) {
    for len in 0..bytes.len() {
        let res = decode(&bytes[..len]);
        assert!(res.is_none(), "prefix of {len}/{} bytes decoded: {res:?}", bytes.len());
    }
    assert!(decode(bytes).is_some());
}

#[test]
fn decoding_never_panics_over_all_truncations_of_valid_messages() {
    for call in calls() {
        assert_every_truncation_fails(&encode(&call), |b| {
            Nfs3Call::decode(call.procedure(), b).ok().map(|v| format!("{v:?}"))
        });
    }
    for reply in replies() {
        assert_every_truncation_fails(&encode(&reply), |b| {
            Nfs3Reply::decode(reply.procedure(), b).ok().map(|v| format!("{v:?}"))
        });
    }
    for call in mount_calls() {
        assert_every_truncation_fails(&encode(&call), |b| {
            MountCall::decode(call.procedure(), b).ok().map(|v| format!("{v:?}"))
        });
    }
    for reply in mount_replies() {
        assert_every_truncation_fails(&encode(&reply), |b| {
            MountReply::decode(reply.procedure(), b).ok().map(|v| format!("{v:?}"))
        });
    }
}

/// xorshift64: a fixed-seed generator so the corruption test is reproducible without dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn decoding_never_panics_on_corrupted_messages_and_what_decodes_round_trips() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let check_call = |bytes: &[u8], proc: u32| {
        if let Ok(v) = Nfs3Call::decode(proc, bytes) {
            assert_eq!(Nfs3Call::decode(proc, &encode(&v)), Ok(v));
        }
    };
    let check_reply = |bytes: &[u8], proc: u32| {
        if let Ok(v) = Nfs3Reply::decode(proc, bytes) {
            assert_eq!(Nfs3Reply::decode(proc, &encode(&v)), Ok(v));
        }
    };
    let originals: Vec<(bool, u32, Vec<u8>)> = calls()
        .iter()
        .map(|c| (true, c.procedure(), encode(c)))
        .chain(replies().iter().map(|r| (false, r.procedure(), encode(r))))
        .collect();
    for (is_call, proc, original) in &originals {
        if original.is_empty() {
            continue;
        }
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.next() % 3 {
                let at = (rng.next() % bytes.len() as u64) as usize;
                bytes[at] = match rng.next() % 4 {
                    0 => 0xff,
                    1 => 0,
                    2 => bytes[at].wrapping_add(1),
                    _ => rng.next() as u8,
                };
            }
            // Also try the corrupted message under a different procedure's decoder.
            let other = (rng.next() % 22) as u32;
            if *is_call {
                check_call(&bytes, *proc);
                check_call(&bytes, other);
            } else {
                check_reply(&bytes, *proc);
                check_reply(&bytes, other);
            }
        }
    }
}
