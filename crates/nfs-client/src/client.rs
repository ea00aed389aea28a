//! [`NfsClient`]: a mounted export of either version — NFSv3 ([`crate::v3`]: port mapper, MOUNT, the
//! connections, FSINFO) or NFSv4.1/4.2 ([`crate::v4`]: a session over the connections) — its
//! transfer sizes, unmounting, and what a mount reports about itself. The file calls are in
//! `procedures.rs`.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

use mount_options::{kernel_io_size, MountSpec, NfsVersion, Proto};

use crate::error::ClientError;
use crate::rdma::RdmaConfig;
use crate::types::{ClientStats, ConnectionInfo, FileHandle};
use crate::v3::V3;
use crate::v4::mount::{self as v4_mount, Mounted};
use crate::v4::session::Session;

/// A mounted export. Cheap to clone (an `Arc` inside); clones share the connections (and, over
/// NFSv4, the session and the open files). Dropping the last clone closes the connections (calls still
/// outstanding then fail with `Closed`); call [`unmount`](Self::unmount) to tell the server too.
#[derive(Debug, Clone)]
pub struct NfsClient {
    pub(crate) inner: Arc<Inner>,
}

/// The version-specific half of a mount.
#[derive(Debug)]
pub(crate) enum Protocol {
    V3(V3),
    V4(Arc<Session>),
}

#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) protocol: Protocol,
    pub(crate) root: FileHandle,
    pub(crate) rsize: AtomicU32,
    pub(crate) wsize: AtomicU32,
    /// The version spoken: 3, or the NFSv4 minor version negotiated.
    pub(crate) version: NfsVersion,
    unmounted: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The signal is given by the call; nobody is left to wait for the tasks.
        match &self.protocol {
            Protocol::V3(v3) => drop(v3.transport.shutdown()),
            Protocol::V4(session) => {
                session.stop();
                for conn in &session.conns {
                    drop(conn.transport.shutdown());
                }
            }
        }
    }
}

/// The size the Linux client uses: what was asked, lowered to the server's maximum (FSINFO
/// `rtmax`/`wtmax`, RFC 1813 §3.3.19; NFSv4's `maxread`/`maxwrite`, RFC 8881 §5.8.2.17) rounded like
/// `nfs_io_size` but never above that maximum.
fn negotiated(requested: u32, server_max: u64) -> u32 {
    let server_max = u32::try_from(server_max).unwrap_or(u32::MAX);
    if server_max == 0 || requested <= server_max {
        requested.max(1)
    } else {
        kernel_io_size(server_max).min(server_max).max(1)
    }
}

/// Refuses what this client does not do, before anything is sent.
pub(crate) fn refuse_unsupported(spec: &MountSpec) -> Result<(), ClientError> {
    if spec.mountproto == Proto::Rdma {
        return Err(ClientError::Unsupported("mountproto=rdma: MOUNT goes over TCP".into()));
    }
    Ok(())
}

impl NfsClient {
    /// Mounts `spec` (see [`MountBuilder::mount`](crate::MountBuilder::mount)): over RPC-over-RDMA when
    /// `rdma` is given (checked by the builder: `proto=rdma`, validated), else over TCP through `link`;
    /// an NFSv4 session is asked `slots` fore-channel slots.
    pub(crate) async fn mount(
        spec: &MountSpec,
        rdma: Option<RdmaConfig>,
        link: Option<Arc<wan::Link>>,
        slots: u32,
    ) -> Result<NfsClient, ClientError> {
        refuse_unsupported(spec)?;
        if spec.vers.is_v4() {
            let Mounted { session, root, maxread, maxwrite, version } =
                v4_mount::mount(spec, rdma, link, slots).await?;
            let client = NfsClient::new(Protocol::V4(session), root, version, spec);
            client.inner.rsize.store(negotiated(spec.rsize, maxread), Relaxed);
            client.inner.wsize.store(negotiated(spec.wsize, maxwrite), Relaxed);
            return Ok(client);
        }
        let (v3, root) = V3::mount(spec, rdma, link).await?;
        let client = NfsClient::new(Protocol::V3(v3), root, NfsVersion::V3, spec);
        let info = client.fsinfo(&client.inner.root).await?;
        client.inner.rsize.store(negotiated(spec.rsize, info.rtmax.into()), Relaxed);
        client.inner.wsize.store(negotiated(spec.wsize, info.wtmax.into()), Relaxed);
        Ok(client)
    }

    fn new(protocol: Protocol, root: FileHandle, version: NfsVersion, spec: &MountSpec) -> Self {
        NfsClient {
            inner: Arc::new(Inner {
                protocol,
                root,
                rsize: AtomicU32::new(spec.rsize.max(1)),
                wsize: AtomicU32::new(spec.wsize.max(1)),
                version,
                unmounted: AtomicBool::new(false),
            }),
        }
    }

    /// The export's root handle (from MNT, or NFSv4's PUTROOTFH and LOOKUPs).
    pub fn root(&self) -> &FileHandle {
        &self.inner.root
    }

    /// The NFS version spoken: `V3`, `V4_1` or `V4_2` (`vers=4` says which it negotiated).
    pub fn version(&self) -> NfsVersion {
        self.inner.version
    }

    /// Largest READ: `min(rsize option, server rtmax / maxread)`.
    pub fn rsize(&self) -> u32 {
        self.inner.rsize.load(Relaxed)
    }

    /// Largest WRITE: `min(wsize option, server wtmax / maxwrite)`.
    pub fn wsize(&self) -> u32 {
        self.inner.wsize.load(Relaxed)
    }

    /// Per connection: addresses, state and counters.
    pub fn connections(&self) -> Vec<ConnectionInfo> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.transport.connections(),
            Protocol::V4(session) => session
                .conns
                .iter()
                .flat_map(|c| c.transport.connections())
                .enumerate()
                .map(|(index, info)| ConnectionInfo { index, ..info })
                .collect(),
        }
    }

    /// Totals over all connections.
    pub fn stats(&self) -> ClientStats {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.transport.stats(),
            Protocol::V4(session) => {
                session.conns.iter().map(|c| c.transport.stats()).fold(ClientStats::default(), |mut a, b| {
                    a += b;
                    a
                })
            }
        }
    }

    /// Tells the server (NFSv3: MOUNT UMNT; NFSv4: DESTROY_SESSION and DESTROY_CLIENTID), then closes
    /// the connections (calls still outstanding fail with `Closed`, as do later ones, on every clone).
    /// The connections are closed even when the server's part fails; its error is returned. A second
    /// call does nothing.
    pub async fn unmount(&self) -> Result<(), ClientError> {
        if self.inner.unmounted.swap(true, Relaxed) {
            return Ok(());
        }
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.unmount().await,
            Protocol::V4(session) => session.shutdown().await,
        }
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
        assert_eq!(negotiated(1 << 20, u64::MAX), 1 << 20, "NFSv4's maxread is 64 bits");
    }
}
