//! I/Os larger than the mount's rsize/wsize become several calls, as the Linux client splits an
//! O_DIRECT request into rsize/wsize RPCs: all are sent at once and the I/O completes when the last
//! reply is in. The replies are merged back into one, as far as they are contiguous.

use bytes::{Bytes, BytesMut};
use nfs_client::{ReadReply, StableHow, WriteReply};

/// (offset, length) of each call of an I/O of `len` bytes at `offset`, at most `max` bytes each.
pub(crate) fn pieces(offset: u64, len: u64, max: u32) -> impl Iterator<Item = (u64, u64)> {
    let max = u64::from(max.max(1));
    (0..len.div_ceil(max).max(1)).map(move |i| (offset + i * max, (len - i * max).min(max)))
}

/// One READ reply for the I/O: the pieces' data up to and including the first short one.
pub(crate) fn merge_reads(replies: Vec<ReadReply>, asked: &[u64]) -> ReadReply {
    if replies.len() == 1 {
        return replies.into_iter().next().unwrap_or(ReadReply { data: Bytes::new(), eof: true });
    }
    let mut data = BytesMut::with_capacity(asked.iter().sum::<u64>() as usize);
    let mut eof = false;
    for (reply, want) in replies.into_iter().zip(asked) {
        data.extend_from_slice(&reply.data);
        eof = reply.eof;
        if (reply.data.len() as u64) < *want {
            break;
        }
    }
    ReadReply { data: data.freeze(), eof }
}

/// The WRITE reply of an I/O sent as one call: as [`merge_writes`] of one piece.
pub(crate) fn merge_write(mut reply: WriteReply, sent: u64) -> WriteReply {
    reply.count = u64::from(reply.count).min(sent) as u32;
    reply
}

/// One WRITE reply for the I/O: the bytes written contiguously from its start (the client resends
/// the rest, as after any short write), UNSTABLE if any piece was, with that piece's verifier.
pub(crate) fn merge_writes(replies: Vec<WriteReply>, sent: &[u64]) -> WriteReply {
    let mut count = 0u64;
    let mut committed = StableHow::FileSync;
    let mut verifier = replies.first().map_or([0; 8], |r| r.verifier);
    for (reply, len) in replies.iter().zip(sent) {
        count += u64::from(reply.count).min(*len);
        if (reply.count as u64) < *len {
            break;
        }
    }
    for reply in &replies {
        if rank(reply.committed) < rank(committed) {
            committed = reply.committed;
            verifier = reply.verifier;
        }
    }
    WriteReply { count: count.min(u64::from(u32::MAX)) as u32, committed, verifier }
}

fn rank(s: StableHow) -> u8 {
    match s {
        StableHow::Unstable => 0,
        StableHow::DataSync => 1,
        StableHow::FileSync => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_splits_into_calls_of_at_most_the_transfer_size() {
        assert_eq!(pieces(100, 10, 4).collect::<Vec<_>>(), vec![(100, 4), (104, 4), (108, 2)]);
        assert_eq!(pieces(0, 8, 4).collect::<Vec<_>>(), vec![(0, 4), (4, 4)]);
        assert_eq!(pieces(0, 3, 4).collect::<Vec<_>>(), vec![(0, 3)]);
    }

    #[test]
    fn replies_merge_up_to_the_first_short_one() {
        let r = |n: usize, eof| ReadReply { data: Bytes::from(vec![n as u8; n]), eof };
        let m = merge_reads(vec![r(4, false), r(2, true), r(4, false)], &[4, 4, 4]);
        assert_eq!((m.data.len(), m.eof), (6, true));
        let w = |count, committed| WriteReply { count, committed, verifier: [count as u8; 8] };
        let m = merge_writes(
            vec![w(4, StableHow::FileSync), w(4, StableHow::Unstable), w(1, StableHow::FileSync)],
            &[4, 4, 4],
        );
        assert_eq!((m.count, m.committed, m.verifier), (9, StableHow::Unstable, [4; 8]));
        let m = merge_writes(
            vec![w(4, StableHow::FileSync), w(2, StableHow::FileSync), w(4, StableHow::FileSync)],
            &[4, 4, 4],
        );
        assert_eq!(m.count, 6, "bytes after a short piece are not counted: the client resends from there");
        for reply in [w(4, StableHow::Unstable), w(9, StableHow::FileSync), w(2, StableHow::DataSync)] {
            assert_eq!(merge_write(reply, 4), merge_writes(vec![reply], &[4]), "one piece, one call: {reply:?}");
        }
    }
}
