//! The connecting side: dial the listener's abstract socket, send Hello with our key table, take
//! Accept (or Reject), attach to the server's table, and confirm with Ready.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use rdma::{ConnectionInfo, QpConfig, RdmaError};

use crate::establish::{self, LocalSide, Parts, HANDSHAKE_TIMEOUT};
use crate::handshake::Handshake;
use crate::hostile::PoolFault;
use crate::names;
use crate::qp::SoftQp;
use crate::sys::socket;
use crate::NAME;

fn refused(addr: SocketAddr, reason: Option<String>) -> RdmaError {
    RdmaError::Refused { addr: addr.to_string(), reason }
}

/// Connects a socket to the listener for `addr` (or a wildcard listener of its port). A full backlog
/// is waited out for as long as a handshake may take.
async fn dial(addr: SocketAddr) -> Result<OwnedFd, RdmaError> {
    let started = Instant::now();
    'retry: loop {
        for candidate in names::dial_candidates(addr) {
            let fd = socket::seqpacket().map_err(|e| RdmaError::io("creating a socket", e))?;
            match socket::connect(fd.as_fd(), &names::socket_name(candidate)) {
                Ok(()) => return Ok(fd),
                Err(e) if e.raw_os_error() == Some(libc::ECONNREFUSED) => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && started.elapsed() < HANDSHAKE_TIMEOUT => {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    continue 'retry;
                }
                Err(e) => return Err(RdmaError::io("connecting", e)),
            }
        }
        return Err(refused(addr, None));
    }
}

/// Makes a connection to the listener at `addr`.
pub(crate) async fn connect(addr: SocketAddr, config: QpConfig, private_data: &[u8]) -> Result<SoftQp, RdmaError> {
    connect_claiming(addr, addr.ip(), config, private_data).await
}

/// Makes a connection to the listener at `addr`, saying in the Hello that `claimed` was dialed (an
/// honest client claims `addr`'s address; tests play dishonest ones).
pub(crate) async fn connect_claiming(
    addr: SocketAddr,
    claimed: IpAddr,
    config: QpConfig,
    private_data: &[u8],
) -> Result<SoftQp, RdmaError> {
    connect_with(addr, claimed, config, private_data, None).await
}

/// Makes a connection like [`connect_claiming`], offering a faulty pool when `fault` says so (the
/// `hostile` hooks).
pub(crate) async fn connect_with(
    addr: SocketAddr,
    claimed: IpAddr,
    config: QpConfig,
    private_data: &[u8],
    fault: Option<PoolFault>,
) -> Result<SoftQp, RdmaError> {
    establish::check_config(&config, private_data)?;
    let sock = establish::async_fd(dial(addr).await?)?;
    let local = LocalSide::new(&config, fault)?;
    let hello = local.offer(&config, SocketAddr::new(claimed, addr.port()), private_data);
    establish::send(&sock, &Handshake::Hello(hello), Some(&local)).await?;
    let (accept, fds) = match establish::recv(&sock).await? {
        None => return Err(refused(addr, Some("the listener closed the connection".into()))),
        Some((Handshake::Reject(reason), _)) => return Err(refused(addr, Some(reason))),
        Some((Handshake::Accept(offer), fds)) => (offer, fds),
        Some(_) => return Err(RdmaError::Invalid("unexpected connection message from the listener".into())),
    };
    let peer_side = match establish::attach(&sock, &accept, fds, &local) {
        Ok(attached) => attached,
        Err(e) => {
            // Closing the socket tells the listener; the caller learns why.
            let reason = e.reason();
            return Err(match e {
                establish::AttachError::Permission(_) => RdmaError::Unavailable(reason),
                establish::AttachError::Invalid(_) => refused(addr, Some(reason)),
            });
        }
    };
    establish::send(&sock, &Handshake::Ready, None).await?;
    let info = ConnectionInfo {
        provider: NAME.to_string(),
        local: Some(accept.addr),
        peer: Some(addr),
        peer_private_data: accept.private_data.clone(),
        initiator_depth: config.initiator_depth.min(accept.responder_resources),
    };
    Ok(establish::build(Parts { sock, local, peer_side, config, peer: accept, info, posted: 0 }))
}
