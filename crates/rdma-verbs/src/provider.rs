//! [`VerbsProvider`]: `rdma::Provider` over rdma-core, chosen when an RDMA device exists.

use std::net::SocketAddr;

use rdma::{BoxFuture, Listener, Provider, QpConfig, QueuePair, RdmaError};

use crate::device::{devices, label};
use crate::setup::{connect, listen};

/// The rdma-core provider: RDMA-CM for connections, libibverbs for the data path, on whatever devices
/// the host has (InfiniBand, RoCE, iWARP, Soft-RoCE).
#[derive(Debug, Clone)]
pub struct VerbsProvider {
    devices: Vec<String>,
}

impl VerbsProvider {
    /// Opens the provider: `Unavailable` when libibverbs lists no device (with what to do about it).
    pub fn open() -> Result<VerbsProvider, RdmaError> {
        let devices = devices();
        if devices.is_empty() {
            return Err(RdmaError::Unavailable(
                "no RDMA device (ibv_get_device_list found none; for Soft-RoCE: modprobe rdma_rxe, then \
                 `rdma link add rxe0 type rxe netdev <interface>`)"
                    .into(),
            ));
        }
        Ok(VerbsProvider { devices })
    }

    /// The devices present when the provider was opened.
    pub fn device_names(&self) -> &[String] {
        &self.devices
    }
}

/// "verbs (rxe0, Soft-RoCE)", or every device when there are several ("verbs (mlx5_0; mlx5_1)").
pub(crate) fn provider_name(devices: &[String]) -> String {
    let labels: Vec<String> = devices.iter().map(|d| label(d)).collect();
    format!("verbs ({})", labels.join("; "))
}

impl Provider for VerbsProvider {
    fn name(&self) -> String {
        provider_name(&self.devices)
    }

    fn has_completion_vectors(&self) -> bool {
        true
    }

    fn connect<'a>(
        &'a self,
        addr: SocketAddr,
        config: QpConfig,
        private_data: &'a [u8],
    ) -> BoxFuture<'a, Result<Box<dyn QueuePair>, RdmaError>> {
        Box::pin(connect(addr, config, private_data))
    }

    fn listen(&self, addr: SocketAddr) -> Result<Box<dyn Listener>, RdmaError> {
        Ok(Box::new(listen(addr)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_which_devices_and_whether_they_are_soft_roce() {
        assert_eq!(provider_name(&["rxe0".into()]), "verbs (rxe0, Soft-RoCE)");
        assert_eq!(provider_name(&["mlx5_0".into(), "mlx5_1".into()]), "verbs (mlx5_0; mlx5_1)");
    }

    #[test]
    fn opening_without_a_device_says_so() {
        match VerbsProvider::open() {
            Err(RdmaError::Unavailable(message)) => {
                assert!(devices().is_empty());
                assert!(message.contains("no RDMA device"), "{message}");
            }
            Ok(provider) => assert!(!provider.device_names().is_empty()),
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
}
