//! nfsbench's load engine: fio-style jobs ([`fio_job::JobSet`]) driven through the userspace NFS client
//! ([`nfs_client::NfsClient`]), measured into [`report`]'s recorders.
//!
//! - [`engine::run`] runs the groups of a job set one after another and the jobs of a group (with their
//!   `numjobs` clones) at once, after laying out the files they read ([`layout`]).
//! - Each clone is a [`worker`] that keeps `iodepth` calls in flight; [`offsets`] decides where each goes
//!   and how large it is (sequential, random through a map, or uniform), and [`verify`] writes and checks
//!   self-describing blocks for `verify=crc32c|md5`.
//! - [`live::LiveCounters`] feed a progress line while the run goes on.
//! - [`Peers`] keeps several clients (MPI ranks) in step: their own files, every group started together.
//!
//! Timing follows fio: submission latency (slat) is the time to encode and queue a call, completion
//! latency (clat) runs from there to the reply being reaped, and lat is their sum.

pub mod buffers;
pub mod engine;
pub mod error;
pub mod layout;
pub mod live;
pub mod offsets;
pub mod paths;
pub mod peers;
pub mod permutation;
pub mod verify;
pub mod worker;

pub use engine::{run, EngineConfig, EngineRun};
pub use error::EngineError;
pub use live::{LiveCounters, LiveSnapshot};
pub use peers::Peers;
