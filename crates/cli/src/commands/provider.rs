//! Opening the RDMA provider `--rdma-provider` names (shared by `run`, `serve` and `compare`).

use std::sync::Arc;

use rdma::{Provider, ProviderChoice};

/// Opens the provider `choice` names. `Auto` takes rdma-core's verbs when an RDMA device exists (a NIC,
/// or Soft-RoCE/Soft-iWARP set up by the administrator) and the software provider otherwise. The error
/// says which provider could not be opened and why.
pub fn open_provider(choice: ProviderChoice) -> Result<Arc<dyn Provider>, String> {
    let verbs = || -> Result<Arc<dyn Provider>, String> {
        rdma_verbs::VerbsProvider::open()
            .map(|p| Arc::new(p) as Arc<dyn Provider>)
            .map_err(|e| format!("--rdma-provider verbs: {e}"))
    };
    let soft = || -> Result<Arc<dyn Provider>, String> {
        rdma_soft::SoftProvider::new()
            .map(|p| Arc::new(p) as Arc<dyn Provider>)
            .map_err(|e| format!("--rdma-provider soft: {e}"))
    };
    match choice {
        ProviderChoice::Verbs => verbs(),
        ProviderChoice::Soft => soft(),
        ProviderChoice::Auto if rdma_verbs::devices().is_empty() => soft(),
        ProviderChoice::Auto => verbs(),
    }
}
