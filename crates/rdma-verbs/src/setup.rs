//! Connection set-up with RDMA-CM: the active side (`connect`), the listener and its connection
//! requests, and the negotiation of RDMA Read depths.
//!
//! Each connection gets its own event channel (a request's id is migrated off the listener's), so a
//! [`VerbsQueuePair`] reads its own DISCONNECTED and DEVICE_REMOVAL events while it is polled.

use std::net::SocketAddr;
use std::sync::Arc;

use rdma::{BoxFuture, ConnectionInfo, Incoming, Listener, QpConfig, QueuePair, RdmaError};
use rdma_sys::rdma_cm_event_type as ev;

use crate::channel::{event_name, CmEvent, EventChannel};
use crate::cm::{CmId, ConnParam, MAX_PRIVATE_DATA};
use crate::device::{query, DeviceLimits};
use crate::qp::VerbsQueuePair;

/// How long address and route resolution may take (ms); TCG-emulated lab VMs are slow.
const RESOLVE_TIMEOUT_MS: i32 = 10_000;
/// Connection requests queued at a listener before RDMA-CM refuses more.
const LISTEN_BACKLOG: i32 = 128;

/// The Read depths we offer: ours, within what the device allows and (accepting) what the peer serves.
pub(crate) fn negotiate(config: &QpConfig, limits: &DeviceLimits, peer_responder_resources: Option<u8>) -> (u8, u8) {
    let mut initiator_depth = config.initiator_depth.min(limits.max_initiator_depth);
    if let Some(peer) = peer_responder_resources {
        initiator_depth = initiator_depth.min(peer);
    }
    (initiator_depth, config.responder_resources.min(limits.max_responder_resources))
}

/// Checks a configuration against the device before anything is created.
pub(crate) fn check_config(config: &QpConfig, limits: &DeviceLimits) -> Result<(), RdmaError> {
    let fits = |n: u32| n >= 1 && n <= limits.max_qp_wr;
    let entries = u64::from(config.max_send) + u64::from(config.max_recv);
    if !fits(config.max_send) || !fits(config.max_recv) || entries > u64::from(limits.max_cqe) || config.recv_size == 0
    {
        return Err(RdmaError::Invalid(format!(
            "queue sizes (send {}, receive {}, receive size {}) outside the device's limits ({} work requests, {} CQ entries)",
            config.max_send, config.max_recv, config.recv_size, limits.max_qp_wr, limits.max_cqe
        )));
    }
    Ok(())
}

fn check_private_data(private_data: &[u8]) -> Result<(), RdmaError> {
    if private_data.len() > MAX_PRIVATE_DATA {
        return Err(RdmaError::Invalid(format!(
            "{} bytes of private data; RDMA-CM carries at most {MAX_PRIVATE_DATA}",
            private_data.len()
        )));
    }
    Ok(())
}

/// Waits for `want` on `channel`; any other event fails the set-up (what it means is in the error).
async fn expect(channel: &Arc<EventChannel>, want: u32, addr: SocketAddr) -> Result<CmEvent, RdmaError> {
    let event = channel.next_event().await.map_err(|e| RdmaError::io("rdma_get_cm_event", e))?;
    if event.kind == want {
        return Ok(event);
    }
    let errno = std::io::Error::from_raw_os_error(event.status.saturating_abs());
    Err(match event.kind {
        ev::RDMA_CM_EVENT_REJECTED => RdmaError::Refused {
            addr: addr.to_string(),
            reason: Some(match event.status {
                8 => "nothing listens there (invalid service id)".to_string(),
                28 => "rejected by the peer".to_string(),
                reason => format!("rejected (InfiniBand CM reason {reason})"),
            }),
        },
        ev::RDMA_CM_EVENT_UNREACHABLE | ev::RDMA_CM_EVENT_CONNECT_ERROR => {
            RdmaError::Refused { addr: addr.to_string(), reason: Some(format!("{}: {errno}", event.name())) }
        }
        ev::RDMA_CM_EVENT_ADDR_ERROR => RdmaError::io("rdma_resolve_addr (no RDMA device reaches it?)", errno),
        ev::RDMA_CM_EVENT_ROUTE_ERROR => RdmaError::io("rdma_resolve_route", errno),
        ev::RDMA_CM_EVENT_DISCONNECTED | ev::RDMA_CM_EVENT_DEVICE_REMOVAL => RdmaError::Disconnected,
        other => RdmaError::Invalid(format!("unexpected {} while waiting for {}", event_name(other), event_name(want))),
    })
}

/// The active side: resolve, create the QP, connect with `private_data`, wait for ESTABLISHED.
pub(crate) async fn connect(
    addr: SocketAddr,
    config: QpConfig,
    private_data: &[u8],
) -> Result<Box<dyn QueuePair>, RdmaError> {
    check_private_data(private_data)?;
    let channel = EventChannel::new()?;
    let id = CmId::create(&channel)?;
    id.resolve_addr(addr, RESOLVE_TIMEOUT_MS)?;
    expect(&channel, ev::RDMA_CM_EVENT_ADDR_RESOLVED, addr).await?;
    id.resolve_route(RESOLVE_TIMEOUT_MS)?;
    expect(&channel, ev::RDMA_CM_EVENT_ROUTE_RESOLVED, addr).await?;
    let device = query_device(&id)?;
    check_config(&config, &device.1)?;
    let id = Arc::new(id);
    let qp = VerbsQueuePair::create(id.clone(), config, &device.1, placeholder_info(&device.0))?;
    let (initiator_depth, responder_resources) = negotiate(&config, &device.1, None);
    id.connect(&ConnParam { private_data: private_data.to_vec(), initiator_depth, responder_resources })?;
    let established = expect(&channel, ev::RDMA_CM_EVENT_ESTABLISHED, addr).await?;
    let info = ConnectionInfo {
        provider: format!("verbs {}", device.0),
        local: id.local_addr(),
        peer: id.peer_addr().or(Some(addr)),
        initiator_depth: initiator_depth.min(established.initiator_depth),
        peer_private_data: established.private_data,
    };
    qp.established(info)?;
    Ok(Box::new(qp))
}

fn query_device(id: &CmId) -> Result<(String, DeviceLimits), RdmaError> {
    let info = query(id)?;
    Ok((info.name, info.limits))
}

fn placeholder_info(device: &str) -> ConnectionInfo {
    ConnectionInfo {
        provider: format!("verbs {device}"),
        local: None,
        peer: None,
        peer_private_data: Vec::new(),
        initiator_depth: 0,
    }
}

/// A listening RDMA-CM id.
#[derive(Debug)]
pub struct VerbsListener {
    id: CmId,
    local: SocketAddr,
}

pub(crate) fn listen(addr: SocketAddr) -> Result<VerbsListener, RdmaError> {
    let channel = EventChannel::new()?;
    let id = CmId::create(&channel)?;
    id.bind(addr)?;
    id.listen(LISTEN_BACKLOG)?;
    let local = id.local_addr().unwrap_or(addr);
    Ok(VerbsListener { id, local })
}

impl Listener for VerbsListener {
    fn local_addr(&self) -> SocketAddr {
        self.local
    }

    fn accept(&mut self) -> BoxFuture<'_, Result<Box<dyn Incoming>, RdmaError>> {
        Box::pin(async move {
            loop {
                let event = self.id.channel().next_event().await.map_err(|e| RdmaError::io("rdma_get_cm_event", e))?;
                match (event.kind, event.new_id) {
                    (ev::RDMA_CM_EVENT_CONNECT_REQUEST, Some(mut id)) => {
                        // Its own channel, so the connection reads its own events from now on.
                        let moved = EventChannel::new().and_then(|channel| id.migrate(channel));
                        if let Err(e) = moved {
                            tracing::warn!("refusing a connection request: {e}");
                            id.reject();
                            continue;
                        }
                        return Ok(Box::new(VerbsIncoming {
                            peer: id.peer_addr(),
                            local: id.local_addr(),
                            id: Some(id),
                            private_data: event.private_data,
                            // The request's initiator depth field is the peer's responder resources
                            // seen from our side (RDMA-CM swaps them).
                            peer_responder_resources: event.initiator_depth,
                        }) as Box<dyn Incoming>);
                    }
                    (ev::RDMA_CM_EVENT_DEVICE_REMOVAL, _) if event.id_key == self.id.key() => {
                        return Err(RdmaError::Unavailable("the RDMA device under the listener was removed".into()));
                    }
                    (kind, _) => tracing::debug!("listener ignores {} (status {})", event_name(kind), event.status),
                }
            }
        })
    }
}

/// A connection request, not yet answered; rejected if dropped unanswered.
#[derive(Debug)]
pub struct VerbsIncoming {
    id: Option<CmId>,
    peer: Option<SocketAddr>,
    local: Option<SocketAddr>,
    private_data: Vec<u8>,
    peer_responder_resources: u8,
}

impl Drop for VerbsIncoming {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            id.reject();
        }
    }
}

impl VerbsIncoming {
    fn answer(
        mut self,
        config: QpConfig,
        private_data: &[u8],
        recvs: u32,
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        let private_data = private_data.to_vec();
        let id = self.id.take();
        let (peer, local) = (self.peer, self.local);
        let peer_private_data = std::mem::take(&mut self.private_data);
        let peer_responder_resources = self.peer_responder_resources;
        Box::pin(async move {
            let id = id.ok_or_else(|| RdmaError::Invalid("connection request already answered".into()))?;
            let refuse = |e: RdmaError| {
                id.reject();
                e
            };
            check_private_data(&private_data).map_err(refuse)?;
            let device = query_device(&id).map_err(refuse)?;
            check_config(&config, &device.1).map_err(refuse)?;
            let id = Arc::new(id);
            let addr = peer.unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)));
            let qp = VerbsQueuePair::create(id.clone(), config, &device.1, placeholder_info(&device.0))
                .inspect_err(|_| id.reject())?;
            let (initiator_depth, responder_resources) = negotiate(&config, &device.1, Some(peer_responder_resources));
            let info = ConnectionInfo {
                provider: format!("verbs {}", device.0),
                local,
                peer,
                peer_private_data,
                initiator_depth,
            };
            qp.established(info).inspect_err(|_| id.reject())?;
            // Receives go up before the peer can send (knfsd does the same; RFC 8166 §3.3.1 credits).
            rdma::QueuePair::post_recvs(&qp, recvs).inspect_err(|_| id.reject())?;
            qp.id().accept(&ConnParam { private_data, initiator_depth, responder_resources })?;
            expect(qp.id().channel(), ev::RDMA_CM_EVENT_ESTABLISHED, addr).await?;
            Ok(Box::new(qp) as Box<dyn QueuePair>)
        })
    }
}

impl Incoming for VerbsIncoming {
    fn peer_addr(&self) -> Option<SocketAddr> {
        self.peer
    }

    fn private_data(&self) -> &[u8] {
        &self.private_data
    }

    fn peer_responder_resources(&self) -> u8 {
        self.peer_responder_resources
    }

    fn accept(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        (*self).answer(config, private_data, 0)
    }

    fn accept_with_recvs(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
        recvs: u32,
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        (*self).answer(config, private_data, recvs)
    }

    fn reject(mut self: Box<Self>) {
        if let Some(id) = self.id.take() {
            id.reject();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RXE: DeviceLimits = DeviceLimits {
        max_qp_wr: 1 << 20,
        max_cqe: 1 << 20,
        max_responder_resources: 128,
        max_initiator_depth: 128,
        max_sge: 32,
        memory_windows: true,
    };

    #[test]
    fn read_depths_stay_within_device_and_peer() {
        let config = QpConfig { initiator_depth: 16, responder_resources: 200, ..QpConfig::default() };
        assert_eq!(negotiate(&config, &RXE, None), (16, 128));
        // The Linux client offers no responder resources... or few: we never exceed them.
        assert_eq!(negotiate(&config, &RXE, Some(4)), (4, 128));
        assert_eq!(negotiate(&config, &RXE, Some(0)), (0, 128));
    }

    #[test]
    fn configurations_beyond_the_device_are_refused() {
        assert!(check_config(&QpConfig::default(), &RXE).is_ok());
        let small = DeviceLimits { max_qp_wr: 64, ..RXE };
        assert!(matches!(check_config(&QpConfig::default(), &small), Err(RdmaError::Invalid(_))));
        assert!(check_config(&QpConfig { max_recv: 0, ..QpConfig::default() }, &RXE).is_err());
        assert!(check_config(&QpConfig { recv_size: 0, ..QpConfig::default() }, &RXE).is_err());
    }

    #[test]
    fn private_data_past_the_rdma_cm_limit_is_refused() {
        assert!(check_private_data(&[0; 56]).is_ok());
        assert!(matches!(check_private_data(&[0; 57]), Err(RdmaError::Invalid(_))));
    }
}
