//! The listening side: an abstract-namespace SOCK_SEQPACKET listener per address; each accepted
//! socket's Hello is read by a task of its own (a silent client cannot hold up the others), then the
//! request is handed out as an [`rdma::Incoming`] to accept with our key table or reject.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, OwnedFd};

use rdma::{BoxFuture, ConnectionInfo, Incoming, Listener, QpConfig, QueuePair, RdmaError};
use tokio::task::JoinSet;

use crate::establish::{self, AttachError, LocalSide, Parts, Socket};
use crate::handshake::{Handshake, Offer};
use crate::names;
use crate::sys::socket;
use crate::NAME;

/// Attempts at a random free port for `listen` on port 0.
const PORT_ATTEMPTS: u64 = 1024;

/// A soft listener.
pub(crate) struct SoftListener {
    sock: Socket,
    addr: SocketAddr,
    handshakes: JoinSet<Result<SoftIncoming, RdmaError>>,
}

impl fmt::Debug for SoftListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SoftListener").field("addr", &self.addr).field("handshakes", &self.handshakes.len()).finish()
    }
}

impl SoftListener {
    pub(crate) fn bind(addr: SocketAddr) -> Result<SoftListener, RdmaError> {
        let fd = socket::seqpacket().map_err(|e| RdmaError::io("creating a socket", e))?;
        let bound = if addr.port() != 0 {
            socket::bind(fd.as_fd(), &names::socket_name(addr)).map(|()| addr)
        } else {
            pick_port(&fd, addr)
        };
        let addr = bound.map_err(|e| RdmaError::io("binding the listener", e))?;
        socket::listen(fd.as_fd()).map_err(|e| RdmaError::io("listening", e))?;
        Ok(SoftListener { sock: establish::async_fd(fd)?, addr, handshakes: JoinSet::new() })
    }

    fn accept_socket(&self) -> Option<io::Result<OwnedFd>> {
        match socket::accept(self.sock.get_ref().as_fd()) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => None,
            other => Some(other),
        }
    }
}

/// Binds the first free random port of the ephemeral range.
fn pick_port(fd: &OwnedFd, addr: SocketAddr) -> io::Result<SocketAddr> {
    for _ in 0..PORT_ATTEMPTS {
        let candidate = SocketAddr::new(addr.ip(), names::random_port());
        match socket::bind(fd.as_fd(), &names::socket_name(candidate)) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.raw_os_error() == Some(libc::EADDRINUSE) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from_raw_os_error(libc::EADDRINUSE))
}

/// Reads a new socket's Hello; refuses a client whose claimed address no local process could have
/// (see [`names::peer_address`]).
async fn handshake(sock: OwnedFd, local: SocketAddr) -> Result<SoftIncoming, RdmaError> {
    let sock = establish::async_fd(sock)?;
    match establish::recv(&sock).await? {
        Some((Handshake::Hello(hello), fds)) => {
            let cred = socket::peer_cred(sock.get_ref().as_fd()).map_err(|e| RdmaError::io("SO_PEERCRED", e))?;
            // A client's identity for access rules comes from the kernel, never from the client.
            let ip = match names::peer_address(local.ip(), hello.addr.ip(), &names::is_local_address) {
                Ok(ip) => ip,
                Err(refused) => {
                    let why = refused.to_string();
                    establish::send(&sock, &Handshake::Reject(why.clone()), None).await?;
                    return Err(RdmaError::Invalid(format!("{why} (process {}, uid {})", cred.pid, cred.uid)));
                }
            };
            let peer = SocketAddr::new(ip, names::connection_port());
            tracing::debug!(%peer, pid = cred.pid, uid = cred.uid, "soft RDMA connection request");
            Ok(SoftIncoming { sock, hello, fds, local, peer })
        }
        None => Err(RdmaError::Disconnected),
        Some(_) => Err(RdmaError::Invalid("expected a connection request".into())),
    }
}

impl Listener for SoftListener {
    fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    fn accept(&mut self) -> BoxFuture<'_, Result<Box<dyn Incoming>, RdmaError>> {
        Box::pin(async move {
            loop {
                tokio::select! {
                    ready = self.sock.readable() => {
                        let mut guard = ready.map_err(|e| RdmaError::io("listener", e))?;
                        match self.accept_socket() {
                            None => guard.clear_ready(),
                            Some(Ok(sock)) => {
                                self.handshakes.spawn(handshake(sock, self.addr));
                            }
                            Some(Err(e)) => return Err(RdmaError::io("accepting", e)),
                        }
                    }
                    Some(done) = self.handshakes.join_next(), if !self.handshakes.is_empty() => {
                        match done {
                            Ok(Ok(incoming)) => return Ok(Box::new(incoming) as Box<dyn Incoming>),
                            Ok(Err(e)) => tracing::debug!("soft RDMA connection request dropped: {e}"),
                            Err(e) => tracing::debug!("soft RDMA handshake task ended: {e}"),
                        }
                    }
                }
            }
        })
    }
}

/// A connection request whose Hello has arrived.
pub(crate) struct SoftIncoming {
    sock: Socket,
    hello: Offer,
    fds: Vec<OwnedFd>,
    local: SocketAddr,
    peer: SocketAddr,
}

impl fmt::Debug for SoftIncoming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SoftIncoming").field("peer", &self.peer).field("hello", &self.hello).finish()
    }
}

impl SoftIncoming {
    async fn establish(
        self,
        config: QpConfig,
        private_data: Vec<u8>,
        recvs: u32,
    ) -> Result<Box<dyn QueuePair>, RdmaError> {
        establish::check_config(&config, &private_data)?;
        if recvs > config.max_recv {
            return Err(RdmaError::QueueFull { queue: "receive", depth: config.max_recv });
        }
        let SoftIncoming { sock, hello, fds, local: listener_addr, peer } = self;
        let local = LocalSide::new(&config, None)?;
        let peer_side = match establish::attach(&sock, &hello, fds, &local) {
            Ok(attached) => attached,
            Err(e) => {
                let reason = e.reason();
                establish::send(&sock, &Handshake::Reject(reason.clone()), None).await?;
                return Err(match e {
                    AttachError::Permission(_) => RdmaError::Unavailable(reason),
                    AttachError::Invalid(_) => RdmaError::Invalid(reason),
                });
            }
        };
        // Receives posted before the Accept leaves: the client may send the moment it is established.
        local.table.publish_posted(u64::from(recvs));
        let accept = local.offer(&config, peer, &private_data);
        establish::send(&sock, &Handshake::Accept(accept), Some(&local)).await?;
        match establish::recv(&sock).await? {
            Some((Handshake::Ready, _)) => {}
            None => return Err(RdmaError::Disconnected),
            Some(_) => return Err(RdmaError::Invalid("expected the client's ready message".into())),
        }
        let info = ConnectionInfo {
            provider: NAME.to_string(),
            local: Some(listener_addr),
            peer: Some(peer),
            peer_private_data: hello.private_data.clone(),
            initiator_depth: config.initiator_depth.min(hello.responder_resources),
        };
        let posted = u64::from(recvs);
        Ok(Box::new(establish::build(Parts { sock, local, peer_side, config, peer: hello, info, posted })))
    }
}

impl Incoming for SoftIncoming {
    fn peer_addr(&self) -> Option<SocketAddr> {
        Some(self.peer)
    }

    fn private_data(&self) -> &[u8] {
        &self.hello.private_data
    }

    fn peer_responder_resources(&self) -> u8 {
        self.hello.responder_resources
    }

    fn accept(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        Box::pin(self.establish(config, private_data.to_vec(), 0))
    }

    fn accept_with_recvs(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
        recvs: u32,
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        Box::pin(self.establish(config, private_data.to_vec(), recvs))
    }

    fn reject(self: Box<Self>) {
        let message = Handshake::Reject("rejected by the listener".into()).encode();
        // Best effort: a fresh socket has room for one small message; closing follows either way.
        let _ = socket::send(self.sock.get_ref().as_fd(), &[&message], &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::connect_claiming;
    use std::net::IpAddr;
    use std::time::Duration;

    /// A listener that hands every request it accepts to `accepted`.
    fn serve(addr: &str) -> (SocketAddr, tokio::sync::mpsc::UnboundedReceiver<SocketAddr>) {
        let mut listener = SoftListener::bind(addr.parse().expect("addr")).expect("listen");
        let addr = listener.local_addr();
        let (tell, accepted) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(incoming) = listener.accept().await {
                let _ = tell.send(incoming.peer_addr().expect("peer"));
                tokio::spawn(incoming.accept(QpConfig::default(), b""));
            }
        });
        (addr, accepted)
    }

    #[tokio::test]
    async fn a_hello_claiming_an_address_of_no_local_process_is_refused_and_never_a_peer() {
        let claimed: IpAddr = "10.9.9.9".parse().expect("ip");
        if names::is_local_address(claimed) {
            return; // This host really has the address: a local process may claim it.
        }
        let (wildcard, mut accepted) = serve("0.0.0.0:0");
        let target = SocketAddr::new("127.0.0.1".parse().expect("ip"), wildcard.port());
        let lie = connect_claiming(target, claimed, QpConfig::default(), b"").await.expect_err("refused");
        assert!(matches!(&lie, RdmaError::Refused { reason: Some(why), .. } if why.contains("10.9.9.9")), "{lie}");
        // The same client telling the truth is known by the address it dialed.
        let qp = connect_claiming(target, target.ip(), QpConfig::default(), b"").await.expect("honest");
        let peer = tokio::time::timeout(Duration::from_secs(10), accepted.recv()).await.expect("in time");
        assert_eq!(peer.map(|p| p.ip()), Some(target.ip()), "the refused claim was never handed out");
        assert_eq!(qp.info.local.map(|a| a.ip()), Some(target.ip()));
        // A listener bound to one address takes no claim of another, local or not.
        let (one, _accepted) = serve("127.0.0.1:0");
        let other = connect_claiming(one, "127.0.0.2".parse().expect("ip"), QpConfig::default(), b"").await;
        assert!(matches!(other, Err(RdmaError::Refused { .. })), "{other:?}");
    }
}
