//! decode(encode(v)) == v and encode(decode(bytes)) == bytes for every procedure and result arm.

use std::collections::BTreeSet;

use xdr::{XdrEncode, XdrWriter};

use super::encode;
use super::samples::{calls, replies};
use crate::*;

#[test]
fn samples_cover_every_procedure_and_both_result_arms() {
    let called: BTreeSet<u32> = calls().iter().map(|c| c.procedure()).collect();
    assert_eq!(called, (0..22).collect());
    let answered: BTreeSet<(u32, bool)> = replies().iter().map(|r| (r.procedure(), r.status().is_ok())).collect();
    let mut expected: BTreeSet<(u32, bool)> = (1..22).flat_map(|p| [(p, true), (p, false)]).collect();
    expected.insert((0, true));
    assert_eq!(answered, expected);
}

#[test]
fn every_call_round_trips_through_its_bytes() {
    for call in calls() {
        let bytes = encode(&call);
        let decoded = Nfs3Call::decode(call.procedure(), &bytes).unwrap_or_else(|e| panic!("{call:?}: {e}"));
        assert_eq!(decoded, call);
        assert_eq!(encode(&decoded), bytes, "re-encoding {} changed the bytes", call.name());
    }
}

#[test]
fn every_reply_arm_round_trips_through_its_bytes() {
    for reply in replies() {
        let bytes = encode(&reply);
        let decoded = Nfs3Reply::decode(reply.procedure(), &bytes).unwrap_or_else(|e| panic!("{reply:?}: {e}"));
        assert_eq!(decoded, reply);
        assert_eq!(encode(&decoded), bytes, "re-encoding {} changed the bytes", reply.name());
    }
}

#[test]
fn null_call_and_reply_are_empty() {
    assert!(encode(&Nfs3Call::Null).is_empty());
    assert!(encode(&Nfs3Reply::Null).is_empty());
    assert_eq!(Nfs3Call::decode(0, &[]), Ok(Nfs3Call::Null));
    assert_eq!(Nfs3Reply::decode(0, &[]), Ok(Nfs3Reply::Null));
}

#[test]
fn failure_arm_carries_its_status_word_and_decodes_to_the_same_status() {
    for reply in replies() {
        let bytes = encode(&reply);
        if reply.proc() == Nfs3Proc::Null {
            continue;
        }
        let word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        assert_eq!(word, reply.status().as_u32(), "{}", reply.name());
    }
}

#[test]
fn every_nfsstat3_value_round_trips_with_its_rfc_name() {
    assert_eq!(NfsStat3::ALL.len(), 29);
    for &s in NfsStat3::ALL {
        assert_eq!(xdr::decode_exact::<NfsStat3>(&s.to_xdr_bytes()), Ok(s));
        assert_eq!(NfsStat3::from_u32(s.as_u32()), Some(s));
        assert!(s.name().starts_with("NFS3"));
        match s.error() {
            None => assert_eq!(s, NfsStat3::Ok),
            Some(e) => {
                assert_eq!(e.status(), s);
                assert_eq!(NfsStat3::from(e), s);
                assert_eq!(e.as_u32(), s.as_u32());
                assert_eq!(e.name(), s.name());
            }
        }
    }
    assert_eq!(NfsErr3::ALL.len(), 28);
    assert_eq!(NfsErr3::from_u32(0), None, "NFS3_OK is not a failure");
    assert_eq!(NfsStat3::Jukebox.as_u32(), 10008);
    assert_eq!(NfsStat3::NameTooLong.name(), "NFS3ERR_NAMETOOLONG");
}

#[test]
fn procedure_numbers_and_names_follow_rfc_1813() {
    for (i, p) in Nfs3Proc::ALL.iter().enumerate() {
        assert_eq!(p.as_u32(), i as u32);
        assert_eq!(Nfs3Proc::from_u32(i as u32), Some(*p));
        assert_eq!(nfs3_proc_name(i as u32), p.name());
    }
    assert_eq!(Nfs3Proc::ALL.len(), 22);
    assert_eq!(nfs3_proc_name(17), "READDIRPLUS");
    assert_eq!(nfs3_proc_name(21), "COMMIT");
    assert_eq!(nfs3_proc_name(22), "UNKNOWN");
    assert_eq!(Nfs3Proc::from_u32(22), None);
    assert_eq!((NFS_PROGRAM, NFS_V3), (100003, 3));
}

#[test]
fn dispatch_names_match_the_procedure() {
    for call in calls() {
        assert_eq!(call.name(), nfs3_proc_name(call.procedure()));
        assert_eq!(call.proc().as_u32(), call.procedure());
    }
}

#[test]
fn flattened_and_gathered_encodings_agree() {
    for reply in replies() {
        let mut w = XdrWriter::new();
        reply.encode(&mut w);
        let gathered: Vec<u8> = w.slices().concat();
        assert_eq!(gathered, w.to_vec());
        assert_eq!(w.len(), gathered.len());
        assert_eq!(reply.to_xdr_bytes(), gathered);
    }
}

#[test]
fn file_handle_keeps_its_bytes_and_compares_by_them() {
    let a = FileHandle3::new(&[1, 2, 3]).unwrap_or_default();
    assert_eq!(a.as_bytes(), &[1, 2, 3]);
    assert_eq!(a.len(), 3);
    assert_ne!(a, FileHandle3::new(&[1, 2, 3, 0]).unwrap_or_default());
    assert!(FileHandle3::new(&[0; 64]).is_some());
    assert!(FileHandle3::new(&[0; 65]).is_none());
    assert!(FileHandle3::default().is_empty());
    assert_eq!(format!("{a:?}"), "FileHandle3(010203)");
}

#[test]
fn count_helpers_report_whether_count_matches_the_data() {
    let w = WriteArgs::new(FileHandle3::default(), 0, StableHow::Unstable, b"abc");
    assert_eq!(w.count, 3);
    assert!(w.count_matches_data());
    assert!(!WriteArgs { count: 4, ..w }.count_matches_data());
    let r = ReadResOk::new(None, true, b"abcd");
    assert_eq!(r.count, 4);
    assert!(r.count_matches_data());
}
