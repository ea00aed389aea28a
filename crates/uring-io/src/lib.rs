//! A small, safe io_uring wrapper for nfsbench's file engine (the workspace forbids `unsafe` elsewhere).
//!
//! - [`AlignedBuf`]: an owned buffer aligned for O_DIRECT (the logical block size, at least a page).
//! - [`Ring`]: one io_uring of a fixed depth over files registered with it. A read or a write takes its
//!   buffer by value; the ring holds it while the kernel may touch it and gives it back in the
//!   [`Completion`]. Dropping a ring waits for whatever is still in flight, so no buffer is freed (and no
//!   file closed) under the kernel's feet.
//! - [`facts`]: what O_DIRECT and a report need to know of a file: block-device size and logical block
//!   size, the file system's magic number, dropping a file's cached pages (fio's `invalidate`).
//!
//! Built on the `io-uring` crate (tokio-rs/io-uring); `unsafe` is denied in this crate except in the
//! blocks that hand memory to the kernel, each with a `// SAFETY:` comment.

mod buffer;
pub mod facts;
mod ring;

pub use buffer::AlignedBuf;
pub use ring::{Completion, FileId, Refused, Ring};

#[cfg(test)]
mod tests;
