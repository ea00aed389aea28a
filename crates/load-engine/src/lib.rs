//! nfsbench's load engine: fio-style jobs ([`fio_job::JobSet`]) driven through the userspace NFS client
//! ([`nfs_client::NfsClient`], [`engine::run`]) or through io_uring on local files and block devices
//! ([`file::run`], the file engine), measured into [`report`]'s recorders.
//!
//! - [`engine`] runs the groups of a job set one after another and the jobs of a group (with their
//!   `numjobs` clones) at once, after laying out the files they read; it is generic over the engine's
//!   side (where files live, layout, starting a clone): the NFS engine ([`worker`], [`layout`]) and the
//!   file engine ([`file`]) are siblings over it.
//! - Each clone's choices are [`clone_core`]'s, whatever the engine: [`offsets`] decides where each I/O
//!   goes and how large it is (sequential, random through a map, or uniform), phases and stop
//!   conditions, and [`verify`] writes and checks self-describing blocks for `verify=crc32c|md5` (so a
//!   file written by one engine verifies with the other).
//! - [`live::LiveCounters`] feed a progress line while the run goes on.
//! - [`Peers`] keeps several clients (MPI ranks) in step: their own files, every group started together.
//!
//! Timing follows fio: submission latency (slat) is the time to prepare and submit an I/O (encode and
//! queue a call; fill and submit an io_uring entry), completion latency (clat) runs from there to the
//! completion being reaped, and lat is their sum.

pub mod buffers;
pub mod clone_core;
pub mod engine;
pub mod error;
pub mod file;
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
