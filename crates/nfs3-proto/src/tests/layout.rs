//! Hand-assembled messages checked byte for byte against the RFC's XDR, and the no-copy guarantees.

use xdr::{XdrEncode, XdrWriter};

use super::{encode, Bytes};
use crate::*;

#[test]
fn lookup3args_is_handle_then_name_with_padding() {
    // RFC 1813 §3.3.3: LOOKUP3args { diropargs3 what { nfs_fh3 dir; filename3 name; } }.
    let bytes = Bytes::new().u32(4).raw(&[1, 2, 3, 4]).u32(3).raw(b"foo\0").0;
    assert_eq!(bytes.len(), 16);
    let call = Nfs3Call::decode(3, &bytes).expect("valid LOOKUP3args");
    let Nfs3Call::Lookup(args) = &call else { panic!("not LOOKUP: {call:?}") };
    assert_eq!(args.what.dir.as_bytes(), &[1, 2, 3, 4]);
    assert_eq!(args.what.name, b"foo");
    assert_eq!(args.what.name.as_ptr(), bytes[12..].as_ptr(), "name must borrow from the input");
    assert_eq!(encode(&call), bytes);
}

#[test]
fn write3args_with_five_byte_payload_is_padded_to_eight_and_never_copied() {
    // RFC 1813 §3.3.7: WRITE3args { nfs_fh3 file; offset3 offset; count3 count; stable_how stable; opaque data<>; }.
    let handle = [0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18];
    let expected = Bytes::new().u32(8).raw(&handle).u64(1 << 32).u32(5).u32(2).u32(5).raw(b"hello").raw(&[0, 0, 0]).0;
    assert_eq!(expected.len(), 40);

    let data = b"hello".to_vec();
    let file = FileHandle3::new(&handle).expect("8-byte handle");
    let args = Nfs3Call::Write(WriteArgs::new(file, 1 << 32, StableHow::FileSync, &data));
    let mut w = XdrWriter::new();
    args.encode(&mut w);
    assert_eq!(w.inline_bytes().len(), 32, "everything but the payload and its padding is inline");
    let payload = w.payloads()[0];
    assert_eq!(payload.data.as_ptr(), data.as_ptr(), "WRITE data must not be copied on encode");
    assert_eq!(payload.position, 32);
    assert_eq!(payload.padding(), 3);
    assert_eq!(w.to_vec(), expected);

    let decoded = Nfs3Call::decode(7, &expected).expect("valid WRITE3args");
    let Nfs3Call::Write(dw) = decoded else { panic!("not WRITE") };
    assert_eq!(dw.data, b"hello");
    assert_eq!(dw.data.as_ptr(), expected[32..].as_ptr(), "WRITE data must borrow from the input");
    assert_eq!((dw.offset, dw.count, dw.stable), (1 << 32, 5, StableHow::FileSync));
}

#[test]
fn read3resok_data_points_into_the_input_and_is_re_encoded_as_that_same_payload() {
    // RFC 1813 §3.3.6: status, post_op_attr (FALSE), count, eof, opaque data<>.
    let bytes = Bytes::new().u32(0).u32(0).u32(4).u32(1).u32(4).raw(b"abcd").0;
    let reply = Nfs3Reply::decode(6, &bytes).expect("valid READ3res");
    let Nfs3Reply::Read(Nfs3Result::Ok(ok)) = &reply else { panic!("not READ ok: {reply:?}") };
    assert_eq!((ok.count, ok.eof, ok.data), (4, true, &b"abcd"[..]));
    assert_eq!(ok.data.as_ptr(), bytes[20..].as_ptr(), "READ data must borrow from the input on decode");

    let mut w = XdrWriter::new();
    reply.encode(&mut w);
    assert_eq!(w.payloads().len(), 1);
    assert_eq!(w.payloads()[0].data.as_ptr(), bytes[20..].as_ptr(), "READ data must not be copied on encode");
    assert_eq!(w.payloads()[0].position, 20);
    assert_eq!(w.inline_bytes(), &bytes[..20]);
    assert_eq!(w.to_vec(), bytes);
}

#[test]
fn getattr_reply_is_status_then_84_bytes_of_fattr3() {
    // RFC 1813 §2.6 fattr3: type, mode, nlink, uid, gid, size, used, rdev, fsid, fileid, atime, mtime, ctime.
    let bytes = Bytes::new()
        .u32(0)
        .u32(2)
        .u32(0o40755)
        .u32(3)
        .u32(1000)
        .u32(100)
        .u64(4096)
        .u64(8192)
        .u32(0)
        .u32(0)
        .u64(0x0102_0304_0506_0708)
        .u64(77)
        .u32(10)
        .u32(11)
        .u32(20)
        .u32(21)
        .u32(30)
        .u32(31)
        .0;
    assert_eq!(bytes.len(), 4 + 84);
    let reply = Nfs3Reply::decode(1, &bytes).expect("valid GETATTR3res");
    let Nfs3Reply::Getattr(Nfs3Result::Ok(GetattrResOk { obj_attributes: a })) = &reply else { panic!("{reply:?}") };
    assert_eq!((a.ftype, a.mode, a.nlink, a.uid, a.gid), (Ftype3::Dir, 0o40755, 3, 1000, 100));
    assert_eq!((a.size, a.used, a.fsid, a.fileid), (4096, 8192, 0x0102_0304_0506_0708, 77));
    assert_eq!(a.rdev, SpecData3::default());
    assert_eq!((a.atime.seconds, a.atime.nseconds, a.ctime.nseconds), (10, 11, 31));
    assert_eq!(encode(&reply), bytes);
}

#[test]
fn readdir_reply_entries_are_a_linked_list_ended_by_false_then_eof() {
    // RFC 1813 §3.3.16: dirlist3 { entry3 *entries; bool eof; }, entry3 { fileid, name, cookie, *nextentry }.
    let bytes = Bytes::new()
        .u32(0)
        .u32(0)
        .raw(&[7; 8])
        .u32(1)
        .u64(100)
        .opaque(b".")
        .u64(1)
        .u32(1)
        .u64(101)
        .opaque(b"..")
        .u64(2)
        .u32(0)
        .u32(1)
        .0;
    let reply = Nfs3Reply::decode(16, &bytes).expect("valid READDIR3res");
    let Nfs3Reply::Readdir(Nfs3Result::Ok(ok)) = &reply else { panic!("{reply:?}") };
    assert_eq!(ok.cookieverf, CookieVerf3([7; 8]));
    assert_eq!(
        ok.reply.entries,
        vec![Entry3 { fileid: 100, name: b".", cookie: 1 }, Entry3 { fileid: 101, name: b"..", cookie: 2 }]
    );
    assert!(ok.reply.eof);
    assert_eq!(encode(&reply), bytes);
}

#[test]
fn setattr_args_put_each_set_discriminant_before_its_value() {
    // RFC 1813 §2.6 sattr3 and §3.3.2 sattrguard3.
    let bytes = Bytes::new()
        .u32(1)
        .raw(&[9, 0, 0, 0])
        .u32(1)
        .u32(0o600) // mode set
        .u32(0) // uid unchanged
        .u32(0) // gid unchanged
        .u32(1)
        .u64(0) // truncate
        .u32(1) // atime: SET_TO_SERVER_TIME
        .u32(2)
        .u32(5)
        .u32(6) // mtime: SET_TO_CLIENT_TIME {5, 6}
        .u32(1)
        .u32(7)
        .u32(8) // guard: ctime {7, 8}
        .0;
    let call = Nfs3Call::decode(2, &bytes).expect("valid SETATTR3args");
    let expected = SetattrArgs {
        object: FileHandle3::new(&[9]).expect("1-byte handle"),
        new_attributes: Sattr3 {
            mode: Some(0o600),
            uid: None,
            gid: None,
            size: Some(0),
            atime: SetTime3::SetToServerTime,
            mtime: SetTime3::SetToClientTime(NfsTime3 { seconds: 5, nseconds: 6 }),
        },
        guard: Some(NfsTime3 { seconds: 7, nseconds: 8 }),
    };
    assert_eq!(call, Nfs3Call::Setattr(expected));
    assert_eq!(encode(&call), bytes);
}

#[test]
fn exclusive_create_carries_the_verifier_instead_of_attributes() {
    // RFC 1813 §3.3.8: createhow3 switch (createmode3) { EXCLUSIVE: createverf3 verf; }.
    let bytes = Bytes::new().u32(0).opaque(b"x").u32(2).raw(&[1, 2, 3, 4, 5, 6, 7, 8]).0;
    let call = Nfs3Call::decode(8, &bytes).expect("valid CREATE3args");
    let Nfs3Call::Create(args) = &call else { panic!("{call:?}") };
    assert_eq!(args.how, CreateHow3::Exclusive(CreateVerf3([1, 2, 3, 4, 5, 6, 7, 8])));
    assert_eq!(args.how.mode(), CreateMode3::Exclusive);
    assert!(args.where_.dir.is_empty());
    assert_eq!(encode(&call), bytes);
}

#[test]
fn symlink_and_readlink_paths_are_recorded_as_payloads_for_direct_placement() {
    let target = b"../target".to_vec();
    let args = SymlinkArgs {
        where_: DirOpArgs3 { dir: FileHandle3::default(), name: b"l" },
        symlink: SymlinkData3 { symlink_attributes: Sattr3::default(), symlink_data: &target },
    };
    let mut w = XdrWriter::new();
    args.encode(&mut w);
    assert_eq!(w.payloads()[0].data.as_ptr(), target.as_ptr());
    let res: ReadlinkRes = Nfs3Result::Ok(ReadlinkResOk { symlink_attributes: None, data: &target });
    let mut w = XdrWriter::new();
    res.encode(&mut w);
    assert_eq!(w.payloads()[0].data.as_ptr(), target.as_ptr());
    assert_eq!(w.payloads()[0].position, 12);
}

#[test]
fn mknod_of_a_regular_file_is_a_valid_union_arm_with_no_body() {
    // RFC 1813 §3.3.11: mknoddata3 `default: void` covers NF3REG, NF3DIR, NF3LNK.
    let bytes = Bytes::new().u32(0).opaque(b"r").u32(1).0;
    let call = Nfs3Call::decode(11, &bytes).expect("valid MKNOD3args");
    assert_eq!(
        call,
        Nfs3Call::Mknod(MknodArgs {
            where_: DirOpArgs3 { dir: FileHandle3::default(), name: b"r" },
            what: MknodData3::Reg
        })
    );
    assert_eq!(encode(&call), bytes);
}
