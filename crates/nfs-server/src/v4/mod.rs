//! NFSv4.1 (RFC 8881): the server's state machine now; the COMPOUND dispatch will join it here.

pub(crate) mod state;
