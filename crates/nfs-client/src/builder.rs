//! [`MountBuilder`]: how a mount is made. It starts from a [`MountConfig`] (the spec, the RDMA
//! settings, the `--wan` link), takes what only the caller can open (the RDMA provider) and how many
//! calls it keeps in flight (the NFSv4 session's slots), and mounts.
//! The emulated link is applied here the same way for both transports: TCP connections go through the
//! link's relays, RPC-over-RDMA queue pairs through the provider wrapped by [`provider_over_link`].

use std::sync::Arc;

use mount_options::{MountConfig, Proto};
use rdma::Provider;

use crate::client::{refuse_unsupported, NfsClient};
use crate::error::ClientError;
use crate::rdma::{provider_over_link, RdmaConfig};

/// A mount being set up: [`NfsClient::builder`], then [`rdma_provider`](Self::rdma_provider) for
/// `proto=rdma`, then [`mount`](Self::mount).
#[derive(Debug)]
pub struct MountBuilder<'a> {
    config: &'a MountConfig,
    provider: Option<Arc<dyn Provider>>,
    /// The emulated link of `config.link`, one for every connection of the mount.
    link: Option<Arc<wan::Link>>,
    /// Calls the caller keeps in flight: the fore-channel slots an NFSv4 session asks for.
    in_flight: u32,
}

/// Slots an NFSv4 session asks for when the caller does not say: Linux's default slot table
/// (`NFS4_DEF_SLOT_TABLE_SIZE`, the `max_session_slots` module parameter).
pub const DEFAULT_SESSION_SLOTS: u32 = 64;

impl NfsClient {
    /// Starts a mount of `config`.
    pub fn builder(config: &MountConfig) -> MountBuilder<'_> {
        MountBuilder {
            config,
            provider: None,
            link: config.link.clone().map(wan::Link::new),
            in_flight: DEFAULT_SESSION_SLOTS,
        }
    }
}

impl<'a> MountBuilder<'a> {
    /// The RDMA provider the queue pairs of a `proto=rdma` mount come from (opened by the caller as
    /// `config.rdma.provider` names it); unused with `proto=tcp`.
    pub fn rdma_provider(mut self, provider: Arc<dyn Provider>) -> Self {
        self.provider = Some(provider);
        self
    }

    /// The most calls the caller keeps in flight at once (a load engine's iodepth times its jobs): an
    /// NFSv4 session asks for that many fore-channel slots (at most 1024, Linux's cap; the server may
    /// grant fewer, and calls then wait for a slot). NFSv3 has no slots and ignores it.
    pub fn max_in_flight(mut self, calls: u32) -> Self {
        self.in_flight = calls.max(1);
        self
    }

    /// What a `proto=rdma` mount will use (`None` with `proto=tcp`): the provider, carrying the emulated
    /// link when there is one, with `config.rdma`'s credits and inline size. Refused as
    /// [`mount`](Self::mount) would refuse it: no provider, a provider that cannot carry the link,
    /// settings out of range.
    pub fn rdma(&self) -> Result<Option<RdmaConfig>, ClientError> {
        if self.config.spec.proto != Proto::Rdma {
            return Ok(None);
        }
        let provider = self.provider.clone().ok_or_else(no_provider)?;
        let provider = match &self.link {
            Some(link) => provider_over_link(provider, link)?,
            None => provider,
        };
        let settings = &self.config.rdma;
        let spec = &self.config.spec;
        let config = RdmaConfig {
            provider,
            credits: settings.credits,
            inline_size: settings.inline_size,
            chunk_size: spec.rsize.max(spec.wsize),
        };
        config.validate()?;
        Ok(Some(config))
    }

    /// Mounts `config.spec.export`. NFSv3: port mapper GETPORT for the ports not given, MOUNT MNT (both
    /// on short-lived TCP connections to the first address, never through the link), then `nconnect`
    /// connections to `spec.connection_addrs()` at the NFS port, and FSINFO for the transfer sizes.
    /// NFSv4.1/4.2: the connections to port 2049 (20049 over RDMA), EXCHANGE_ID, CREATE_SESSION,
    /// BIND_CONN_TO_SESSION of the others, RECLAIM_COMPLETE and the root from PUTROOTFH (see [`crate::v4`]).
    ///
    /// With `proto=rdma` the NFS connections are RPC-over-RDMA queue pairs made by the provider
    /// (`nconnect` of them, round-robin over `remoteports`), to `spec.port` (20049 unless given: the port
    /// mapper is not asked, as Linux does for rdma); MOUNT and the port mapper stay on TCP.
    pub async fn mount(self) -> Result<NfsClient, ClientError> {
        refuse_unsupported(&self.config.spec)?;
        let rdma = self.rdma()?;
        // Over RDMA the link rides in the provider; over TCP in the connections.
        let tcp_link = self.link.filter(|_| rdma.is_none());
        NfsClient::mount(&self.config.spec, rdma, tcp_link, self.in_flight).await
    }
}

fn no_provider() -> ClientError {
    ClientError::Unsupported(
        "proto=rdma needs an RDMA provider: mount with NfsClient::builder(..).rdma_provider(..) \
         (nfsbench run: --rdma-provider), or use proto=tcp"
            .into(),
    )
}
