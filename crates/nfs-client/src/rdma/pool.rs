//! The chunk pool of one queue pair: its pool memory (registered once, [`rdma::QueuePair::pool`]) cut
//! into pieces as long as the largest chunk a call offers. A call borrows a piece per chunk and opens
//! a window on it for the server (RFC 8166 §3.4.1: the server reaches the memory for that call only);
//! when the reply is in, the window closes and the piece goes back to the pool once the provider says
//! no access by the server can still be under way ([`rdma::Window::is_idle`]): a server that keeps
//! writing into a closed window never reaches the next call's bytes.
//!
//! Pieces are handed out last-returned first, so the memory a run touches stays as small as its
//! calls in flight. A piece remembers the WRITE data last copied into it (holding those [`Bytes`], so
//! the same address means the same bytes): a WRITE of the same buffer again — a job's fill pattern,
//! sent over and over — borrows that piece without copying, and a piece the server may write loses
//! what it remembered. A chunk longer than a piece, or a call that finds every piece out, registers
//! memory of its own as before (counted by the provider's
//! [`registrations`](rdma::QueuePair::registrations)).
//!
//! READ data the server wrote is handed to the caller in place ([`Lent::into_bytes`]): the piece stays
//! out of the pool until the last handle to those bytes is dropped, so a caller that keeps READ data
//! keeps pieces, and calls beyond them register memory of their own.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
#[cfg(test)]
use rdma::RegBuf;
use rdma::{Access, MemoryRegion, QueuePair, RdmaError, RemoteSegment, Window};

/// Pieces per pool at most: the calls one queue pair can have in flight with a window each.
pub(crate) const MAX_PIECES: u32 = 64;

/// A piece for chunks of up to `chunk_size` bytes of data: room for the reply's headers too (a Reply
/// chunk carries them with the data, `rpcrdma_proto::DEFAULT_MAX_CHUNK_BYTES` is 1 MiB + 4 KiB).
pub(crate) fn piece_len(chunk_size: u32) -> usize {
    chunk_size as usize + 4096
}

/// The bytes of a pool with `pieces` pieces of `piece_len` bytes (rounded up to 4 KiB pages).
pub(crate) fn pool_bytes(piece_len: usize, pieces: u32) -> usize {
    piece_len.div_ceil(4096) * 4096 * pieces as usize
}

#[derive(Debug)]
pub(crate) struct ChunkPool {
    region: MemoryRegion,
    piece_len: usize,
    free: Mutex<Free>,
}

#[derive(Debug, Default)]
struct Free {
    /// Pieces ready to lend, the most recently returned last.
    idle: Vec<usize>,
    /// Pieces whose window is closed but which the server may still be accessing.
    closing: Vec<(usize, Window)>,
    /// Per piece: the WRITE data it holds a copy of, if any.
    holds: Vec<Option<Bytes>>,
}

impl ChunkPool {
    /// A pool over `region` (the queue pair's pool memory), in pieces of `piece_len` bytes.
    pub(crate) fn new(region: MemoryRegion, piece_len: usize) -> Arc<ChunkPool> {
        let piece_len = piece_len.div_ceil(4096) * 4096;
        let pieces = region.len().checked_div(piece_len).unwrap_or(0);
        // Lent from the end of the list: piece 0 first.
        let idle = (0..pieces).rev().collect();
        let free = Free { idle, closing: Vec::new(), holds: vec![None; pieces] };
        Arc::new(ChunkPool { region, piece_len, free: Mutex::new(free) })
    }

    fn free(&self) -> MutexGuard<'_, Free> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lends a piece for `len` bytes the server may RDMA-Write, through a window opened on `qp`.
    /// `None` when `len` is longer than a piece or every piece is out (the caller registers instead).
    pub(crate) fn lend_writable(self: &Arc<Self>, qp: &dyn QueuePair, len: usize) -> Option<Result<Lent, RdmaError>> {
        if len > self.piece_len {
            return None;
        }
        let (index, _) = self.take(None)?;
        Some(self.open(qp, index, len, Access::REMOTE_WRITE))
    }

    /// Lends a piece holding `data` for the server to RDMA-Read, copying it in unless the piece
    /// already holds these very bytes; with the number of bytes copied. `None` as for
    /// [`lend_writable`](Self::lend_writable).
    pub(crate) fn lend_filled(
        self: &Arc<Self>,
        qp: &dyn QueuePair,
        data: &Bytes,
    ) -> Option<Result<(Lent, usize), RdmaError>> {
        if data.len() > self.piece_len {
            return None;
        }
        let (index, held) = self.take(Some(data))?;
        let mut copied = 0;
        if !held {
            if let Err(e) = self.region.write_at(index * self.piece_len, data) {
                self.give_back(index);
                return Some(Err(e));
            }
            self.free().holds[index] = Some(data.clone());
            copied = data.len();
        }
        Some(self.open(qp, index, data.len(), Access::REMOTE_READ).map(|lent| (lent, copied)))
    }

    /// Takes an idle piece: for `data`, one that holds it already if there is one (and says so),
    /// else the last returned of those holding nothing, else the last returned, which forgets what
    /// it held.
    fn take(&self, data: Option<&Bytes>) -> Option<(usize, bool)> {
        let mut free = self.free();
        if free.idle.is_empty() {
            // Pieces whose late accesses have ended come back.
            let Free { idle, closing, .. } = &mut *free;
            let (done, still): (Vec<_>, Vec<_>) = closing.drain(..).partition(|(_, w)| w.is_idle());
            idle.extend(done.into_iter().map(|(index, _)| index));
            *closing = still;
        }
        let found = data.and_then(|d| free.idle.iter().rposition(|&i| holds(&free.holds[i], d)));
        // Else a piece that holds nothing, so that held data stays for its next WRITE.
        let at = found.or_else(|| free.idle.iter().rposition(|&i| free.holds[i].is_none()));
        let index = match at {
            Some(at) => free.idle.remove(at),
            None => free.idle.pop()?,
        };
        if found.is_none() {
            free.holds[index] = None;
        }
        Some((index, found.is_some()))
    }

    fn give_back(&self, index: usize) {
        self.free().idle.push(index);
    }

    fn open(self: &Arc<Self>, qp: &dyn QueuePair, index: usize, len: usize, access: Access) -> Result<Lent, RdmaError> {
        match qp.open_window(&self.region, index * self.piece_len, len, access) {
            Ok(window) => Ok(Lent { pool: Arc::clone(self), index, window: Some(window) }),
            Err(e) => {
                self.give_back(index);
                Err(e)
            }
        }
    }

    /// Pieces that can be lent now.
    #[cfg(test)]
    fn idle_pieces(&self) -> usize {
        self.free().idle.len()
    }
}

/// True when `held` is `data` itself: the same bytes at the same address, kept alive by `held`.
fn holds(held: &Option<Bytes>, data: &Bytes) -> bool {
    held.as_ref().is_some_and(|h| h.as_ptr() == data.as_ptr() && h.len() == data.len())
}

/// A piece of the pool lent to one call, with its window open until [`close`](Lent::close).
#[derive(Debug)]
pub(crate) struct Lent {
    pool: Arc<ChunkPool>,
    index: usize,
    window: Option<Window>,
}

impl Lent {
    fn window(&self) -> &Window {
        self.window.as_ref().expect("a lent piece has its window until it is dropped")
    }

    pub(crate) fn len(&self) -> usize {
        self.window().len()
    }

    /// The server's view of the whole piece as lent.
    pub(crate) fn segment(&self) -> Option<RemoteSegment> {
        let len = u32::try_from(self.len()).ok()?;
        self.window().segment(0, len)
    }

    /// Ends the server's access to the piece.
    pub(crate) fn close(&self) {
        self.window().close();
    }

    /// The first `len` bytes of the piece (what the server wrote), copied out after the window closed.
    pub(crate) fn take(&self, len: usize) -> Result<Bytes, RdmaError> {
        self.close();
        Ok(Bytes::from(self.pool.region.read_vec_at(self.index * self.pool.piece_len, len.min(self.len()))?))
    }

    /// The first `len` bytes of the piece in place after the window closed: the piece stays out of
    /// the pool until the last handle to them is dropped (copied where the provider cannot lend its
    /// memory so). For opaque data only (see [`MemoryRegion::pool_bytes`]).
    pub(crate) fn into_bytes(self, len: usize) -> Result<Bytes, RdmaError> {
        self.close();
        let (region, at, len) = (self.pool.region.clone(), self.index * self.pool.piece_len, len.min(self.len()));
        region.pool_bytes(at, len, self)
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let Some(window) = self.window.take() else { return };
        window.close();
        let mut free = self.pool.free();
        if window.is_idle() {
            free.idle.push(self.index);
        } else {
            free.closing.push((self.index, window));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rdma::{next_completions, Completion, CompletionKind, Provider, QpConfig, WcError};
    use rdma_soft::SoftProvider;

    use super::*;

    const PIECE: usize = 8192;

    /// A client queue pair with a pool of `pieces` pieces, and the server it is connected to.
    async fn pair(pieces: u32) -> (Box<dyn QueuePair>, Box<dyn QueuePair>) {
        let provider = SoftProvider::new().expect("provider");
        let mut listener = provider.listen("127.0.0.1:0".parse().expect("addr")).expect("listen");
        let addr = listener.local_addr();
        let config = QpConfig { pool_bytes: pool_bytes(PIECE, pieces), ..QpConfig::default() };
        let accepting = async {
            let incoming = listener.accept().await.expect("incoming");
            incoming.accept_with_recvs(QpConfig::default(), b"", 4).await.expect("accept")
        };
        tokio::join!(async { provider.connect(addr, config, b"").await.expect("connect") }, accepting)
    }

    async fn next(qp: &dyn QueuePair) -> Vec<Completion> {
        let mut out = Vec::new();
        let polled = tokio::time::timeout(Duration::from_secs(10), next_completions(qp, &mut out)).await;
        polled.expect("completions in time").expect("connection up");
        out
    }

    fn pool_of(qp: &dyn QueuePair) -> Arc<ChunkPool> {
        ChunkPool::new(qp.pool().expect("the queue pair has a pool"), PIECE)
    }

    #[tokio::test]
    async fn the_server_writes_into_a_lent_piece_and_the_call_reads_it_back() {
        let (client, server) = pair(4).await;
        let pool = pool_of(&*client);
        let lent = pool.lend_writable(&*client, 5000).expect("a piece").expect("window");
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let source = server.register(RegBuf::ReadOnly(Bytes::from(data.clone())), Access::NONE).expect("reg");
        server.post_write(1, &source, 0, lent.segment().expect("segment")).expect("write");
        assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Write)));
        assert_eq!(lent.take(5000).expect("copied out"), data);
    }

    #[tokio::test]
    async fn bytes_lent_in_place_keep_their_piece_out_of_the_pool_and_the_servers_key_dead() {
        let (client, server) = pair(1).await;
        let pool = pool_of(&*client);
        let lent = pool.lend_writable(&*client, 4096).expect("a piece").expect("window");
        let segment = lent.segment().expect("segment");
        let data: Vec<u8> = (0..4096u32).map(|i| (i % 253) as u8).collect();
        let source = server.register(RegBuf::ReadOnly(Bytes::from(data.clone())), Access::NONE).expect("reg");
        server.post_write(1, &source, 0, segment).expect("write");
        assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Write)));
        let copied_out = client.registrations();
        let bytes = lent.into_bytes(4096).expect("lent in place");
        assert_eq!(bytes, data);
        assert_eq!(client.registrations(), copied_out, "no registration");
        assert_eq!(pool.idle_pieces(), 0, "the piece is out while its bytes are held");
        assert!(pool.lend_writable(&*client, 64).is_none());
        // The call is over: the server's key no longer reaches the piece the bytes live in.
        server.post_write(2, &source, 0, segment).expect("posted");
        let done = next(&*server).await;
        assert!(matches!(&done[0].result, Err(WcError::RemoteAccess(_))), "{done:?}");
        assert_eq!(bytes, data, "the bytes are untouched");
        let half = bytes.slice(..2048);
        drop(bytes);
        assert_eq!(pool.idle_pieces(), 0, "a slice still holds the piece");
        drop(half);
        assert_eq!(pool.idle_pieces(), 1, "back once the last handle is gone");
    }

    #[tokio::test]
    async fn a_piece_the_server_reads_holds_the_calls_data() {
        let (client, server) = pair(1).await;
        let pool = pool_of(&*client);
        let data = Bytes::from_static(b"abc");
        let (lent, copied) = pool.lend_filled(&*client, &data).expect("a piece").expect("window");
        assert_eq!(copied, 3);
        let sink = server.register(RegBuf::Writable(vec![0; 3]), Access::LOCAL_WRITE).expect("reg");
        server.post_read(2, &sink, 0, lent.segment().expect("segment")).expect("read");
        assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Read)));
        drop(lent);
        assert_eq!(sink.into_buffer().expect("owner").into_bytes().as_ref(), b"abc");
    }

    #[tokio::test]
    async fn pieces_come_back_when_the_call_ends_and_the_last_returned_goes_out_first() {
        let (client, _server) = pair(3).await;
        let pool = pool_of(&*client);
        let registrations = client.registrations();
        let a = pool.lend_writable(&*client, PIECE).expect("a").expect("window");
        let b = pool.lend_writable(&*client, 1).expect("b").expect("window");
        let c = pool.lend_writable(&*client, 1).expect("c").expect("window");
        assert!(pool.lend_writable(&*client, 1).is_none(), "every piece is out");
        assert!(pool.lend_writable(&*client, PIECE + 1).is_none(), "longer than a piece");
        let b_at = b.segment().expect("b").offset;
        drop(b);
        let again = pool.lend_writable(&*client, 1).expect("again").expect("window");
        assert_eq!(again.segment().expect("again").offset, b_at, "the piece just returned");
        assert_ne!(again.segment().expect("again").handle, c.segment().expect("c").handle);
        drop((a, c, again));
        assert_eq!(pool.idle_pieces(), 3);
        assert_eq!(client.registrations(), registrations, "windows are not registrations");
    }

    #[tokio::test]
    async fn the_same_write_data_again_borrows_the_piece_that_holds_it_without_a_copy() {
        let (client, server) = pair(2).await;
        let pool = pool_of(&*client);
        let fill = Bytes::from(vec![3u8; 4096]);
        let other = Bytes::from(vec![4u8; 4096]);
        let (first, copied) = pool.lend_filled(&*client, &fill).expect("a piece").expect("window");
        assert_eq!(copied, 4096);
        let at = first.segment().expect("segment").offset;
        drop(first);
        let (second, copied) = pool.lend_filled(&*client, &other).expect("a piece").expect("window");
        assert_eq!(copied, 4096, "other bytes are copied");
        let (third, copied) = pool.lend_filled(&*client, &fill).expect("a piece").expect("window");
        assert_eq!((copied, third.segment().expect("segment").offset), (0, at), "the piece that holds them");
        let sink = server.register(RegBuf::Writable(vec![0; 4096]), Access::LOCAL_WRITE).expect("reg");
        server.post_read(4, &sink, 0, third.segment().expect("segment")).expect("read");
        assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Read)));
        assert_eq!(sink.into_buffer().expect("owner").into_bytes(), fill, "the server reads the held bytes");
        drop((second, third));
        // A piece lent for the server to write forgets what it held.
        let written = pool.lend_writable(&*client, 4096).expect("a piece").expect("window");
        let written_at = written.segment().expect("segment").offset;
        drop(written);
        let (again, _) = pool.lend_filled(&*client, &fill).expect("a piece").expect("window");
        let copied_again = again.segment().expect("segment").offset == written_at;
        drop(again);
        let (_, copied) = pool.lend_filled(&*client, &fill).expect("a piece").expect("window");
        assert!(copied == 0 || copied_again, "held by one piece or the other, never trusted after a write");
    }

    #[tokio::test]
    async fn a_closed_pieces_old_handle_is_refused_even_when_the_piece_is_lent_again() {
        let (client, server) = pair(1).await;
        let pool = pool_of(&*client);
        let first = pool.lend_writable(&*client, 64).expect("a piece").expect("window");
        let stale = first.segment().expect("segment");
        drop(first);
        let second = pool.lend_writable(&*client, 64).expect("the same piece").expect("window");
        assert_eq!(second.segment().expect("segment").offset, stale.offset, "the same bytes");
        let source = server.register(RegBuf::ReadOnly(Bytes::from(vec![9; 64])), Access::NONE).expect("reg");
        server.post_write(3, &source, 0, stale).expect("posted");
        let done = next(&*server).await;
        assert!(matches!(&done[0].result, Err(WcError::RemoteAccess(_))), "{done:?}");
        assert!(second.take(64).expect("copied").iter().all(|b| *b == 0), "the new call's bytes are untouched");
    }
}
