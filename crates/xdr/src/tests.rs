use super::*;

#[test]
fn primitives_round_trip_big_endian() {
    let mut w = XdrWriter::new();
    w.put_u32(0x0102_0304);
    w.put_i32(-2);
    w.put_u64(0x0102_0304_0506_0708);
    w.put_i64(-3);
    w.put_bool(true);
    let bytes = w.to_vec();
    assert_eq!(&bytes[..4], &[1, 2, 3, 4]);
    let mut r = XdrReader::new(&bytes);
    assert_eq!(r.get_u32().unwrap(), 0x0102_0304);
    assert_eq!(r.get_i32().unwrap(), -2);
    assert_eq!(r.get_u64().unwrap(), 0x0102_0304_0506_0708);
    assert_eq!(r.get_i64().unwrap(), -3);
    assert!(r.get_bool().unwrap());
    r.finish().unwrap();
}

#[test]
fn opaque_is_padded_to_four_bytes_and_borrowed() {
    let mut w = XdrWriter::new();
    w.put_opaque(b"hello");
    let bytes = w.to_vec();
    assert_eq!(bytes, [0, 0, 0, 5, b'h', b'e', b'l', b'l', b'o', 0, 0, 0]);
    let mut r = XdrReader::new(&bytes);
    let s = r.get_opaque("name", 255).unwrap();
    assert_eq!(s, b"hello");
    assert_eq!(s.as_ptr(), bytes[4..].as_ptr(), "opaque must borrow from the input");
    r.finish().unwrap();
}

#[test]
fn rejects_four_gib_length_prefix_in_sixteen_byte_buffer_without_allocating() {
    let mut buf = [0u8; 16];
    buf[..4].copy_from_slice(&u32::MAX.to_be_bytes());
    let mut r = XdrReader::new(&buf);
    assert!(matches!(r.get_opaque("data", u32::MAX), Err(XdrError::UnexpectedEnd { needed: 4_294_967_295, .. })));
    // An array count is checked against the bytes present before the caller reserves for it: were it not,
    // `Vec::with_capacity(u32::MAX * 8)` would abort the process here.
    let mut r = XdrReader::new(&buf);
    let res = r.get_vec("entries", u32::MAX, 8, |r| r.get_u64());
    assert!(matches!(res, Err(XdrError::UnexpectedEnd { .. })), "{res:?}");
}

#[test]
fn rejects_length_over_declared_maximum() {
    let mut w = XdrWriter::new();
    w.put_opaque(&[7; 65]);
    let bytes = w.to_vec();
    let err = XdrReader::new(&bytes).get_opaque("nfs_fh3", 64).unwrap_err();
    assert_eq!(err, XdrError::LengthOverLimit { what: "nfs_fh3", len: 65, max: 64, offset: 0 });
}

#[test]
fn rejects_truncated_padding() {
    let bytes = [0, 0, 0, 1, 9];
    assert!(matches!(XdrReader::new(&bytes).get_opaque("x", 10), Err(XdrError::UnexpectedEnd { .. })));
}

#[test]
fn rejects_bool_other_than_zero_or_one() {
    let err = XdrReader::new(&[0, 0, 0, 2]).get_bool().unwrap_err();
    assert!(matches!(err, XdrError::BadDiscriminant { what: "bool", value: 2, offset: 0 }));
}

#[test]
fn decode_exact_rejects_trailing_bytes() {
    assert_eq!(decode_exact::<u32>(&[0, 0, 0, 1, 0]).unwrap_err(), XdrError::TrailingBytes { count: 1 });
    assert_eq!(decode_exact::<u32>(&[0, 0, 0, 1]).unwrap(), 1);
}

#[test]
fn optional_data_round_trips() {
    for v in [None, Some(42u64)] {
        let bytes = v.to_xdr_bytes();
        assert_eq!(decode_exact::<Option<u64>>(&bytes).unwrap(), v);
    }
}

#[test]
fn payload_is_recorded_at_its_xdr_position_not_copied() {
    let data = vec![0xAB; 4097];
    let mut w = XdrWriter::new();
    w.put_u32(1);
    w.put_payload(&data);
    w.put_u32(2);
    assert_eq!(w.len(), 4 + 4 + 4097 + 3 + 4);
    assert_eq!(w.inline_bytes().len(), 12);
    let p = w.payloads()[0];
    assert_eq!(p.position, 8);
    assert_eq!(p.data.as_ptr(), data.as_ptr(), "payload must not be copied");
    let slices = w.slices();
    assert_eq!(slices.len(), 4);
    assert_eq!(slices[1].as_ptr(), data.as_ptr());
    let flat = w.to_vec();
    let mut r = XdrReader::new(&flat);
    assert_eq!(r.get_u32().unwrap(), 1);
    assert_eq!(r.get_opaque("data", u32::MAX).unwrap(), &data[..]);
    assert_eq!(r.get_u32().unwrap(), 2);
    r.finish().unwrap();
}

#[test]
fn list_of_entries_ends_at_false() {
    let mut w = XdrWriter::new();
    for v in [5u32, 6] {
        w.put_bool(true);
        w.put_u32(v);
    }
    w.put_bool(false);
    let bytes = w.to_vec();
    let mut r = XdrReader::new(&bytes);
    assert_eq!(r.get_list(|r| r.get_u32()).unwrap(), vec![5, 6]);
    r.finish().unwrap();
}
