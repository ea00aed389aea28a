use super::seg;
use crate::{
    validate_call, ChunkKind, ChunkLists, ChunkPolicy, ErrorResponse, RdmaErrorBody, RdmaHeader, ReadChunk,
    RpcRdmaError, Segment, WriteChunk,
};

fn read(position: u32, lengths: &[u32]) -> ReadChunk {
    ReadChunk { position, segments: lengths.iter().map(|&l| seg(1, l, 0)).collect() }
}

fn msg_with_reads(reads: Vec<ReadChunk>) -> RdmaHeader {
    RdmaHeader::msg(1, 1, ChunkLists { reads: reads.into(), ..Default::default() })
}

fn check(h: &RdmaHeader, inline_len: usize) -> Result<(), RpcRdmaError> {
    validate_call(h, inline_len, &ChunkPolicy::default())
}

#[test]
fn linux_style_write_call_with_one_read_chunk_is_accepted() {
    // The reduced WRITE call is 136 bytes inline; its data goes back in at position 136.
    assert_eq!(check(&msg_with_reads(vec![read(136, &[4096])]), 140), Ok(()));
    assert_eq!(check(&msg_with_reads(vec![read(136, &[4096])]), 136), Ok(()), "the item may end the message");
}

#[test]
fn call_without_chunks_is_accepted() {
    assert_eq!(check(&RdmaHeader::msg(1, 1, ChunkLists::default()), 100), Ok(()));
}

#[test]
fn read_chunk_position_must_be_four_byte_aligned() {
    let err = check(&msg_with_reads(vec![read(138, &[4096])]), 200).unwrap_err();
    assert_eq!(err, RpcRdmaError::UnalignedPosition { position: 138 });
}

#[test]
fn read_chunk_position_must_fall_within_the_inline_message() {
    let err = check(&msg_with_reads(vec![read(140, &[4096])]), 136).unwrap_err();
    assert_eq!(err, RpcRdmaError::PositionBeyondMessage { position: 140, message_len: 136 });
}

#[test]
fn later_read_chunk_positions_count_earlier_chunks_with_their_padding() {
    // First item: 10 bytes (12 with padding) at 100; then 4 inline bytes (the next length word); next at 116.
    let ok = msg_with_reads(vec![read(100, &[10]), read(116, &[8])]);
    assert_eq!(check(&ok, 104), Ok(()));
    // The same second chunk in a message with only 103 bytes inline lies past the end.
    assert!(matches!(check(&ok, 103), Err(RpcRdmaError::PositionBeyondMessage { position: 116, .. })));
}

#[test]
fn read_chunks_out_of_order_or_overlapping_are_refused() {
    let backwards = msg_with_reads(vec![read(200, &[4]), read(100, &[4])]);
    assert_eq!(check(&backwards, 300).unwrap_err(), RpcRdmaError::PositionOutOfOrder { position: 100 });
    let repeated = msg_with_reads(vec![read(100, &[4]), read(100, &[4])]);
    assert_eq!(check(&repeated, 300).unwrap_err(), RpcRdmaError::PositionOutOfOrder { position: 100 });
    let overlapping = msg_with_reads(vec![read(100, &[4096]), read(200, &[4])]);
    assert_eq!(check(&overlapping, 300).unwrap_err(), RpcRdmaError::PositionOutOfOrder { position: 200 });
}

#[test]
fn position_zero_chunk_belongs_only_in_rdma_nomsg() {
    let err = check(&msg_with_reads(vec![read(0, &[2000])]), 0).unwrap_err();
    assert_eq!(err, RpcRdmaError::PositionZeroInMsg);
    let long_call =
        RdmaHeader::nomsg(1, 1, ChunkLists { reads: crate::smallvec![read(0, &[2000])], ..Default::default() });
    assert_eq!(check(&long_call, 0), Ok(()));
}

#[test]
fn rdma_nomsg_call_needs_a_position_zero_chunk() {
    let empty = RdmaHeader::nomsg(1, 1, ChunkLists::default());
    assert_eq!(check(&empty, 0).unwrap_err(), RpcRdmaError::NoMsgWithoutCallChunk);
    let data_only =
        RdmaHeader::nomsg(1, 1, ChunkLists { reads: crate::smallvec![read(136, &[4096])], ..Default::default() });
    assert_eq!(check(&data_only, 0).unwrap_err(), RpcRdmaError::NoMsgWithoutCallChunk);
}

#[test]
fn rdma_nomsg_data_chunks_are_placed_within_the_position_zero_chunk() {
    let chunks = |p| ChunkLists { reads: crate::smallvec![read(0, &[200]), read(p, &[4096])], ..Default::default() };
    assert_eq!(check(&RdmaHeader::nomsg(1, 1, chunks(136)), 0), Ok(()));
    let err = check(&RdmaHeader::nomsg(1, 1, chunks(204)), 0).unwrap_err();
    assert_eq!(err, RpcRdmaError::PositionBeyondMessage { position: 204, message_len: 200 });
}

#[test]
fn zero_length_segments_are_refused_in_every_list() {
    let zero = vec![seg(1, 0, 0)];
    let reads = msg_with_reads(vec![ReadChunk { position: 8, segments: zero.clone().into() }]);
    assert_eq!(check(&reads, 8).unwrap_err(), RpcRdmaError::ZeroLengthSegment { kind: ChunkKind::Read });
    let writes = RdmaHeader::msg(
        1,
        1,
        ChunkLists { writes: crate::smallvec![WriteChunk { segments: zero.clone().into() }], ..Default::default() },
    );
    assert_eq!(check(&writes, 8).unwrap_err(), RpcRdmaError::ZeroLengthSegment { kind: ChunkKind::Write });
    let reply =
        RdmaHeader::msg(1, 1, ChunkLists { reply: Some(WriteChunk { segments: zero.into() }), ..Default::default() });
    assert_eq!(check(&reply, 8).unwrap_err(), RpcRdmaError::ZeroLengthSegment { kind: ChunkKind::Reply });
}

#[test]
fn an_empty_write_chunk_is_accepted_as_a_request_for_an_inline_result() {
    let writes = RdmaHeader::msg(
        1,
        1,
        ChunkLists {
            writes: crate::smallvec![WriteChunk::default(), WriteChunk { segments: crate::smallvec![seg(1, 4096, 0)] }],
            ..Default::default()
        },
    );
    assert_eq!(check(&writes, 8), Ok(()));
}

#[test]
fn read_and_reply_chunks_without_segments_are_refused() {
    let reply = RdmaHeader::msg(1, 1, ChunkLists { reply: Some(WriteChunk::default()), ..Default::default() });
    assert_eq!(check(&reply, 8).unwrap_err(), RpcRdmaError::EmptyChunk { kind: ChunkKind::Reply });
    let reads = msg_with_reads(vec![ReadChunk { position: 8, segments: Default::default() }]);
    assert_eq!(check(&reads, 8).unwrap_err(), RpcRdmaError::EmptyChunk { kind: ChunkKind::Read });
}

#[test]
fn chunks_longer_than_the_policy_are_refused_without_overflow() {
    let policy =
        ChunkPolicy { max_read_chunk: 8192, max_read_total: 10_000, max_write_chunk: 4096, max_reply_chunk: 1024 };
    let big_read = msg_with_reads(vec![read(8, &[4096, 4097])]);
    assert_eq!(
        validate_call(&big_read, 8, &policy).unwrap_err(),
        RpcRdmaError::ChunkTooLong { kind: ChunkKind::Read, len: 8193, max: 8192 }
    );
    let two_reads = msg_with_reads(vec![read(8, &[8000]), read(8008, &[4000])]);
    assert_eq!(
        validate_call(&two_reads, 12, &policy).unwrap_err(),
        RpcRdmaError::ReadListTooLong { len: 12_000, max: 10_000 }
    );
    let huge: Vec<Segment> = (0..256).map(|_| seg(1, u32::MAX, 0)).collect();
    let write = RdmaHeader::msg(
        1,
        1,
        ChunkLists { writes: crate::smallvec![WriteChunk { segments: huge.into() }], ..Default::default() },
    );
    assert!(matches!(
        validate_call(&write, 8, &policy),
        Err(RpcRdmaError::ChunkTooLong { kind: ChunkKind::Write, len: 1_099_511_627_520, max: 4096 })
    ));
    let reply = RdmaHeader::msg(
        1,
        1,
        ChunkLists { reply: Some(WriteChunk { segments: crate::smallvec![seg(1, 1025, 0)] }), ..Default::default() },
    );
    assert!(matches!(
        validate_call(&reply, 8, &policy),
        Err(RpcRdmaError::ChunkTooLong { kind: ChunkKind::Reply, .. })
    ));
}

#[test]
fn rdma_error_received_as_a_call_is_dropped() {
    let err = check(&RdmaHeader::error(1, 1, RdmaErrorBody::Chunk), 0).unwrap_err();
    assert_eq!(err, RpcRdmaError::ErrorMessageAsCall);
    assert_eq!(err.response(), ErrorResponse::Drop);
}

#[test]
fn every_chunk_validation_error_is_answered_with_err_chunk() {
    let errors = [
        RpcRdmaError::NoMsgWithoutCallChunk,
        RpcRdmaError::PositionZeroInMsg,
        RpcRdmaError::UnalignedPosition { position: 1 },
        RpcRdmaError::PositionOutOfOrder { position: 4 },
        RpcRdmaError::PositionBeyondMessage { position: 8, message_len: 4 },
        RpcRdmaError::EmptyChunk { kind: ChunkKind::Write },
        RpcRdmaError::ZeroLengthSegment { kind: ChunkKind::Read },
        RpcRdmaError::ChunkTooLong { kind: ChunkKind::Reply, len: 2, max: 1 },
        RpcRdmaError::ReadListTooLong { len: 2, max: 1 },
    ];
    for err in errors {
        assert_eq!(err.response(), ErrorResponse::Reply(RdmaErrorBody::Chunk), "{err}");
    }
}
