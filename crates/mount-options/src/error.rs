use std::fmt;

use thiserror::Error;

/// Where an option came from, so that a message names it the way the user wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// An entry of the `-o` mount option string (`rsize=1048576`).
    MountOption,
    /// A parameter of an `nfs://` URL (`?nconnect=4`).
    UrlParameter,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::MountOption => "mount option",
            Origin::UrlParameter => "URL parameter",
        })
    }
}

/// Everything that can be wrong with a target or an option string. Each message names the option (as
/// written, value included) or the target, and says why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionsError {
    /// Neither Linux nor libnfs knows this option.
    #[error("unknown {origin} '{option}'")]
    Unknown { origin: Origin, option: String },

    /// A real option (or value) that nfsbench's client does not implement, e.g. `vers=4.1`, `udp`,
    /// `sec=krb5`, `readahead=131072`.
    #[error("unsupported {origin} '{option}': {reason}")]
    Unsupported { origin: Origin, option: String, reason: String },

    /// A value that is not a number, out of range, or not one of the allowed words.
    #[error("invalid value in {origin} '{option}': {reason}")]
    BadValue { origin: Origin, option: String, reason: String },

    /// `rsize` without `=N`, and the like.
    #[error("{origin} '{option}' needs a value")]
    MissingValue { origin: Origin, option: String },

    /// A flag given a value, e.g. `hard=1`.
    #[error("{origin} '{option}' takes no value")]
    UnexpectedValue { origin: Origin, option: String },

    /// The target is neither `HOST:/EXPORT` nor a well-formed `nfs://HOST/EXPORT` URL.
    #[error("bad target '{target}': {reason}")]
    BadTarget { target: String, reason: String },

    /// The server name could not be turned into an address.
    #[error("cannot resolve NFS server '{server}': {reason}")]
    Resolve { server: String, reason: String },
}
