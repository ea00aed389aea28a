//! The reader's reply coalescing against a scripted server on a loopback socket: the mark is raised
//! only with many calls outstanding, and a reply that leaves the bytes queued short of it (a dropped
//! reply, a server that stopped) is still delivered, after the bounded wait.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use onc_rpc::{record_marker, RecordLimits};
use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

use super::coalesce::Coalescer;
use super::connection::{Connection, Shared};
use super::lowat::LowWater;
use super::reader;
use super::writer::Batch;
use crate::responsiveness::Responsiveness;
use crate::retransmit::RetransmitPolicy;
use crate::transport::{reply_channel, Callbacks, ReplyReceiver, RpcCall};

/// Bytes of each scripted reply record: a 4 KiB READ's.
const REPLY_LEN: usize = 4196;
/// Longer than any bounded wait by far: reaching it means a reply was held indefinitely.
const STUCK: Duration = Duration::from_secs(10);

/// The client's read half, recording every low-water mark the reader sets.
struct Recording {
    inner: OwnedReadHalf,
    marks: Arc<Mutex<Vec<usize>>>,
}

impl AsyncRead for Recording {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl LowWater for Recording {
    fn set_low_water(&self, bytes: usize) -> io::Result<()> {
        self.marks.lock().unwrap_or_else(PoisonError::into_inner).push(bytes);
        self.inner.set_low_water(bytes)
    }

    fn recv_buffer(&self) -> io::Result<usize> {
        self.inner.recv_buffer()
    }
}

struct Rig {
    conn: Arc<Connection>,
    /// The server's end of the connection.
    server: TcpStream,
    marks: Arc<Mutex<Vec<usize>>>,
    /// The client's write half, unused (calls are registered, not sent) but kept open.
    _client_writes: OwnedWriteHalf,
}

impl Rig {
    /// A connection slot with a reader (coalescing on) on a fresh loopback connection.
    async fn start() -> Rig {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr: SocketAddr = listener.local_addr().expect("address");
        let (client, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
        let (read_half, write_half) = client.expect("connect").into_split();
        let (server, _) = accepted.expect("accept");
        // Calls are never retransmitted here: only the bounded wait can deliver a held reply.
        let policy = RetransmitPolicy { timeo: Duration::from_secs(600), retrans: 2, hard: true };
        let shared = Arc::new(Shared {
            policy,
            limits: RecordLimits { max_record: 1 << 20, ..RecordLimits::default() },
            responsiveness: Responsiveness::default(),
            link: None,
            callbacks: Arc::new(Callbacks::default()),
        });
        let conn = Arc::new(Connection::new(0, addr, shared));
        conn.connected(None);
        let marks = Arc::new(Mutex::new(Vec::new()));
        let socket = Recording { inner: read_half, marks: Arc::clone(&marks) };
        tokio::spawn(reader::run_with(Arc::clone(&conn), socket, Coalescer::new(true)));
        Rig { conn, server, marks, _client_writes: write_half }
    }

    /// A rig with calls 1 to 32 outstanding and the first 16 answered and delivered: 16 still
    /// outstanding, enough for the reader to raise its mark. The receivers of calls 17 to 32.
    async fn sixteen_of_thirty_two_answered() -> (Rig, Vec<ReplyReceiver>) {
        let mut rig = Rig::start().await;
        let mut receivers = rig.calls(1, 32);
        rig.answer(1..=16).await;
        for rx in receivers.drain(..16) {
            delivered(rx).await;
        }
        (rig, receivers)
    }

    /// Calls `first..first + n`, registered and marked sent (their bytes are not needed here).
    fn calls(&self, first: u32, n: u32) -> Vec<ReplyReceiver> {
        let receivers = (first..first + n)
            .map(|xid| {
                let (tx, rx) = reply_channel();
                let call = RpcCall {
                    xid,
                    proc: "READ",
                    inline: vec![0; 8],
                    payload: None,
                    reply_payload: 4096,
                    reply_len: None,
                };
                self.conn.submit(call, tx);
                rx
            })
            .collect();
        self.conn.take_queued(&mut Batch::default());
        receivers
    }

    /// The server answers `xids`, in one write.
    async fn answer(&mut self, xids: impl IntoIterator<Item = u32>) {
        let mut wire = Vec::new();
        for xid in xids {
            wire.extend(record_marker(REPLY_LEN as u32, true));
            let start = wire.len();
            wire.resize(start + REPLY_LEN, 0);
            wire[start..start + 4].copy_from_slice(&xid.to_be_bytes());
            wire[start + 4..start + 8].copy_from_slice(&1u32.to_be_bytes()); // REPLY
        }
        self.server.write_all(&wire).await.expect("server write");
    }

    fn marks(&self) -> Vec<usize> {
        self.marks.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

async fn delivered(rx: ReplyReceiver) {
    let reply = tokio::time::timeout(STUCK, rx.wait("READ")).await.expect("the reply is held indefinitely");
    reply.expect("a reply");
}

#[tokio::test]
async fn one_call_at_a_time_never_raises_the_mark() {
    let mut rig = Rig::start().await;
    for xid in 1..=40 {
        let rx = rig.calls(xid, 1).pop().expect("one call");
        rig.answer([xid]).await;
        delivered(rx).await;
    }
    assert_eq!(rig.marks(), Vec::<usize>::new());
}

#[tokio::test]
async fn a_reply_short_of_a_raised_mark_is_delivered_after_the_bounded_wait() {
    let (mut rig, mut receivers) = Rig::sixteen_of_thirty_two_answered().await;
    // 16 calls outstanding: the reader now waits for several replies' bytes.
    let raised = rig.marks();
    assert!(raised.last().is_some_and(|&m| m > REPLY_LEN), "marks set: {raised:?}");
    // One more reply, then silence (the others dropped, or the server stalled): it still comes.
    rig.answer([17]).await;
    delivered(receivers.remove(0)).await;
    assert_eq!(rig.marks().last(), Some(&1), "the bounded wait ran out and lowered the mark");
    assert_eq!(rig.conn.info().in_flight, 15);
}

#[tokio::test]
async fn replies_to_every_outstanding_call_arrive_when_the_mark_is_raised() {
    let (mut rig, receivers) = Rig::sixteen_of_thirty_two_answered().await;
    assert!(rig.marks().last().is_some_and(|&m| m > 1));
    // The rest one at a time, as a server that answers calls singly: none is left behind.
    for (xid, rx) in (17..=32).zip(receivers) {
        rig.answer([xid]).await;
        delivered(rx).await;
    }
    assert_eq!(rig.conn.info().in_flight, 0);
}
