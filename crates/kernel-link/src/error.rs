//! Why the path delay could not be put on or taken off; each message names the command, device or
//! address.

use std::net::IpAddr;

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("starting {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// The tool's own last words.
    #[error("`{argv}` failed: {message}")]
    Refused { argv: String, message: String },
    #[error("`ip route get {addr}` printed no device: {output}")]
    NoRoute { addr: IpAddr, output: String },
    #[error(
        "the route to {addr} stays on this host (dev {dev}): no device carries it, so no delay can be put \
         on it; put the target on another host, or (one host) across a veth pair (lab/vm/guest/rxe.sh RXE_PAIR=1)"
    )]
    NotOnAWire { addr: IpAddr, dev: String },
    #[error("--wan {part} is not for the kernel engine: {why}")]
    NotForKernel { part: &'static str, why: &'static str },
    #[error("'{host}' is not an address this host can resolve: {why}")]
    Resolve { host: String, why: String },
}
