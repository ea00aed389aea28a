//! A scripted NFS server: MNT and FSINFO are answered properly, every other call goes to the test's
//! script, which says what bytes to send back (or none, or to close the connection).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use nfs3_proto::mount::{MountRes3, MountRes3Ok};
use nfs3_proto::{
    Fattr3, FileHandle3, FsinfoRes, FsinfoResOk, Ftype3, GetattrRes, GetattrResOk, Nfs3Proc, NfsTime3, SpecData3,
};
use onc_rpc::{frame_record, OpaqueAuth, RecordDecoder, RecordLimits, ReplyBody, RpcMessage, MAX_FRAGMENT_LEN};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use xdr::XdrEncode;

/// A call as the script sees it.
#[derive(Debug, Clone)]
pub struct Call {
    pub xid: u32,
    pub prog: u32,
    pub proc: u32,
    pub args: Vec<u8>,
    /// Times this xid has been received, this one included (2 = first retransmission).
    pub transmission: usize,
    /// Connections accepted before this call's, this one included.
    pub connection: usize,
}

pub enum Action {
    /// Bytes written as they are (framing included).
    Raw(Vec<u8>),
    /// Closes the connection.
    Close,
}

pub type Script = Arc<dyn Fn(&Call) -> Vec<Action> + Send + Sync>;

pub struct FakeServer {
    pub addr: SocketAddr,
    /// Every call the script saw.
    pub calls: Arc<Mutex<Vec<Call>>>,
    accept: JoinHandle<()>,
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

pub const ROOT: &[u8] = b"fake-root-handle";

pub fn fattr(size: u64) -> Fattr3 {
    let t = NfsTime3 { seconds: 1_700_000_000, nseconds: 0 };
    Fattr3 {
        ftype: Ftype3::Reg,
        mode: 0o644,
        nlink: 1,
        uid: 0,
        gid: 0,
        size,
        used: size,
        rdev: SpecData3::default(),
        fsid: 1,
        fileid: 2,
        atime: t,
        mtime: t,
        ctime: t,
    }
}

/// A framed MSG_ACCEPTED / SUCCESS reply carrying `results`.
pub fn reply(xid: u32, results: &[u8]) -> Vec<u8> {
    let mut w = RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(results.len());
    w.put_raw(results);
    frame_record(&w.to_vec(), MAX_FRAGMENT_LEN as usize)
}

/// A framed GETATTR success reply.
pub fn getattr_ok(xid: u32) -> Vec<u8> {
    reply(xid, &GetattrRes::Ok(GetattrResOk { obj_attributes: fattr(4096) }).to_xdr_bytes())
}

fn builtin(call: &Call) -> Option<Vec<u8>> {
    if call.prog == nfs3_proto::MOUNT_PROGRAM && call.proc == 1 {
        let ok = MountRes3Ok { fhandle: FileHandle3::new(ROOT)?, auth_flavors: vec![1] };
        return Some(reply(call.xid, &MountRes3::Ok(ok).to_xdr_bytes()));
    }
    if call.prog == nfs3_proto::NFS_PROGRAM && call.proc == Nfs3Proc::Fsinfo as u32 {
        let ok = FsinfoResOk {
            obj_attributes: None,
            rtmax: 1 << 20,
            rtpref: 1 << 20,
            rtmult: 4096,
            wtmax: 1 << 20,
            wtpref: 1 << 20,
            wtmult: 4096,
            dtpref: 8192,
            maxfilesize: u64::MAX,
            time_delta: NfsTime3 { seconds: 0, nseconds: 1 },
            properties: 0,
        };
        return Some(reply(call.xid, &FsinfoRes::Ok(ok).to_xdr_bytes()));
    }
    None
}

impl FakeServer {
    pub async fn start(script: Script) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake server");
        let addr = listener.local_addr().expect("addr");
        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::new(Mutex::new(HashMap::<u32, usize>::new()));
        let log = Arc::clone(&calls);
        let accept = tokio::spawn(async move {
            let mut connection = 0;
            while let Ok((mut socket, _)) = listener.accept().await {
                connection += 1;
                let (script, log, seen) = (Arc::clone(&script), Arc::clone(&log), Arc::clone(&seen));
                tokio::spawn(async move {
                    let mut records = RecordDecoder::new(RecordLimits::default());
                    let mut buf = vec![0u8; 1 << 16];
                    loop {
                        let n = match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => n,
                        };
                        if records.push(&buf[..n]).is_err() {
                            return;
                        }
                        while let Some(record) = records.pop() {
                            let Ok((msg, args)) = RpcMessage::decode(&record) else { continue };
                            let Some(header) = msg.as_call() else { continue };
                            let transmission = {
                                let mut seen = seen.lock().expect("lock");
                                let n = seen.entry(msg.xid).or_default();
                                *n += 1;
                                *n
                            };
                            let call = Call {
                                xid: msg.xid,
                                prog: header.prog,
                                proc: header.proc,
                                args: args.to_vec(),
                                transmission,
                                connection,
                            };
                            let actions = match builtin(&call) {
                                Some(bytes) => vec![Action::Raw(bytes)],
                                None => {
                                    log.lock().expect("lock").push(call.clone());
                                    script(&call)
                                }
                            };
                            for action in actions {
                                match action {
                                    Action::Raw(bytes) => {
                                        if socket.write_all(&bytes).await.is_err() {
                                            return;
                                        }
                                    }
                                    Action::Close => return,
                                }
                            }
                        }
                    }
                });
            }
        });
        FakeServer { addr, calls, accept }
    }

    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().expect("lock").clone()
    }
}
