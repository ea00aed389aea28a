//! nfsbench's NFS client — NFSv3 (RFC 1813), NFSv4.1 (RFC 8881) and NFSv4.2 (RFC 7862) — over TCP and
//! RPC-over-RDMA, on Tokio: mount an export from a [`MountSpec`](mount_options::MountSpec), then make
//! file calls with many in flight. The file API is the same for every version (`NfsClient`'s methods:
//! lookup, mkdir, [`open`](NfsClient::open)/[`close`](NfsClient::close), create, getattr, set_size,
//! remove, read/write/commit and their two-phase `submit_*`), so a load engine runs unchanged on either;
//! `v3.rs` holds NFSv3's procedures, [`v4`] the sessions.
//!
//! # Mounting
//!
//! A mount starts from a [`MountConfig`](mount_options::MountConfig) (the spec, the RDMA settings, the
//! `--wan` link): [`NfsClient::builder`], then [`MountBuilder::rdma_provider`] for `proto=rdma` (the
//! provider is opened by the caller) and [`MountBuilder::max_in_flight`] (the NFSv4 session's slots),
//! then [`MountBuilder::mount`]. NFSv3 asks the port mapper (RFC 1833,
//! PMAPPROC_GETPORT) for the NFS and MOUNT ports not given in the options, gets the root handle with
//! MOUNT MNT (both on short-lived TCP connections to the first address), opens `nconnect` connections,
//! one to each of `spec.connection_addrs()` at the NFS port, and reads FSINFO:
//! [`rsize`](NfsClient::rsize) / [`wsize`](NfsClient::wsize) are the options lowered to the server's
//! `rtmax` / `wtmax`, as Linux does. Calls carry an AUTH_SYS credential with `spec.uid` / `spec.gid`
//! and this host's name. Connections use any local port, so a server that wants privileged ports
//! (knfsd's `secure` default) needs `insecure` on the export. With `proto=rdma` the NFS connections are
//! RPC-over-RDMA queue pairs, MOUNT stays on TCP. An emulated long-distance link ([`wan::Link`]) is
//! applied the same way to both: the TCP connections go through its relays ([`wan::tcp::relay`]), the
//! queue pairs through the provider wrapped by [`rdma::provider_over_link`] (soft provider only).
//!
//! NFSv4.1/4.2 (`vers=4.1`, `4.2`, or `4` for the highest both speak) needs no port mapper and no MOUNT:
//! each connection (TCP, or a queue pair on port 20049) is a transport of its own; EXCHANGE_ID on the
//! first, CREATE_SESSION with a fore-channel slot for each call the caller keeps in flight, a trunking
//! check (`server_owner` and scope) with EXCHANGE_ID on every other address of `remoteports`/
//! `max_connect`, BIND_CONN_TO_SESSION of every connection, RECLAIM_COMPLETE, and the export's root
//! from PUTROOTFH and LOOKUPs with the file system's `maxread`/`maxwrite` and `lease_time`. Opens are
//! the client's: one OPEN per file (no delegation wanted), shared by its users, one CLOSE by the last;
//! every call is SEQUENCE + PUTFH + its operations on a slot. The session survives its connections
//! (rebound, outstanding slots replayed against the server's reply cache), a lost session or a server
//! restart (recovered, opens reclaimed), and idleness (the lease renewed). See [`v4`].
//!
//! # Calls
//!
//! The procedures are `async` methods ([`NfsClient::read`], [`NfsClient::write`], [`NfsClient::lookup`],
//! ...). READ, WRITE and COMMIT also come in two phases: `submit_*` encodes the call and hands it to a
//! connection without awaiting anything, returning a [`Pending`] future for the reply, so a load
//! engine can time submission and completion apart (fio's slat and clat). They take a [`FileRef`]: an
//! [`OpenFile`] (over NFSv4 its stateid goes with the I/O) or a bare [`FileHandle`]. Nothing bounds the
//! calls in flight but the caller (its iodepth) and, over NFSv4, the session's slots: a call with no
//! free slot is sent as soon as one is.
//!
//! Calls are spread over the connections round-robin. Each connection has a writer task that sends
//! whatever is queued in one vectored write (WRITE data goes out from the caller's [`bytes::Bytes`],
//! never copied) and a reader task that splits replies off its receive buffer and matches them to
//! calls by xid; READ data is a slice of that buffer ([`ReadReply::data`]). A reply is decoded by the
//! [`Pending`] that awaits it, so a malformed reply fails only its own call; replies matching no call
//! are counted and dropped; a broken record stream drops the connection.
//!
//! # Timeouts and reconnection
//!
//! As the Linux client over TCP (nfs(5)): a call without a reply after `timeo` is retransmitted with
//! the same xid, each wait `timeo` longer (at most 600 s); after `retrans` retransmissions a soft mount
//! fails the call with [`ClientError::TimedOut`], a hard mount logs "server not responding, still
//! trying" and keeps going. A lost connection is re-established (backing off while that fails) and
//! every outstanding call is sent again on it. [`NfsClient::connections`] and [`NfsClient::stats`]
//! count calls, retransmissions, reconnections and timeouts.
//!
//! Both transports keep their calls in the same sans-I/O call table (`calls`: xids, the FIFO of calls
//! waiting to be sent, deadlines, the clock passed in) under one [`RetransmitPolicy`]; `tcp` and `rdma`
//! are drivers feeding it replies, completions and time, and the reconnection and timer tasks (`slot`)
//! are shared. What differs on purpose is the transport's recovery of a timed-out call: TCP sends it
//! again on the same connection, RPC-over-RDMA replaces the queue pair (see [`rdma`]).
//!
//! # Transports
//!
//! The procedure layer talks to an [`RpcTransport`]: encoded calls in (inline bytes, plus the WRITE
//! payload at its XDR position), reply records out (plus directly placed READ data). Two exist:
//! [`TcpTransport`] (with many calls outstanding, the reader raises its socket's SO_RCVLOWAT so a
//! server that writes one reply at a time wakes it once per several replies, and inside a large reply
//! to the rest of it, a wait bounded at a few milliseconds; `tcp/coalesce.rs`) and [`RdmaTransport`] (RPC-over-RDMA v1, RFC 8166 / 8267 / 8797:
//! WRITE data pulled by the server from a Read chunk, READ data pushed into a Write chunk, credits,
//! each chunk a piece of the queue pair's pool registered once, opened to the server through a window
//! closed at its reply; see the [`rdma`] module).
//!
//! Both also carry the server's calls on the client's own connections (the NFSv4.1 backchannel):
//! a record whose RPC message type is CALL is never matched to a call of ours but handed to the
//! [`transport::CallbackHandler`] set with [`RpcTransport::set_callback_handler`], and its reply
//! goes back on the same connection (over RDMA as RFC 8167 says: receives posted for such calls,
//! inline replies granting [`rdma::BACKWARD_CREDITS`]); without a handler each is answered
//! PROG_UNAVAIL. What waits for the connection is bounded, so a server that calls faster than it
//! reads costs a few replies, not memory.
//!
//! # Example
//!
//! ```no_run
//! use bytes::Bytes;
//! use mount_options::{MountConfig, MountSpec};
//! use nfs_client::{Access, CreateHow, NfsClient, StableHow};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! // The same code runs with vers=3.
//! let spec = MountSpec::parse("127.0.0.1:/export", Some("vers=4.1,nconnect=2,timeo=600,retrans=2"))?;
//! let client = NfsClient::builder(&MountConfig::new(spec)).max_in_flight(32).mount().await?;
//! let create = Some((CreateHow::Unchecked, 0o644));
//! let (file, _attr) = client.open(client.root(), "data", Access::ReadWrite, create).await?;
//! client.write(&file, 0, Bytes::from_static(b"hello"), StableHow::Unstable).await?;
//! client.commit(&file, 0, 0).await?;
//!
//! // Two phases: submit now, wait later.
//! let pending = client.submit_read(&file, 0, 4096);
//! let reply = pending.await?;
//! assert_eq!(&reply.data[..], b"hello");
//! client.close(&file).await?;
//! client.unmount().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! One enum, [`ClientError`]: NFS statuses (`"READ failed: NFS3ERR_IO"`, `"OPEN failed:
//! NFS4ERR_NOENT"`), MOUNT statuses, RPC-level refusals, socket errors naming the address, soft
//! timeouts, malformed replies, servers that cannot be trunked, a recovery that failed, unsupported
//! options.

mod builder;
mod calls;
mod client;
mod decode;
mod encode;
mod error;
mod lanes;
mod mount;
mod open_file;
mod pending;
mod procedures;
pub mod rdma;
mod responsiveness;
mod retransmit;
mod slot;
pub mod tcp;
pub mod transport;
mod types;
mod v3;
pub mod v4;

pub use crate::rdma::{reassemble_reply_for_fuzzing, RdmaConfig, RdmaTransport};
pub use builder::{MountBuilder, DEFAULT_SESSION_SLOTS};
pub use client::NfsClient;
#[doc(hidden)]
pub use decode::decode_reply_for_fuzzing;
pub use error::ClientError;
pub use mount_options::NfsVersion;
pub use nfs3_proto::{FsinfoResOk, NfsErr3};
pub use open_file::{Access, FileRef, OpenFile};
pub use pending::Pending;
pub use retransmit::{RetransmitPolicy, MAX_TIMEOUT};
pub use tcp::{TcpOptions, TcpTransport};
pub use transport::{BulkPayload, ReplyReceiver, ReplySender, RpcCall, RpcReply, RpcTransport};
pub use types::{Attr, ClientStats, ConnectionInfo, CreateHow, FileHandle, FileKind, ReadReply, StableHow, WriteReply};
