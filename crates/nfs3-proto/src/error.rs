//! The error of the whole-message decoders ([`Nfs3Call::decode`](crate::Nfs3Call::decode) and friends).

use thiserror::Error;
use xdr::XdrError;

/// Why a whole call or reply body did not decode. The two cases map to different RPC answers.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The program version defines no such procedure: a server answers PROC_UNAVAIL (RFC 5531 §9).
    #[error("procedure {0} is not defined")]
    UnknownProcedure(u32),
    /// The body is malformed: a server answers GARBAGE_ARGS.
    #[error(transparent)]
    Xdr(#[from] XdrError),
}
