//! MOUNT v3: round trips, RFC layouts and limits.

use xdr::XdrError;

use super::samples::{mount_calls, mount_replies};
use super::{encode, Bytes};
use crate::mount::*;
use crate::FileHandle3;

#[test]
fn every_mount_call_and_reply_round_trips_through_its_bytes() {
    for call in mount_calls() {
        let bytes = encode(&call);
        assert_eq!(MountCall::decode(call.procedure(), &bytes), Ok(call.clone()));
    }
    for reply in mount_replies() {
        let bytes = encode(&reply);
        let decoded = MountReply::decode(reply.procedure(), &bytes).expect("valid reply");
        assert_eq!(decoded, reply);
        assert_eq!(encode(&decoded), bytes);
    }
}

#[test]
fn mount_procedures_and_statuses_follow_rfc_1813_appendix_i() {
    assert_eq!((MOUNT_PROGRAM, MOUNT_V3), (100005, 3));
    assert_eq!(MountProc::ALL.len(), 6);
    for (i, p) in MountProc::ALL.iter().enumerate() {
        assert_eq!(p.as_u32(), i as u32);
        assert_eq!(mount_proc_name(i as u32), p.name());
    }
    assert_eq!(mount_proc_name(1), "MNT");
    assert_eq!(mount_proc_name(5), "EXPORT");
    assert_eq!(mount_proc_name(6), "UNKNOWN");
    let values: Vec<u32> = MountStat3::ALL.iter().map(|s| s.as_u32()).collect();
    assert_eq!(values, [0, 1, 2, 5, 13, 20, 22, 63, 10004, 10006]);
    assert_eq!(MountStat3::ServerFault.name(), "MNT3ERR_SERVERFAULT");
    assert_eq!(MountErr3::from_u32(0), None);
    assert_eq!(MountErr3::Acces.status(), MountStat3::Acces);
}

#[test]
fn mnt_call_is_a_bare_dirpath() {
    let bytes = Bytes::new().opaque(b"/export").0;
    let call = MountCall::decode(1, &bytes).expect("valid MNT args");
    assert_eq!(call, MountCall::Mnt(DirPath(b"/export")));
    let MountCall::Mnt(DirPath(path)) = call else { panic!() };
    assert_eq!(path.as_ptr(), bytes[4..].as_ptr(), "dirpath must borrow from the input");
}

#[test]
fn mnt_reply_is_status_handle_and_flavor_array() {
    // RFC 1813 §5.2.1: mountres3_ok { fhandle3 fhandle; int auth_flavors<>; }.
    let bytes = Bytes::new().u32(0).opaque(&[5; 6]).u32(2).u32(1).u32(390004).0;
    let reply = MountReply::decode(1, &bytes).expect("valid mountres3");
    let expected = MountRes3Ok { fhandle: FileHandle3::new(&[5; 6]).expect("6 bytes"), auth_flavors: vec![1, 390004] };
    assert_eq!(reply, MountReply::Mnt(MountRes3::Ok(expected)));
    assert_eq!(encode(&reply), bytes);
    let fail = Bytes::new().u32(13).0;
    assert_eq!(MountReply::decode(1, &fail), Ok(MountReply::Mnt(MountRes3::Fail(MountErr3::Acces))));
}

#[test]
fn export_reply_nests_group_lists_inside_the_export_list() {
    // RFC 1813 §5.2.5: exportnode { dirpath ex_dir; groups ex_groups; exports ex_next; }.
    let bytes = Bytes::new().u32(1).opaque(b"/e").u32(1).opaque(b"g1").u32(1).opaque(b"g2").u32(0).u32(0).0;
    let reply = MountReply::decode(5, &bytes).expect("valid exports");
    let expected =
        Exports(vec![ExportNode { ex_dir: DirPath(b"/e"), ex_groups: vec![MntName(b"g1"), MntName(b"g2")] }]);
    assert_eq!(reply, MountReply::Export(expected));
    assert_eq!(encode(&reply), bytes);
}

#[test]
fn rejects_dirpath_longer_than_mntpathlen() {
    assert!(MountCall::decode(1, &Bytes::new().opaque(&[b'a'; 1024]).0).is_ok());
    let bytes = Bytes::new().opaque(&[b'a'; 1025]).0;
    let err = MountCall::decode(3, &bytes);
    assert_eq!(
        err,
        Err(crate::DecodeError::Xdr(XdrError::LengthOverLimit { what: "dirpath", len: 1025, max: 1024, offset: 0 }))
    );
}

#[test]
fn rejects_name_longer_than_mntnamlen() {
    let bytes = Bytes::new().u32(1).opaque(&[b'h'; 256]).opaque(b"/").u32(0).0;
    let err = MountReply::decode(2, &bytes);
    assert!(matches!(err, Err(crate::DecodeError::Xdr(XdrError::LengthOverLimit { what: "name", len: 256, .. }))));
}

#[test]
fn rejects_fhandle3_longer_than_64_bytes_and_bad_mountstat3() {
    let bytes = Bytes::new().u32(0).opaque(&[0; 65]).u32(0).0;
    let err = MountReply::decode(1, &bytes);
    assert!(matches!(err, Err(crate::DecodeError::Xdr(XdrError::LengthOverLimit { what: "fhandle3", len: 65, .. }))));
    let bytes = Bytes::new().u32(3).0;
    let err = MountReply::decode(1, &bytes);
    assert!(matches!(
        err,
        Err(crate::DecodeError::Xdr(XdrError::BadDiscriminant { what: "mountstat3", value: 3, .. }))
    ));
}

#[test]
fn rejects_auth_flavor_count_the_buffer_cannot_hold() {
    let bytes = Bytes::new().u32(0).opaque(&[1; 4]).u32(u32::MAX).u32(1).0;
    let err = MountReply::decode(1, &bytes);
    assert!(matches!(err, Err(crate::DecodeError::Xdr(XdrError::UnexpectedEnd { .. }))), "{err:?}");
}
