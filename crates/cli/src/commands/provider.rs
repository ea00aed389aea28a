//! Opening the RDMA provider `--rdma-provider` names (shared by `run`, `serve` and `compare`).
//!
//! The verbs provider (rdma-core) is behind the `verbs` cargo feature, on by default: building it needs
//! rdma-core's headers and libclang. A build without it has the soft provider only; there `verbs` is
//! refused and `auto` means soft.

use std::sync::Arc;

use mount_options::ProviderChoice;
use rdma::Provider;

/// `nfsbench --version`'s long text: the version and the RDMA providers this build carries.
#[cfg(feature = "verbs")]
pub const LONG_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\nRDMA providers: verbs (rdma-core), soft");
/// `nfsbench --version`'s long text: the version and the RDMA providers this build carries.
#[cfg(not(feature = "verbs"))]
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\nRDMA providers: soft (built without the `verbs` feature: no rdma-core provider)"
);

/// Opens the provider `choice` names. `Auto` takes rdma-core's verbs when an RDMA device exists (a NIC,
/// or Soft-RoCE/Soft-iWARP set up by the administrator) and the software provider otherwise; in a build
/// without the verbs provider, always the software one. The error says which provider could not be
/// opened and why.
pub fn open_provider(choice: ProviderChoice) -> Result<Arc<dyn Provider>, String> {
    match choice {
        ProviderChoice::Verbs => verbs(),
        ProviderChoice::Soft => soft(),
        ProviderChoice::Auto if has_rdma_device() => verbs(),
        ProviderChoice::Auto => soft(),
    }
}

fn soft() -> Result<Arc<dyn Provider>, String> {
    rdma_soft::SoftProvider::new()
        .map(|p| Arc::new(p) as Arc<dyn Provider>)
        .map_err(|e| format!("--rdma-provider soft: {e}"))
}

#[cfg(feature = "verbs")]
fn verbs() -> Result<Arc<dyn Provider>, String> {
    rdma_verbs::VerbsProvider::open()
        .map(|p| Arc::new(p) as Arc<dyn Provider>)
        .map_err(|e| format!("--rdma-provider verbs: {e}"))
}

#[cfg(not(feature = "verbs"))]
fn verbs() -> Result<Arc<dyn Provider>, String> {
    Err("--rdma-provider verbs: this build of nfsbench has no verbs provider (it was built without the \
         `verbs` feature); rebuild with the default features, or use --rdma-provider soft"
        .to_string())
}

#[cfg(feature = "verbs")]
fn has_rdma_device() -> bool {
    !rdma_verbs::devices().is_empty()
}

#[cfg(not(feature = "verbs"))]
fn has_rdma_device() -> bool {
    false // no provider to drive one: `auto` means soft
}
