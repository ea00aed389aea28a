//! NFSv4.1 (RFC 8881) and NFSv4.2 (RFC 7862) in the client: sessions over the same transports as NFSv3.
//!
//! The rules are sans I/O, each in its own module, tested without a socket:
//! - [`slots`]: the fore channel's slot table — slots for the calls in flight, capped by the grant and
//!   the server's target; per-slot sequence ids and what each SEQUENCE result means (Linux's
//!   `nfs41_sequence_process`).
//! - [`opens`]: the client's open files, one open per file shared by its users, the newest stateid.
//! - [`lease`]: when an idle client renews its lease (Linux's renewd).
//! - [`recovery`]: what was lost (a connection, the session, the client ID) and the steps back.
//! - [`owner`]: who the client is (`co_ownerid` per host, process and mount; the boot verifier).
//! - [`attrs`]: the attributes asked for and `fattr4` read as [`Attr`](crate::Attr).
//! - [`wire`]: a COMPOUND as an RPC call and a reply checked against it; [`data_path`]: READ, WRITE
//!   and COMMIT written and read by hand (WRITE data the call's payload, READ data never copied).
//! - [`callback`]: the answers to the server's callbacks (CB_NULL, CB_COMPOUND with CB_SEQUENCE's
//!   back-channel slot rules), record in, record out.
//!
//! The I/O around them:
//! - [`handshake`]: the COMPOUNDs outside a session (EXCHANGE_ID, CREATE_SESSION,
//!   BIND_CONN_TO_SESSION, DESTROY_SESSION, DESTROY_CLIENTID) on a chosen connection.
//! - [`mount`]: the connections (one transport each), the minor version, the trunking check, the
//!   session, the root.
//! - [`compound`]: what a call on a session is to the machinery that sends and retries it.
//! - [`session`]: the mount at run time — the state behind one lock, sending a COMPOUND on a slot;
//!   `call.rs` runs a call to its result through every retry (`started.rs`: a data call's first reply
//!   read without the retry loop); `recover.rs` runs the recovery ladder
//!   on the live session; `maintain.rs` renews the lease, rebinds replaced connections, unmounts.
//! - [`requests`]: one type per COMPOUND the client sends; `api.rs` is what
//!   [`NfsClient`](crate::NfsClient) calls.
//!
//! The back channel runs on the client's own connections (RFC 8881 §2.10.3.1; over RDMA as RFC 8167):
//! every transport hands the server's calls to the mount's [`callback::CallbackService`], CREATE_SESSION
//! binds the first connection for both channels (CREATE_SESSION4_FLAG_CONN_BACK_CHAN) and
//! BIND_CONN_TO_SESSION the others (CDFC4_FORE_OR_BOTH); a callback path the server reports down is bound
//! again at most once a lease.

mod api;
pub(crate) mod attrs;
mod call;
pub mod callback;
pub(crate) mod compound;
pub(crate) mod data_path;
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
mod started;
pub(crate) mod wire;
