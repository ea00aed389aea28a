use thiserror::Error;

/// Everything that can go wrong while decoding XDR. Encoding cannot fail.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum XdrError {
    /// The buffer ended before the item did.
    #[error("unexpected end of XDR data at offset {offset}: {needed} more bytes needed, {remaining} left")]
    UnexpectedEnd { offset: usize, needed: usize, remaining: usize },
    /// A union discriminant or enum value outside the set the protocol defines.
    #[error("bad discriminant {value} for {what} at offset {offset}")]
    BadDiscriminant { what: &'static str, value: u32, offset: usize },
    /// A variable-length item longer than its declared maximum (RFC 4506 §4.10, §4.11, §4.13).
    #[error("{what} length {len} over its limit {max} at offset {offset}")]
    LengthOverLimit { what: &'static str, len: u64, max: u64, offset: usize },
    /// Bytes left over after a complete message.
    #[error("{count} trailing bytes after a complete XDR item")]
    TrailingBytes { count: usize },
    /// A value that is well formed XDR but breaks a rule of the protocol on top (named in `what`).
    #[error("invalid {what} at offset {offset}")]
    Invalid { what: &'static str, offset: usize },
}
