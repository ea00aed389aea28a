//! A small in-process NFSv4.1/4.2 server built from the codec, for the client's tests: enough of
//! EXCHANGE_ID, CREATE_SESSION, SEQUENCE (slots, reply cache), BIND_CONN_TO_SESSION, OPEN/CLOSE,
//! READ/WRITE/COMMIT, GETATTR/SETATTR, LOOKUP/CREATE/REMOVE and RECLAIM_COMPLETE, with the faults the
//! recovery tests need: connections cut, replies lost after the work was done, a restart (state
//! forgotten, files kept, a grace period), leases that run out, a lowered slot target. It listens on
//! one port of one or more loopback addresses (the same server: session trunking).
#![allow(dead_code)]

pub mod clients;
pub mod ops;
pub mod rdma;
pub mod state;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use mount_options::{MountConfig, MountSpec};
use nfs_client::tcp::RecordSplitter;
use nfs_client::{ClientError, NfsClient};
use onc_rpc::{frame_record, MessageBody, OpaqueAuth, RecordLimits, ReplyBody, RpcMessage, MAX_FRAGMENT_LEN};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};

pub use ops::Config;
pub use state::State;

impl Default for Config {
    fn default() -> Self {
        Config { minor_versions: 1..=2, slots: 64, major_id: b"fake-server", scope: b"fake-scope", maxread: 1 << 20 }
    }
}

struct Inner {
    state: Mutex<State>,
    cfg: Config,
    counts: Mutex<HashMap<&'static str, u64>>,
    kill: watch::Sender<u64>,
    /// COMPOUNDs with READ or WRITE whose reply is lost: done, cached, and the connection cut instead.
    lose_replies: AtomicU32,
    /// Each live connection's queue of records the server sends it (callbacks).
    outgoing: Mutex<Vec<mpsc::UnboundedSender<Vec<u8>>>>,
    /// Where the client's reply to the callback in flight goes.
    callback_reply: Mutex<Option<oneshot::Sender<Vec<u8>>>>,
}

/// The fake server; it stops when dropped.
pub struct FakeV4 {
    pub port: u16,
    pub addrs: Vec<IpAddr>,
    inner: Arc<Inner>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for FakeV4 {
    fn drop(&mut self) {
        self.inner.kill.send_modify(|k| *k += 1);
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl FakeV4 {
    /// A server on 127.0.0.1 with a lease of `lease`.
    pub async fn start(cfg: Config, lease: Duration) -> FakeV4 {
        Self::start_on(cfg, lease, &["127.0.0.1".parse().expect("ip")]).await
    }

    /// One server listening on the same port of every address in `ips`.
    pub async fn start_on(cfg: Config, lease: Duration, ips: &[IpAddr]) -> FakeV4 {
        Self::start_at(cfg, lease, ips, 0).await
    }

    /// [`start_on`](Self::start_on) at `port` (0: any port free on every address).
    pub async fn start_at(cfg: Config, lease: Duration, ips: &[IpAddr], port: u16) -> FakeV4 {
        let inner = Arc::new(Inner {
            state: Mutex::new(State::new(lease)),
            cfg,
            counts: Mutex::new(HashMap::new()),
            kill: watch::channel(0).0,
            lose_replies: AtomicU32::new(0),
            outgoing: Mutex::new(Vec::new()),
            callback_reply: Mutex::new(None),
        });
        let listeners = bind_all(ips, port).await;
        let port = listeners[0].local_addr().expect("addr").port();
        let tasks = listeners.into_iter().map(|l| tokio::spawn(accept(l, inner.clone()))).collect();
        FakeV4 { port, addrs: ips.to_vec(), inner, tasks }
    }

    /// A mount spec for the server's root: `127.0.0.1:/` at its port with `options` after.
    pub fn spec(&self, options: &str) -> MountSpec {
        let opts = format!("port={},timeo=20,retrans=3,{options}", self.port);
        MountSpec::parse(&format!("{}:/", self.addrs[0]), Some(&opts)).expect("spec")
    }

    pub async fn mount(&self, options: &str) -> Result<NfsClient, ClientError> {
        NfsClient::builder(&MountConfig::new(self.spec(options))).max_in_flight(16).mount().await
    }

    /// How many times operation `op` ("OPEN", "SEQUENCE", ...) was received.
    pub fn count(&self, op: &str) -> u64 {
        self.inner.counts.lock().expect("lock").get(op).copied().unwrap_or(0)
    }

    /// COMPOUNDs made of SEQUENCE alone (lease renewals).
    pub fn renewals(&self) -> u64 {
        self.count("SEQUENCE only")
    }

    /// Every connection is cut (the client reconnects).
    pub fn kill_connections(&self) {
        self.inner.kill.send_modify(|k| *k += 1);
    }

    /// The next `n` COMPOUNDs with READ or WRITE are executed, but their connection is cut before the
    /// reply goes out: the client must resend on its slot, and gets the cached reply.
    /// Whether replies are kept in the slots' reply caches (by default they are).
    pub fn cache_replies(&self, cached: bool) {
        self.inner.state.lock().expect("lock").uncached = !cached;
    }

    pub fn lose_replies(&self, n: u32) {
        self.inner.lose_replies.store(n, SeqCst);
    }

    /// The server restarts: clients, sessions and opens forgotten, files kept, a grace period until
    /// RECLAIM_COMPLETE, connections cut.
    pub fn restart(&self) {
        self.inner.state.lock().expect("lock").restart();
        self.kill_connections();
    }

    /// `sr_target_highest_slotid` from now on (`None`: the whole table).
    pub fn set_target(&self, target: Option<u32>) {
        self.inner.state.lock().expect("lock").target = target;
    }

    /// The contents of the file `name` at the root.
    pub fn file(&self, name: &str) -> Option<Vec<u8>> {
        let st = self.inner.state.lock().expect("lock");
        let id = st.nodes[&state::ROOT].entries.get(name)?;
        Some(st.nodes[id].data.clone())
    }

    /// Opens the server holds.
    pub fn open_count(&self) -> usize {
        self.inner.state.lock().expect("lock").opens.len()
    }

    /// The highest slot id a new request used since the last call of this, and reset.
    pub fn take_max_slot(&self) -> u32 {
        std::mem::take(&mut self.inner.state.lock().expect("lock").max_slot_seen)
    }

    /// The server forgets every client (their leases ran out): sessions and opens go with them.
    pub fn expire_clients(&self) {
        let mut st = self.inner.state.lock().expect("lock");
        let far = Instant::now() + st.lease * 2;
        st.expire(far);
    }

    /// Calls the client on its newest connection (the back channel: program 0x40000000 version 1,
    /// procedure `proc` with `args`) and returns its reply record, if one comes within 5 s.
    pub async fn call_back(&self, proc: u32, args: &[u8]) -> Option<Vec<u8>> {
        let header = onc_rpc::CallHeader::new(0x4000_0000, 1, proc, OpaqueAuth::NONE, OpaqueAuth::NONE);
        let mut w = RpcMessage::call(0xCB, header).header_writer(args.len());
        w.put_raw(args);
        let (tx, rx) = oneshot::channel();
        *self.inner.callback_reply.lock().expect("lock") = Some(tx);
        let conn = self.inner.outgoing.lock().expect("lock").last().cloned()?;
        conn.send(w.into_vec()).ok()?;
        tokio::time::timeout(Duration::from_secs(5), rx).await.ok()?.ok()
    }

    /// The session the server made last.
    pub fn sessionid(&self) -> Option<nfs4_proto::SessionId4> {
        self.inner.state.lock().expect("lock").sessions.keys().next().copied()
    }

    /// Client IDs the server holds.
    pub fn client_count(&self) -> usize {
        self.inner.state.lock().expect("lock").clients.len()
    }
}

async fn bind_all(ips: &[IpAddr], port: u16) -> Vec<TcpListener> {
    for _ in 0..20 {
        let first = TcpListener::bind(SocketAddr::new(ips[0], port)).await.expect("bind");
        let port = first.local_addr().expect("addr").port();
        let mut all = vec![first];
        for ip in &ips[1..] {
            match TcpListener::bind(SocketAddr::new(*ip, port)).await {
                Ok(l) => all.push(l),
                Err(_) => break,
            }
        }
        if all.len() == ips.len() {
            return all;
        }
    }
    panic!("no common port on {ips:?}");
}

async fn accept(listener: TcpListener, inner: Arc<Inner>) {
    while let Ok((socket, _)) = listener.accept().await {
        tokio::spawn(serve(socket, inner.clone()));
    }
}

async fn serve(mut socket: TcpStream, inner: Arc<Inner>) {
    let mut kill = inner.kill.subscribe();
    kill.borrow_and_update();
    let (out, mut calls) = mpsc::unbounded_channel();
    inner.outgoing.lock().expect("lock").push(out);
    let mut splitter = RecordSplitter::new(RecordLimits { max_record: 4 << 20, ..RecordLimits::default() });
    let mut buf = BytesMut::with_capacity(1 << 16);
    loop {
        tokio::select! {
            read = socket.read_buf(&mut buf) => {
                if !matches!(read, Ok(n) if n > 0) {
                    return;
                }
            }
            _ = kill.changed() => return,
            Some(call) = calls.recv() => {
                if socket.write_all(&frame_record(&call, MAX_FRAGMENT_LEN as usize)).await.is_err() {
                    return;
                }
                continue;
            }
        }
        while let Ok(Some(record)) = splitter.next(&mut buf) {
            // RFC 5531 §9: msg_type 1 is a REPLY — the client's answer to a callback.
            if record.get(4..8) == Some(&[0, 0, 0, 1]) {
                if let Some(tx) = inner.callback_reply.lock().expect("lock").take() {
                    let _ = tx.send(record.to_vec());
                }
                continue;
            }
            let Some((reply, lose)) = answer(&inner, &record) else { continue };
            if lose {
                return;
            }
            if socket.write_all(&frame_record(&reply, MAX_FRAGMENT_LEN as usize)).await.is_err() {
                return;
            }
        }
    }
}

/// The reply record to one call, and whether to lose it.
fn answer(inner: &Inner, record: &[u8]) -> Option<(Vec<u8>, bool)> {
    let (msg, body) = RpcMessage::decode(record).ok()?;
    let MessageBody::Call(call) = msg.body else { return None };
    let (result, names) = match call.proc {
        0 => (Vec::new(), vec!["NULL"]),
        _ => {
            let mut st = inner.state.lock().expect("lock");
            ops::compound(&mut st, &inner.cfg, body, Instant::now())
        }
    };
    let mut counts = inner.counts.lock().expect("lock");
    for name in &names {
        *counts.entry(name).or_default() += 1;
    }
    if names.as_slice() == ["SEQUENCE"] {
        *counts.entry("SEQUENCE only").or_default() += 1;
    }
    let io = names.iter().any(|n| *n == "READ" || *n == "WRITE");
    let lose = io && inner.lose_replies.fetch_update(SeqCst, SeqCst, |n| n.checked_sub(1)).is_ok();
    let head = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE));
    let mut w = head.header_writer(result.len());
    w.put_raw(&result);
    Some((w.into_vec(), lose))
}
