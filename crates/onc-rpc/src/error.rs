use thiserror::Error;
use xdr::XdrError;

use crate::auth::AuthFlavor;

/// Everything that can go wrong in this crate: XDR decoding, TCP record marking, and the few rules of
/// RPC that sit above XDR. Encoding never fails.
///
/// Record-marking errors are fatal to the connection (the byte stream can no longer be split into
/// records); the others concern one message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RpcError {
    /// The XDR of a message, credential or argument was malformed.
    #[error(transparent)]
    Xdr(#[from] XdrError),

    /// A fragment header announced more bytes than the record limit allows (counting the fragments
    /// already received for the same record). Refused before any of it is buffered.
    #[error("record of at least {len} bytes (fragment of {fragment_len}) exceeds the limit of {max} bytes")]
    RecordTooLarge { len: u64, fragment_len: u32, max: usize },

    /// A record was split into more fragments than the configured maximum (an endless run of empty
    /// fragments would otherwise hold the connection forever without progress).
    #[error("record split into more than {max} fragments")]
    TooManyFragments { max: usize },

    /// The stream ended inside a record: `buffered` payload bytes (plus any partial fragment header) had
    /// arrived.
    #[error("stream ended inside a record, {buffered} bytes into it")]
    TruncatedRecord { buffered: usize },

    /// A credential or verifier of another flavor was handed to a decoder for a specific flavor.
    #[error("expected an {expected:?} credential, found flavor {found:?}")]
    WrongAuthFlavor { expected: AuthFlavor, found: AuthFlavor },

    /// A value cannot be encoded within the limits the protocol declares (e.g. 17 AUTH_SYS groups).
    #[error("{what} of {len} over its limit {max}")]
    OverLimit { what: &'static str, len: usize, max: usize },

    /// A universal address (RFC 5665 §5.2.3) that is not `h1.h2.h3.h4.p1.p2` or `x1:...:x8.p1.p2`.
    #[error("malformed universal address")]
    BadUniversalAddress,
}
