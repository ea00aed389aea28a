use xdr::XdrWriter;

use crate::*;

fn limits(max_record: usize, max_fragments: usize) -> RecordLimits {
    RecordLimits { max_record, max_fragments }
}

fn sample_records() -> Vec<Vec<u8>> {
    vec![b"first record".to_vec(), Vec::new(), (0..=255u8).cycle().take(3000).collect(), vec![7; 5]]
}

fn drain(decoder: &mut RecordDecoder) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| decoder.pop()).collect()
}

#[test]
fn record_marker_sets_the_last_fragment_bit_above_a_31_bit_length() {
    assert_eq!(record_marker(2049, true), [0x80, 0x00, 0x08, 0x01]);
    assert_eq!(record_marker(2049, false), [0x00, 0x00, 0x08, 0x01]);
    assert_eq!(record_marker(MAX_FRAGMENT_LEN, true), [0xff; 4]);
    assert_eq!(record_marker(0, true), [0x80, 0, 0, 0]);
}

#[test]
fn decoder_fed_one_byte_at_a_time_yields_every_record() {
    let records = sample_records();
    let stream: Vec<u8> = records.iter().enumerate().flat_map(|(i, r)| frame_record(r, 1 + i * 100)).collect();
    let mut decoder = RecordDecoder::new(RecordLimits::default());
    let mut out = Vec::new();
    for byte in &stream {
        decoder.push(std::slice::from_ref(byte)).unwrap();
        out.extend(drain(&mut decoder));
    }
    assert_eq!(out, records);
    assert!(decoder.is_at_record_boundary());
    decoder.finish().unwrap();
}

#[test]
fn decoder_reassembles_multi_fragment_records_pushed_in_any_split() {
    let records = sample_records();
    let stream: Vec<u8> = records.iter().flat_map(|r| frame_record(r, 7)).collect();
    for chunk in [2, 3, 5, 11, 64, 1000, stream.len()] {
        let mut decoder = RecordDecoder::new(RecordLimits::default());
        let mut out = Vec::new();
        for piece in stream.chunks(chunk) {
            decoder.push(piece).unwrap();
            out.extend(drain(&mut decoder));
        }
        assert_eq!(out, records, "chunk size {chunk}");
    }
    assert_eq!(split_records(&stream, RecordLimits::default()).unwrap(), records);
}

#[test]
fn decoder_queues_several_records_from_one_push() {
    let stream: Vec<u8> = [frame_record(b"a", 100), frame_record(b"bc", 1)].concat();
    let mut decoder = RecordDecoder::new(RecordLimits::default());
    decoder.push(&stream).unwrap();
    assert_eq!(decoder.ready_len(), 2);
    assert_eq!(decoder.pop().unwrap(), b"a");
    assert_eq!(decoder.pop().unwrap(), b"bc");
    assert_eq!(decoder.pop(), None);
}

#[test]
fn oversized_fragment_is_refused_before_anything_is_allocated() {
    let mut decoder = RecordDecoder::new(limits(1 << 20, 16));
    // A last fragment announcing 2 GiB - 1 bytes, followed by a little data.
    let err = decoder.push(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]).unwrap_err();
    assert_eq!(err, RpcError::RecordTooLarge { len: 0x7fff_ffff, fragment_len: 0x7fff_ffff, max: 1 << 20 });
    assert_eq!(decoder.partial_capacity(), 0, "nothing may be reserved for a refused fragment");
    assert_eq!(decoder.partial_len(), 0);
    // The stream cannot be resynchronised: every later push repeats the error.
    assert_eq!(decoder.push(&[0x80, 0, 0, 0]), Err(err.clone()));
    assert_eq!(decoder.finish(), Err(err));
}

#[test]
fn fragments_adding_up_past_the_record_limit_are_refused_at_the_header_that_crosses_it() {
    let mut decoder = RecordDecoder::new(limits(100, 16));
    let mut stream = Vec::new();
    stream.extend(record_marker(60, false));
    stream.extend([1; 60]);
    stream.extend(record_marker(41, true));
    let err = decoder.push(&stream).unwrap_err();
    assert_eq!(err, RpcError::RecordTooLarge { len: 101, fragment_len: 41, max: 100 });
}

#[test]
fn record_of_exactly_the_limit_is_accepted() {
    let record = vec![9; 100];
    let mut decoder = RecordDecoder::new(limits(100, 16));
    decoder.push(&frame_record(&record, 30)).unwrap();
    assert_eq!(decoder.pop().unwrap(), record);
}

#[test]
fn empty_non_last_fragments_are_allowed_up_to_the_fragment_limit() {
    let mut stream = Vec::new();
    for _ in 0..3 {
        stream.extend(record_marker(0, false));
    }
    stream.extend(record_marker(2, true));
    stream.extend(b"ok");
    let mut decoder = RecordDecoder::new(limits(100, 4));
    decoder.push(&stream).unwrap();
    assert_eq!(decoder.pop().unwrap(), b"ok");

    let mut decoder = RecordDecoder::new(limits(100, 4));
    let endless = [record_marker(0, false); 5].concat();
    assert_eq!(decoder.push(&endless), Err(RpcError::TooManyFragments { max: 4 }));
}

#[test]
fn fragment_count_restarts_with_each_record() {
    let stream: Vec<u8> = (0..10).flat_map(|_| frame_record(b"abcd", 1)).collect();
    assert_eq!(split_records(&stream, limits(100, 4)).unwrap().len(), 10);
}

#[test]
fn finish_reports_a_stream_that_ends_inside_a_record() {
    let stream = frame_record(b"0123456789", 4);
    for cut in 1..stream.len() {
        let mut decoder = RecordDecoder::new(RecordLimits::default());
        decoder.push(&stream[..cut]).unwrap();
        assert!(!decoder.is_at_record_boundary(), "cut at {cut}");
        assert!(matches!(decoder.finish(), Err(RpcError::TruncatedRecord { .. })), "cut at {cut}");
    }
}

#[test]
fn single_fragment_record_is_assembled_in_one_allocation_and_buffers_can_be_recycled() {
    let record = vec![5; 1000];
    let mut decoder = RecordDecoder::new(RecordLimits::default());
    let stream = frame_record(&record, usize::MAX);
    decoder.push(&stream[..500]).unwrap();
    decoder.push(&stream[500..]).unwrap();
    let out = decoder.pop().unwrap();
    assert_eq!(out, record);
    assert_eq!(out.capacity(), 1000, "reserved once from the fragment header, never grown");

    let ptr = out.as_ptr();
    decoder.recycle(out);
    decoder.push(&frame_record(b"next", 100)).unwrap();
    let next = decoder.pop().unwrap();
    assert_eq!(next, b"next");
    assert_eq!(next.as_ptr(), ptr, "the recycled buffer is reused");
}

#[test]
fn fragments_split_a_record_and_an_empty_record_is_one_empty_last_fragment() {
    let frags: Vec<_> = fragments(b"abcdefg", 3).collect();
    assert_eq!(
        frags,
        vec![
            (record_marker(3, false), &b"abc"[..]),
            (record_marker(3, false), &b"def"[..]),
            (record_marker(1, true), &b"g"[..])
        ]
    );
    assert_eq!(fragments(b"", 3).collect::<Vec<_>>(), vec![(record_marker(0, true), &b""[..])]);
    assert_eq!(frame_record(b"", 0), [0x80, 0, 0, 0]);
    assert_eq!(fragments(b"abc", 0).count(), 3, "a zero fragment size is treated as 1");
}

#[test]
fn framed_writer_matches_frame_record_without_copying_the_payload() {
    let payload = vec![0x5a; 1001];
    let mut w = XdrWriter::new();
    w.put_u32(1);
    w.put_payload(&payload);
    w.put_u32(2);
    let flat = w.to_vec();
    for max in [1, 4, 7, 100, 1004, 5000, MAX_FRAGMENT_LEN as usize] {
        let framed = FramedRecord::from_writer(&w, max);
        assert_eq!(framed.to_vec(), frame_record(&flat, max), "max fragment {max}");
        assert_eq!(framed.len(), framed.to_vec().len());
        assert_eq!(framed.fragment_count(), fragments(&flat, max).count());
    }
    let framed = FramedRecord::from_writer(&w, MAX_FRAGMENT_LEN as usize);
    let slices = framed.slices();
    assert_eq!(slices[0], record_marker(flat.len() as u32, true));
    assert!(slices.iter().any(|s| std::ptr::eq(*s, payload.as_slice())), "payload must be borrowed");
}

#[test]
fn framed_empty_writer_is_one_empty_last_fragment() {
    let w = XdrWriter::new();
    let framed = FramedRecord::from_writer(&w, 10);
    assert_eq!(framed.to_vec(), [0x80, 0, 0, 0]);
    assert!(!framed.is_empty());
}
