//! A TCP proxy in front of a server: [`Proxy::kill`] cuts every connection through it (new ones are
//! still accepted), [`Proxy::silence`] swallows the server's replies.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

#[derive(Default)]
struct State {
    pipes: Mutex<Vec<JoinHandle<()>>>,
    silent: AtomicBool,
    accepted: AtomicUsize,
    peers: Mutex<Vec<SocketAddr>>,
}

pub struct Proxy {
    pub addr: SocketAddr,
    state: Arc<State>,
    accept: JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let state = Arc::new(State::default());
        let shared = Arc::clone(&state);
        let accept = tokio::spawn(async move {
            while let Ok((client, peer)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(upstream).await else { continue };
                shared.accepted.fetch_add(1, Ordering::SeqCst);
                shared.peers.lock().expect("lock").push(peer);
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                let up = tokio::spawn(pipe(cr, sw, None));
                let down = tokio::spawn(pipe(sr, cw, Some(Arc::clone(&shared))));
                shared.pipes.lock().expect("lock").extend([up, down]);
            }
        });
        Proxy { addr, state, accept }
    }

    /// Closes every connection through the proxy, both sides.
    pub fn kill(&self) {
        for pipe in self.state.pipes.lock().expect("lock").drain(..) {
            pipe.abort();
        }
    }

    /// While on, bytes from the server are read and dropped.
    pub fn silence(&self, on: bool) {
        self.state.silent.store(on, Ordering::SeqCst);
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.state.accepted.load(Ordering::SeqCst)
    }

    /// The clients' addresses of the connections accepted so far.
    pub fn peers(&self) -> Vec<SocketAddr> {
        self.state.peers.lock().expect("lock").clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.kill();
    }
}

async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    silenced_by: Option<Arc<State>>,
) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if silenced_by.as_ref().is_some_and(|s| s.silent.load(Ordering::SeqCst)) {
            continue;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}
