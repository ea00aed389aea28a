//! The short-lived exchanges around a mount, each on its own TCP connection to the server's first
//! address: port mapper GETPORT (RFC 1833 §3.2), MOUNT MNT and UMNT (RFC 1813 Appendix I §5.2).

use std::net::SocketAddr;
use std::time::Duration;

use bytes::BytesMut;
use nfs3_proto::mount::{DirPath, MountProc, MountRes3, MOUNT_PROGRAM, MOUNT_V3};
use onc_rpc::portmap::{Mapping, PmapProcedure, IPPROTO_TCP, PMAP_VERSION};
use onc_rpc::{frame_record, RecordLimits, RpcMessage, MAX_FRAGMENT_LEN, PMAP_PROGRAM};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use xdr::{XdrEncode, XdrWriter};

use crate::decode::results;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::tcp::{connect, RecordSplitter};
use crate::types::FileHandle;

/// Replies of these calls are small; anything larger is refused.
const SMALL_RECORD: usize = 64 << 10;

/// One call on a fresh connection: connect, send, read until the reply with our xid, close. The whole
/// exchange is bounded by `timeout`. Returns the reply record.
async fn call_once<'a>(
    addr: SocketAddr,
    encoder: &CallEncoder,
    (prog, vers, proc): (u32, u32, u32),
    name: &'static str,
    args: impl FnOnce(&mut XdrWriter<'a>),
    timeout: Duration,
) -> Result<bytes::Bytes, ClientError> {
    let (xid, call) = encoder.encode(prog, vers, proc, 64, args);
    let exchange = async {
        let io = |source| ClientError::Io { addr, source };
        let mut socket = connect(addr, timeout).await.map_err(io)?;
        socket.write_all(&frame_record(&call, MAX_FRAGMENT_LEN as usize)).await.map_err(io)?;
        let mut splitter = RecordSplitter::new(RecordLimits { max_record: SMALL_RECORD, ..RecordLimits::default() });
        let mut buf = BytesMut::with_capacity(4096);
        loop {
            if socket.read_buf(&mut buf).await.map_err(io)? == 0 {
                return Err(ClientError::protocol(name, format!("{addr} closed the connection before replying")));
            }
            while let Some(record) = splitter.next(&mut buf).map_err(|e| ClientError::protocol(name, e))? {
                if RpcMessage::peek_xid(&record) == Some(xid) {
                    return Ok(record);
                }
            }
            buf.reserve(4096);
        }
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(outcome) => outcome,
        Err(_) => Err(ClientError::TimedOut { proc: name, after: timeout }),
    }
}

fn program_name(prog: u32) -> &'static str {
    match prog {
        nfs3_proto::NFS_PROGRAM => "NFS",
        MOUNT_PROGRAM => "MOUNT",
        _ => "unknown",
    }
}

/// The TCP port of `prog` version `vers`, asked of the port mapper at `pmap` (PMAPPROC_GETPORT,
/// version 2, AUTH_NONE, as mount.nfs falls back to).
pub(crate) async fn getport(pmap: SocketAddr, prog: u32, vers: u32, timeout: Duration) -> Result<u16, ClientError> {
    const NAME: &str = "GETPORT";
    let mapping = Mapping { prog, vers, prot: IPPROTO_TCP, port: 0 };
    let ids = (PMAP_PROGRAM, PMAP_VERSION, PmapProcedure::GetPort as u32);
    let record = call_once(pmap, &CallEncoder::anonymous(), ids, NAME, |w| mapping.encode(w), timeout).await?;
    let port: u32 = xdr::decode_exact(results(NAME, &record)?).map_err(|e| ClientError::protocol(NAME, e))?;
    // RFC 1833 §3.2: "a port value of zeros means the program has not been registered".
    match u16::try_from(port) {
        Ok(0) => Err(ClientError::NotRegistered { addr: pmap, prog: program_name(prog), vers }),
        Ok(port) => Ok(port),
        Err(_) => Err(ClientError::protocol(NAME, format!("port {port} out of range"))),
    }
}

/// MNT: the root handle of `export` (RFC 1813 §5.2.1). The server must accept AUTH_SYS or AUTH_NONE.
pub(crate) async fn mnt(
    addr: SocketAddr,
    export: &str,
    encoder: &CallEncoder,
    timeout: Duration,
) -> Result<FileHandle, ClientError> {
    const NAME: &str = "MNT";
    let path = DirPath(export.as_bytes());
    let ids = (MOUNT_PROGRAM, MOUNT_V3, MountProc::Mnt as u32);
    let record = call_once(addr, encoder, ids, NAME, |w| path.encode(w), timeout).await?;
    let res: MountRes3 = xdr::decode_exact(results(NAME, &record)?).map_err(|e| ClientError::protocol(NAME, e))?;
    match res {
        MountRes3::Ok(ok) => {
            // RFC 1813 §5.2.1: the flavors the server accepts for this export; empty means any.
            let usable = ok.auth_flavors.is_empty() || ok.auth_flavors.iter().any(|&f| f == 0 || f == 1);
            if !usable {
                return Err(ClientError::Unsupported(format!(
                    "export {export} requires RPC auth flavors {:?}; only AUTH_SYS (1) and AUTH_NONE (0) are supported",
                    ok.auth_flavors
                )));
            }
            Ok(FileHandle::from(ok.fhandle))
        }
        MountRes3::Fail(status) => Err(ClientError::Mount { path: export.to_string(), status }),
    }
}

/// UMNT (RFC 1813 §5.2.3): the server forgets the mount; void result.
pub(crate) async fn umnt(
    addr: SocketAddr,
    export: &str,
    encoder: &CallEncoder,
    timeout: Duration,
) -> Result<(), ClientError> {
    const NAME: &str = "UMNT";
    let path = DirPath(export.as_bytes());
    let ids = (MOUNT_PROGRAM, MOUNT_V3, MountProc::Umnt as u32);
    let record = call_once(addr, encoder, ids, NAME, |w| path.encode(w), timeout).await?;
    xdr::XdrReader::new(results(NAME, &record)?).finish().map_err(|e| ClientError::protocol(NAME, e))
}
