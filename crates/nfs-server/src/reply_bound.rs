//! How large the reply to a call can be, read from the call alone: what a front end needs to admit a
//! call into what a connection may still hold once the server-wide budget is spent. Only NFSv3 calls
//! whose replies are fixed in size or bounded by their arguments (a READ's count) are bounded; for
//! anything else the bound is unknown (`None`) and the front end treats the call as large.

use nfs3_proto::{Nfs3Proc, ReadArgs};
use onc_rpc::{RpcMessage, NFS_PROGRAM};

/// The most any bounded NFSv3 reply takes besides READ data: the RPC reply header with the largest
/// verifier (RFC 5531 §8.2: 400 bytes of opaque body) about 430 bytes, and the largest fixed-size result
/// (CREATE: status, post-op file handle of up to 64 bytes, post-op attributes, wcc data) about 300.
const FIXED_REPLY: usize = 1024;

/// The most bytes the reply to `record` can take, when the call alone tells; `max_io` caps a READ's
/// count as the server does.
pub(crate) fn reply_bound(record: &[u8], max_io: u32) -> Option<usize> {
    let (msg, args) = RpcMessage::decode(record).ok()?;
    let call = msg.as_call()?;
    if call.prog != NFS_PROGRAM || call.vers != 3 {
        return None;
    }
    match Nfs3Proc::from_u32(call.proc)? {
        Nfs3Proc::Read => {
            let read = xdr::decode_exact::<ReadArgs>(args).ok()?;
            let data = read.count.min(max_io) as usize;
            // The data as an XDR opaque: padded to four bytes.
            Some(FIXED_REPLY + data.next_multiple_of(4))
        }
        Nfs3Proc::Null
        | Nfs3Proc::Getattr
        | Nfs3Proc::Setattr
        | Nfs3Proc::Lookup
        | Nfs3Proc::Access
        | Nfs3Proc::Write
        | Nfs3Proc::Create
        | Nfs3Proc::Mkdir
        | Nfs3Proc::Symlink
        | Nfs3Proc::Mknod
        | Nfs3Proc::Remove
        | Nfs3Proc::Rmdir
        | Nfs3Proc::Rename
        | Nfs3Proc::Link
        | Nfs3Proc::Fsstat
        | Nfs3Proc::Fsinfo
        | Nfs3Proc::Pathconf
        | Nfs3Proc::Commit => Some(FIXED_REPLY),
        // READLINK returns a path, READDIR and READDIRPLUS as many entries as their counts allow: left
        // unbounded here rather than bounded loosely.
        Nfs3Proc::Readlink | Nfs3Proc::Readdir | Nfs3Proc::Readdirplus => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs3_proto::FileHandle3;
    use onc_rpc::{CallHeader, OpaqueAuth};
    use xdr::XdrEncode;

    fn call(prog: u32, vers: u32, proc: u32, args: &[u8]) -> Vec<u8> {
        let mut w = RpcMessage::call(7, CallHeader::new(prog, vers, proc, OpaqueAuth::NONE, OpaqueAuth::NONE))
            .header_writer(args.len());
        w.put_raw(args);
        w.into_vec()
    }

    fn read(count: u32) -> Vec<u8> {
        let args = ReadArgs { file: FileHandle3::default(), offset: 0, count }.to_xdr_bytes();
        call(NFS_PROGRAM, 3, Nfs3Proc::Read as u32, &args)
    }

    #[test]
    fn a_reads_reply_is_bounded_by_its_count_capped_at_the_servers_io_size() {
        assert_eq!(reply_bound(&read(4096), 1 << 20), Some(FIXED_REPLY + 4096));
        assert_eq!(reply_bound(&read(4095), 1 << 20), Some(FIXED_REPLY + 4096));
        assert_eq!(reply_bound(&read(u32::MAX), 1 << 20), Some(FIXED_REPLY + (1 << 20)));
    }

    #[test]
    fn fixed_size_replies_are_bounded_and_the_rest_unknown() {
        assert_eq!(reply_bound(&call(NFS_PROGRAM, 3, Nfs3Proc::Getattr as u32, &[]), 1 << 20), Some(FIXED_REPLY));
        for unknown in [
            call(NFS_PROGRAM, 3, Nfs3Proc::Readdirplus as u32, &[]),
            call(NFS_PROGRAM, 4, 1, &[]),
            call(100_005, 3, 1, &[]),
            call(NFS_PROGRAM, 3, 99, &[]),
            read(4096)[..40].to_vec(),
            vec![0xff; 3],
        ] {
            assert_eq!(reply_bound(&unknown, 1 << 20), None);
        }
    }
}
