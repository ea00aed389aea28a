//! fattr4: typed round trips, bit order, the unknown-attribute error, exact consumption, masking.

use std::borrow::Cow;

use super::{encode, Bytes};
use crate::attr::*;
use crate::*;

/// Every attribute this crate knows, with a value.
fn every_attribute() -> Fattr4<'static> {
    Fattr4 {
        supported_attrs: Some(Fattr4::known()),
        ftype: Some(NfsFtype4::Dir),
        fh_expire_type: Some(0),
        change: Some(1),
        size: Some(2),
        link_support: Some(true),
        symlink_support: Some(true),
        named_attr: Some(false),
        fsid: Some(Fsid4 { major: 3, minor: 4 }),
        unique_handles: Some(true),
        lease_time: Some(90),
        rdattr_error: Some(NfsStat4::Ok),
        aclsupport: Some(0),
        archive: Some(false),
        cansettime: Some(true),
        case_insensitive: Some(false),
        case_preserving: Some(true),
        chown_restricted: Some(true),
        filehandle: Some(NfsFh4::new(b"handle").unwrap_or_default()),
        fileid: Some(5),
        files_avail: Some(6),
        files_free: Some(7),
        files_total: Some(8),
        fs_locations: Some(FsLocations4::default()),
        hidden: Some(false),
        homogeneous: Some(true),
        maxfilesize: Some(u64::MAX),
        maxlink: Some(255),
        maxname: Some(255),
        maxread: Some(1 << 20),
        maxwrite: Some(1 << 20),
        mode: Some(0o755),
        no_trunc: Some(true),
        numlinks: Some(2),
        owner: Some(Utf8Str(b"root")),
        owner_group: Some(Utf8Str(b"wheel")),
        rawdev: Some(SpecData4 { specdata1: 0, specdata2: 0 }),
        space_avail: Some(9),
        space_free: Some(10),
        space_total: Some(11),
        space_used: Some(12),
        system: Some(false),
        time_access: Some(NfsTime4 { seconds: 1, nseconds: 2 }),
        time_access_set: Some(SetTime4::ServerTime),
        time_create: Some(NfsTime4 { seconds: 3, nseconds: 4 }),
        time_delta: Some(NfsTime4 { seconds: 0, nseconds: 1 }),
        time_metadata: Some(NfsTime4 { seconds: 5, nseconds: 6 }),
        time_modify: Some(NfsTime4 { seconds: 7, nseconds: 8 }),
        time_modify_set: Some(SetTime4::ClientTime(NfsTime4 { seconds: 9, nseconds: 10 })),
        mounted_on_fileid: Some(13),
        fs_layout_types: Some(LayoutTypes::default()),
        layout_blksize: Some(4096),
        suppattr_exclcreat: Some(Bitmap4::from_bits([4, 33])),
        clone_blksize: Some(0),
        space_freed: Some(14),
        change_attr_type: Some(ChangeAttrType4::VersionCounterNoPnfs),
        mode_umask: Some(ModeUmask4 { mode: 0o777, umask: 0o022 }),
        xattr_support: Some(false),
    }
}

#[test]
fn every_known_attribute_round_trips_through_fattr4() {
    let attrs = every_attribute();
    assert_eq!(attrs.mask(), Fattr4::known());
    let raw = attrs.to_raw();
    assert_eq!(raw.attrmask, Fattr4::known());
    let bytes = encode(&raw);
    let back: RawFattr4 = xdr::decode_exact(&bytes).expect("fattr4 decodes");
    assert_eq!(back, raw);
    assert_eq!(back.decode_attrs(), Ok(attrs));
    assert_eq!(back.decode_attrs().map(|a| a.to_raw()), Ok(raw));
}

#[test]
fn values_follow_the_bitmap_in_bit_order() {
    let attrs = Fattr4 { size: Some(0x0102), ftype: Some(NfsFtype4::Lnk), mode: Some(0o600), ..Fattr4::default() };
    // Bits 1 (type) and 4 (size) in word 0, bit 33 (mode) in word 1.
    let expected = Bytes::new().u32(2).u32(0b10010).u32(0b10).u32(16).u32(5).u64(0x0102).u32(0o600).0;
    assert_eq!(encode(&attrs.to_raw()), expected);
}

#[test]
fn an_attribute_this_crate_does_not_know_is_attrnotsupp() {
    // Bit 12 is `acl`, which this crate does not decode; bit 4 before it is fine.
    let raw = RawFattr4 { attrmask: Bitmap4::from_bits([4, 12]), attr_vals: Cow::Owned(vec![0; 12]) };
    let err = raw.decode_attrs().expect_err("acl is not known");
    assert_eq!(err, AttrError::NotSupported { bit: 12 });
    assert_eq!(err.status(), NfsErr4::AttrNotSupp);
    let far = RawFattr4 { attrmask: Bitmap4::from_bits([200]), attr_vals: Cow::Borrowed(&[]) };
    assert_eq!(far.decode_attrs(), Err(AttrError::NotSupported { bit: 200 }));
}

#[test]
fn attribute_values_must_fill_attrlist4_exactly() {
    let short = RawFattr4 { attrmask: Bitmap4::from_bits([4]), attr_vals: Cow::Borrowed(&[0; 4]) };
    let err = short.decode_attrs().expect_err("size needs 8 bytes");
    assert!(matches!(err, AttrError::Xdr(xdr::XdrError::UnexpectedEnd { .. })), "{err:?}");
    assert_eq!(err.status(), NfsErr4::BadXdr);
    let long = RawFattr4 { attrmask: Bitmap4::from_bits([4]), attr_vals: Cow::Borrowed(&[0; 12]) };
    assert_eq!(long.decode_attrs(), Err(AttrError::Xdr(xdr::XdrError::TrailingBytes { count: 4 })));
    let bad_type = RawFattr4 { attrmask: Bitmap4::from_bits([1]), attr_vals: Cow::Borrowed(&[0, 0, 0, 10]) };
    assert!(matches!(
        bad_type.decode_attrs(),
        Err(AttrError::Xdr(xdr::XdrError::BadDiscriminant { what: "nfs_ftype4", value: 10, .. }))
    ));
}

#[test]
fn a_server_answers_only_attributes_both_requested_and_present() {
    let attrs = every_attribute();
    let requested = Bitmap4::from_bits([1, 4, 12, 20, 33, 300]);
    let raw = attrs.to_raw_masked(&requested);
    assert_eq!(raw.attrmask, Bitmap4::from_bits([1, 4, 20, 33]));
    let back = raw.decode_attrs().expect("decodes");
    assert_eq!(
        back,
        Fattr4 { ftype: attrs.ftype, size: attrs.size, fileid: attrs.fileid, mode: attrs.mode, ..Fattr4::default() }
    );
    let none = Fattr4::default().to_raw_masked(&requested);
    assert_eq!(none, RawFattr4::EMPTY);
    assert_eq!(encode(&none), vec![0, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn settable_times_carry_their_how_discriminant() {
    let server = Fattr4 { time_modify_set: Some(SetTime4::ServerTime), ..Fattr4::default() };
    assert_eq!(server.to_raw().attr_vals.as_ref(), &[0, 0, 0, 0]);
    let client = Fattr4 {
        time_access_set: Some(SetTime4::ClientTime(NfsTime4 { seconds: -2, nseconds: 3 })),
        ..Fattr4::default()
    };
    let expected = Bytes::new().u32(1).u64((-2i64) as u64).u32(3).0;
    assert_eq!(client.to_raw().attr_vals.as_ref(), &expected[..]);
    let bad = RawFattr4 { attrmask: Bitmap4::from_bits([54]), attr_vals: Cow::Borrowed(&[0, 0, 0, 2]) };
    assert!(matches!(
        bad.decode_attrs(),
        Err(AttrError::Xdr(xdr::XdrError::BadDiscriminant { what: "time_how4", .. }))
    ));
}

#[test]
fn bitmaps_keep_their_wire_length_and_answer_bit_queries() {
    let b: Bitmap4 = xdr::decode_exact(&Bytes::new().u32(3).u32(1).u32(0).u32(0).0).expect("decodes");
    assert_eq!(b.words(), &[1, 0, 0]);
    assert!(b.is_set(0) && !b.is_set(1) && !b.is_set(95) && !b.is_set(1000));
    assert_eq!(encode(&b), Bytes::new().u32(3).u32(1).u32(0).u32(0).0);
    let mut m = Bitmap4::EMPTY;
    assert!(m.set(82));
    assert!(!m.set(256), "past the capacity");
    assert_eq!(m.words(), &[0, 0, 1 << 18]);
    assert_eq!(m.iter().collect::<Vec<_>>(), vec![82]);
    assert_eq!(Fattr4::known().intersect(&Bitmap4::from_bits([12, 82])), Bitmap4::from_bits([82]));
    assert_eq!(Bitmap4::from_bits([1, 2]).difference(&Bitmap4::from_bits([2])).iter().collect::<Vec<_>>(), vec![1]);
}
