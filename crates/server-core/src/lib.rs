//! The contract between a transport front end of nfsbench's embedded server and the NFS service
//! behind it. Two sibling front ends implement the transport side: `server-tcp` (ONC RPC record
//! marking over TCP) and `server-rdma` (RPC-over-RDMA v1 over any `rdma` provider); neither depends on
//! the other, and a third transport plugs in here the same way.
//!
//! - **Record in, reply out** ([`RecordHandler`]): a front end delivers one complete RPC call record
//!   (its own framing removed: record marking, RDMA chunks) with the [`nfs_server::ConnectionInfo`] of
//!   the connection it came on (its [`nfs_server::ConnectionId`] given at accept), and sends the
//!   [`nfs_server::Reply`] back, if any, in its own framing. [`nfs_server::Server`] is the handler in
//!   production; tests plug in their own. [`run_contained`] is how both front ends call it: a
//!   panicking handler costs that call, not the connection.
//! - **The backchannel** ([`BackChannel`]): calls from the server to a client on the client's own
//!   connection (NFSv4.1 callbacks). Front ends register each connection at accept with a
//!   [`BackwardSender`] and remove it at close; the service calls [`BackChannel::send_call`] (the
//!   [`nfs_server::BackwardCalls`] it sees), refused with a typed [`nfs_server::BackChannelError`] when
//!   the connection is gone, cannot carry calls, or holds [`MAX_BACKWARD_QUEUED`] already. Front ends
//!   tell an incoming REPLY from a CALL by its message type ([`Direction`]) and hand it to
//!   [`RecordHandler::handle_reply`] ([`reply_contained`]): never executed, never answered.
//! - **Where calls run** ([`Execution`], chosen by the operator, resolved against the handler into a
//!   [`CallMode`] by [`CallMode::resolve`]): inline on the connection's task, one task per call, or
//!   the blocking pool for handlers that may wait on a disk.
//! - **Limits** ([`ConnectionLimits`], the `[limits]` table of `nfsbench serve --config`, and the
//!   `DEFAULT_*` constants): caps on what connections hold, the connection cap, timeouts, the shutdown
//!   grace. The TCP front end enforces all of them; the RDMA front end takes its connection cap and
//!   shutdown grace defaults from here and keeps its own RPC-over-RDMA settings (credits, inline size,
//!   chunk sizes).
//! - **Refused calls** ([`RefusalThrottle`]): the rule both front ends apply to a connection whose calls
//!   keep being refused — past 250 in a second, one turn per 50 ms.
//!
//! Nothing here does I/O: no sockets, no queue pairs, no runtime.

mod backchannel;
mod execution;
mod handler;
mod limits;
mod refusals;

pub use backchannel::{BackChannel, BackwardSender, QueuedSender, Registration, MAX_BACKWARD_QUEUED};
pub use execution::{CallMode, Execution};
pub use handler::{reply_contained, run_contained, Direction, RecordHandler};
pub use limits::{
    ConnectionLimits, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_IN_FLIGHT_BYTES,
    DEFAULT_MAX_IN_FLIGHT_REQUESTS, DEFAULT_MAX_SERVER_IN_FLIGHT_BYTES, DEFAULT_PARTIAL_RECORD_TIMEOUT,
    DEFAULT_READ_BUFFER, DEFAULT_SHUTDOWN_GRACE, DEFAULT_WRITE_STALL_TIMEOUT,
};
pub use refusals::{RefusalThrottle, REFUSALS_PER_WINDOW, REFUSAL_PAUSE, REFUSAL_WINDOW};
