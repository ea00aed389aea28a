//! What the compare tests share.

use std::path::PathBuf;

use compare::cell::ClientSetup;

/// The client set-up of a plan run against `target` (a remote server, RDMA over verbs, on a 2-core host).
pub fn remote_setup(target: &str) -> ClientSetup {
    ClientSetup {
        exe: PathBuf::from("nfsbench"),
        target: target.into(),
        ports: None,
        rdma_provider: "verbs".into(),
        hostfile: None,
        cpus: 2,
    }
}
