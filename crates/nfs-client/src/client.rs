//! [`NfsClient`]: mounting (port mapper, MOUNT, connections, FSINFO), unmounting, and what a mount
//! reports about itself. The procedures are in `procedures.rs`.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use mount_options::{kernel_io_size, MountSpec, Proto, NFS_RDMA_PORT};
use nfs3_proto::{MOUNT_PROGRAM, MOUNT_V3, NFS_PROGRAM, NFS_V3};

use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::mount;
use crate::rdma::{RdmaConfig, RdmaTransport};
use crate::retransmit::RetransmitPolicy;
use crate::tcp::{TcpOptions, TcpTransport, REPLY_HEADROOM};
use crate::transport::RpcTransport;
use crate::types::{ClientStats, ConnectionInfo, FileHandle};

/// A mounted NFSv3 export. Cheap to clone (an `Arc` inside); clones share the connections. Dropping
/// the last clone closes the connections (calls still outstanding then fail with `Closed`); call
/// [`unmount`](Self::unmount) to tell the server too.
#[derive(Debug, Clone)]
pub struct NfsClient {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) transport: Box<dyn RpcTransport>,
    pub(crate) encoder: CallEncoder,
    pub(crate) root: FileHandle,
    pub(crate) rsize: AtomicU32,
    pub(crate) wsize: AtomicU32,
    /// Where MOUNT answered, for UMNT.
    mount_addr: SocketAddr,
    export: String,
    exchange_timeout: Duration,
    unmounted: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The signal is given by the call; nobody is left to wait for the tasks.
        drop(self.transport.shutdown());
    }
}

/// Bound on each MOUNT / port mapper exchange: `timeo`, within 1 s ..= 60 s.
fn exchange_timeout(timeo: Duration) -> Duration {
    timeo.clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// A port given in the options (0 means "ask the port mapper", as with mount.nfs), or the port mapper's.
async fn port_of(given: Option<u16>, pmap: SocketAddr, prog: u32, vers: u32, t: Duration) -> Result<u16, ClientError> {
    match given {
        Some(port) if port != 0 => Ok(port),
        _ => mount::getport(pmap, prog, vers, t).await,
    }
}

/// The size the Linux client uses: what was asked, lowered to the server's maximum (FSINFO
/// `rtmax`/`wtmax`, RFC 1813 §3.3.19) rounded like `nfs_io_size` but never above that maximum.
fn negotiated(requested: u32, server_max: u32) -> u32 {
    if server_max == 0 || requested <= server_max {
        requested.max(1)
    } else {
        kernel_io_size(server_max).min(server_max).max(1)
    }
}

/// The connections of a mount: TCP (through `link` when one is given), or RPC-over-RDMA over the
/// provider of `rdma`.
async fn connect_transport(
    spec: &MountSpec,
    addrs: &[SocketAddr],
    rdma: Option<&RdmaConfig>,
    link: Option<Arc<wan::Link>>,
) -> Result<Box<dyn RpcTransport>, ClientError> {
    let retransmit = RetransmitPolicy::of(spec);
    match rdma {
        None => {
            let options = TcpOptions { retransmit, max_record: spec.rsize as usize + REPLY_HEADROOM };
            Ok(Box::new(TcpTransport::connect_over(addrs, options, link).await?))
        }
        Some(config) => Ok(Box::new(RdmaTransport::connect(addrs, config, retransmit).await?)),
    }
}

/// Refuses what this client does not do, before anything is sent.
pub(crate) fn refuse_unsupported(spec: &MountSpec) -> Result<(), ClientError> {
    if spec.vers.is_v4() {
        return Err(ClientError::Unsupported(format!("vers={}: only NFSv3 is implemented", spec.vers)));
    }
    if spec.mountproto == Proto::Rdma {
        return Err(ClientError::Unsupported("mountproto=rdma: MOUNT goes over TCP".into()));
    }
    Ok(())
}

impl NfsClient {
    /// Mounts `spec` (see [`MountBuilder::mount`](crate::MountBuilder::mount)): over RPC-over-RDMA when
    /// `rdma` is given (checked by the builder: `proto=rdma`, validated), else over TCP through `link`.
    pub(crate) async fn mount(
        spec: &MountSpec,
        rdma: Option<RdmaConfig>,
        link: Option<Arc<wan::Link>>,
    ) -> Result<NfsClient, ClientError> {
        refuse_unsupported(spec)?;
        let ips: Vec<IpAddr> = spec.connection_addrs()?;
        let Some(&first) = ips.first() else {
            return Err(ClientError::Unsupported("nconnect=0: a mount needs at least one connection".into()));
        };
        let t = exchange_timeout(spec.timeo);
        let pmap = SocketAddr::new(first, spec.portmapper_port);
        let nfs_port = match rdma {
            None => port_of(spec.port, pmap, NFS_PROGRAM, NFS_V3, t).await?,
            // The port mapper only knows TCP registrations here: rdma uses the port given, or 20049.
            Some(_) => spec.port.filter(|&p| p != 0).unwrap_or(NFS_RDMA_PORT),
        };
        let mount_port = port_of(spec.mountport, pmap, MOUNT_PROGRAM, MOUNT_V3, t).await?;
        let encoder = CallEncoder::new(spec.uid, spec.gid);
        let mount_addr = SocketAddr::new(first, mount_port);
        let root = mount::mnt(mount_addr, &spec.export, &encoder, t).await?;

        let addrs: Vec<SocketAddr> = ips.iter().map(|&ip| SocketAddr::new(ip, nfs_port)).collect();
        let transport = connect_transport(spec, &addrs, rdma.as_ref(), link).await?;
        let client = NfsClient {
            inner: Arc::new(Inner {
                transport,
                encoder,
                root,
                rsize: AtomicU32::new(spec.rsize.max(1)),
                wsize: AtomicU32::new(spec.wsize.max(1)),
                mount_addr,
                export: spec.export.clone(),
                exchange_timeout: t,
                unmounted: AtomicBool::new(false),
            }),
        };
        let info = client.fsinfo(&client.inner.root).await?;
        client.inner.rsize.store(negotiated(spec.rsize, info.rtmax), Relaxed);
        client.inner.wsize.store(negotiated(spec.wsize, info.wtmax), Relaxed);
        tracing::debug!(export = %spec.export, ?addrs, rsize = client.rsize(), wsize = client.wsize(), "mounted");
        Ok(client)
    }

    /// The export's root handle (from MNT).
    pub fn root(&self) -> &FileHandle {
        &self.inner.root
    }

    /// Largest READ: `min(rsize option, server rtmax)`.
    pub fn rsize(&self) -> u32 {
        self.inner.rsize.load(Relaxed)
    }

    /// Largest WRITE: `min(wsize option, server wtmax)`.
    pub fn wsize(&self) -> u32 {
        self.inner.wsize.load(Relaxed)
    }

    /// Per connection: addresses, state and counters.
    pub fn connections(&self) -> Vec<ConnectionInfo> {
        self.inner.transport.connections()
    }

    /// Totals over all connections.
    pub fn stats(&self) -> ClientStats {
        self.inner.transport.stats()
    }

    /// MOUNT UMNT, then closes the connections (calls still outstanding fail with `Closed`, as do
    /// later ones, on every clone). The connections are closed even when UMNT fails; its error is
    /// returned. A second call does nothing.
    pub async fn unmount(&self) -> Result<(), ClientError> {
        if self.inner.unmounted.swap(true, Relaxed) {
            return Ok(());
        }
        let inner = &self.inner;
        let umnt = mount::umnt(inner.mount_addr, &inner.export, &inner.encoder, inner.exchange_timeout).await;
        inner.transport.shutdown().await;
        umnt
    }
}

#[cfg(test)]
mod tests {
    use super::negotiated;

    #[test]
    fn sizes_are_lowered_to_the_server_maximum_only() {
        assert_eq!(negotiated(1 << 20, 1 << 20), 1 << 20);
        assert_eq!(negotiated(65536, 1 << 20), 65536);
        assert_eq!(negotiated(1 << 20, 65536), 65536);
        assert_eq!(negotiated(1 << 20, 100_000), 98304);
        assert_eq!(negotiated(1 << 20, 0), 1 << 20);
        assert_eq!(negotiated(4096, 512), 512);
    }
}
