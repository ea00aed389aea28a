//! Test fixtures: our NFS server in-process on a loopback port, mount specs for it, a TCP proxy that
//! can cut or silence connections, and a scripted fake server for hostile replies.
#![allow(dead_code)]

pub mod fake;
pub mod proxy;
pub mod rdma_fake;

use mount_options::{MountConfig, MountSpec};
use nfs_client::{ClientError, NfsClient};
#[allow(unused_imports)]
pub use test_support::{spec, spec_for, TestServer};

/// Mounts `spec` with no RDMA provider and no emulated link.
pub async fn mount(spec: &MountSpec) -> Result<NfsClient, ClientError> {
    NfsClient::builder(&MountConfig::new(spec.clone())).mount().await
}
