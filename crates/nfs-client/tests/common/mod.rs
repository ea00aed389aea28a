//! Test fixtures: our NFS server in-process on a loopback port, mount specs for it, a TCP proxy that
//! can cut or silence connections, and a scripted fake server for hostile replies.
#![allow(dead_code)]

pub mod fake;
pub mod proxy;
pub mod rdma_fake;

#[allow(unused_imports)]
pub use test_support::{spec, spec_for, TestServer};
