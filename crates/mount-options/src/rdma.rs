//! The RPC-over-RDMA settings of a mount that are not mount options: which provider carries it
//! (`--rdma-provider`), the credits the client requests (`--rdma-credits`) and the inline threshold it
//! offers (`--rdma-inline`), with their parsers and ranges.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use thiserror::Error;

/// Credits a client may request: at least 1 (RFC 8166 §3.3.1: a grant of 0 stalls the requester), at
/// most 1024.
pub const CREDITS_RANGE: RangeInclusive<u32> = 1..=1024;

/// Inline thresholds offered: RFC 8797 can express 1 KiB to 256 KiB in 1 KiB steps; nfsbench offers
/// 1 KiB..=64 KiB.
pub const INLINE_SIZE_RANGE: RangeInclusive<u32> = 1024..=65536;

/// The inline threshold nfsbench's client and the Linux client offer (RFC 8797 private data).
pub const DEFAULT_INLINE_SIZE: u32 = 4096;

/// The provider selection: `Auto` takes the verbs provider when an RDMA device exists and the
/// software provider otherwise; the others insist on one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProviderChoice {
    #[default]
    Auto,
    Verbs,
    Soft,
}

/// How the RPC-over-RDMA transport of a mount is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RdmaSettings {
    /// `--rdma-provider`; default `auto`.
    pub provider: ProviderChoice,
    /// Credits requested from the server (RFC 8166 §3.3), in [`CREDITS_RANGE`]; default 128, as Linux.
    pub credits: u32,
    /// The inline threshold offered (RFC 8797), in [`INLINE_SIZE_RANGE`] and a multiple of 1 KiB;
    /// default [`DEFAULT_INLINE_SIZE`].
    pub inline_size: u32,
}

impl Default for RdmaSettings {
    fn default() -> Self {
        RdmaSettings {
            provider: ProviderChoice::Auto,
            credits: rpcrdma_proto::LINUX_CLIENT_CREDIT_REQUEST,
            inline_size: DEFAULT_INLINE_SIZE,
        }
    }
}

/// An RDMA setting that cannot be used; the message names the flag and the value as written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RdmaSettingError {
    #[error("unknown RDMA provider '{0}' (auto, verbs or soft)")]
    Provider(String),
    #[error("--rdma-credits '{0}' is not a credit count from 1 to 1024")]
    Credits(String),
    #[error("--rdma-inline '{0}' is not a multiple of 1 KiB from 1KiB to 64KiB")]
    InlineSize(String),
}

/// A credit count in [`CREDITS_RANGE`].
pub fn parse_credits(text: &str) -> Result<u32, RdmaSettingError> {
    match text.parse::<u32>() {
        Ok(n) if CREDITS_RANGE.contains(&n) => Ok(n),
        _ => Err(RdmaSettingError::Credits(text.to_string())),
    }
}

/// An inline threshold in bytes (a `k`/`KiB` suffix allowed), a multiple of 1 KiB in
/// [`INLINE_SIZE_RANGE`].
pub fn parse_inline(text: &str) -> Result<u32, RdmaSettingError> {
    let lower = text.to_ascii_lowercase();
    let (digits, unit) = match lower.trim_end_matches("ib").trim_end_matches('b').strip_suffix('k') {
        Some(d) => (d, 1024),
        None => (lower.as_str(), 1),
    };
    match digits.parse::<u32>().ok().and_then(|n| n.checked_mul(unit)) {
        Some(n) if INLINE_SIZE_RANGE.contains(&n) && n % 1024 == 0 => Ok(n),
        _ => Err(RdmaSettingError::InlineSize(text.to_string())),
    }
}

impl FromStr for ProviderChoice {
    type Err = RdmaSettingError;
    fn from_str(text: &str) -> Result<Self, RdmaSettingError> {
        match text {
            "auto" => Ok(ProviderChoice::Auto),
            "verbs" => Ok(ProviderChoice::Verbs),
            "soft" => Ok(ProviderChoice::Soft),
            other => Err(RdmaSettingError::Provider(other.to_string())),
        }
    }
}

impl fmt::Display for ProviderChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderChoice::Auto => "auto",
            ProviderChoice::Verbs => "verbs",
            ProviderChoice::Soft => "soft",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_round_trip_and_unknown_names_are_refused_by_name() {
        for c in [ProviderChoice::Auto, ProviderChoice::Verbs, ProviderChoice::Soft] {
            assert_eq!(c.to_string().parse::<ProviderChoice>(), Ok(c));
        }
        let e = "shm".parse::<ProviderChoice>().expect_err("shm");
        assert_eq!(e.to_string(), "unknown RDMA provider 'shm' (auto, verbs or soft)");
    }

    #[test]
    fn inline_sizes_take_kib_suffixes_and_stay_in_rfc_8797_steps() {
        assert_eq!(parse_inline("4096"), Ok(4096));
        assert_eq!(parse_inline("4k"), Ok(4096));
        assert_eq!(parse_inline("64KiB"), Ok(65536));
        for bad in ["512", "4097", "128k", "x"] {
            assert!(parse_inline(bad).expect_err(bad).to_string().contains(bad), "{bad}");
        }
    }

    #[test]
    fn credits_are_never_zero() {
        assert_eq!(parse_credits("64"), Ok(64));
        assert_eq!(
            parse_credits("0").map_err(|e| e.to_string()),
            Err("--rdma-credits '0' is not a credit count from 1 to 1024".to_string())
        );
        assert!(parse_credits("1025").is_err());
    }

    #[test]
    fn the_defaults_are_what_the_linux_client_asks_and_offers() {
        let d = RdmaSettings::default();
        assert_eq!((d.provider, d.credits, d.inline_size), (ProviderChoice::Auto, 128, 4096));
    }
}
