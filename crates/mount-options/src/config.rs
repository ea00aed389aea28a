//! [`MountConfig`]: everything that decides how nfsbench's client reaches an export, in one value.

use crate::link::LinkSpec;
use crate::rdma::RdmaSettings;
use crate::MountSpec;

/// One mount, typed: the target and `-o` options ([`MountSpec`]), how RPC-over-RDMA is set up when
/// `spec.proto` is rdma ([`RdmaSettings`], left at its defaults and unused over TCP), and the emulated
/// long-distance link the client runs over, if any ([`LinkSpec`], `--wan`).
#[derive(Debug, Clone, PartialEq)]
pub struct MountConfig {
    pub spec: MountSpec,
    pub rdma: RdmaSettings,
    pub link: Option<LinkSpec>,
}

impl MountConfig {
    /// `spec` over its own transport with the default RDMA settings and no emulated link.
    pub fn new(spec: MountSpec) -> MountConfig {
        MountConfig { spec, rdma: RdmaSettings::default(), link: None }
    }

    /// Whether the mount runs over RPC-over-RDMA (`proto=rdma`).
    pub fn is_rdma(&self) -> bool {
        self.spec.proto == crate::Proto::Rdma
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Proto;

    #[test]
    fn a_config_of_a_spec_has_the_default_rdma_settings_and_no_link() {
        let spec = MountSpec::parse("server:/export", Some("proto=rdma,nconnect=2")).expect("spec");
        let config = MountConfig::new(spec.clone());
        assert_eq!(config, MountConfig { spec, rdma: RdmaSettings::default(), link: None });
        assert!(config.is_rdma());
        let tcp = MountConfig::new(MountSpec::parse("server:/export", None).expect("spec"));
        assert!(!tcp.is_rdma() && tcp.spec.proto == Proto::Tcp);
    }
}
