//! NFSv4.1 (RFC 8881) and NFSv4.2 (RFC 7862) in the client: sessions over the same transports as NFSv3.
//!
//! The rules are sans I/O, each in its own module, tested without a socket:
//! - [`slots`]: the fore channel's slot table — slots for the calls in flight, capped by the grant and
//!   the server's target; per-slot sequence ids and what each SEQUENCE result means (Linux's
//!   `nfs41_sequence_process`).
//! - [`opens`]: the client's open files, one open per file shared by its users, the newest stateid.
//! - [`lease`]: when an idle client renews its lease (Linux's renewd).
//! - [`recovery`]: what was lost (a connection, the session, the client ID) and the steps back.

mod api;
pub(crate) mod attrs;
mod call;
pub mod callback;
pub(crate) mod handshake;
pub(crate) mod lease;
mod maintain;
pub(crate) mod mount;
pub(crate) mod opens;
pub(crate) mod owner;
mod recover;
pub(crate) mod recovery;
pub(crate) mod requests;
pub(crate) mod session;
pub(crate) mod slots;
pub(crate) mod wire;
