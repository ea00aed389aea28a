//! RPC-over-RDMA through an emulated long-distance link (`--wan`): the provider is wrapped in
//! [`wan::rdma::WanProvider`], which delays every Send and accounts what the peer's RDMA Reads and
//! Writes moved. Only the soft provider can be wrapped: it tells the wrapper what those one-sided
//! operations moved (a device cannot), and a real RDMA path has its own distance.

use std::sync::Arc;

use rdma::Provider;

use crate::error::ClientError;

/// `provider` carrying `link`: refused ([`ClientError::LinkNeedsSoftProvider`]) unless it is the soft
/// provider. Used by the mount builder, and by the server side of `nfsbench serve --wan`.
pub fn provider_over_link(
    provider: Arc<dyn Provider>,
    link: &Arc<wan::Link>,
) -> Result<Arc<dyn Provider>, ClientError> {
    let name = provider.name();
    if !name.starts_with("soft") {
        return Err(ClientError::LinkNeedsSoftProvider { provider: name });
    }
    Ok(Arc::new(wan::rdma::WanProvider::new(provider, Arc::clone(link))))
}
