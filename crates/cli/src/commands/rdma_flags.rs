//! The RPC-over-RDMA flags `run` and `serve` share (`--rdma-credits`, `--rdma-inline`); opening the
//! provider `--rdma-provider` names is in [`super::provider`].

use std::sync::Arc;

use rdma::Provider;

/// `provider` carrying `--wan`'s emulated link. Only the soft provider: it tells the wrapper what the
/// peer's own RDMA Reads and Writes moved (a device cannot), and a real RDMA path has its own distance.
pub fn over_link(provider: Arc<dyn Provider>, link: &Arc<wan::Link>) -> Result<Arc<dyn Provider>, String> {
    if !provider.name().starts_with("soft") {
        return Err(format!(
            "--wan emulates RDMA over the soft provider only (this is {}): use --rdma-provider soft, or the \
             real path's own distance",
            provider.name()
        ));
    }
    Ok(Arc::new(wan::rdma::WanProvider::new(provider, Arc::clone(link))))
}

/// Credits: at least 1 (RFC 8166 §3.3.1: a grant of 0 stalls the requester), at most 1024.
pub fn parse_credits(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("--rdma-credits '{text}' is not a credit count from 1 to 1024")),
    }
}

/// An inline threshold in bytes (a `k`/`KiB` suffix allowed): RFC 8797 can express 1 KiB to 256 KiB in
/// 1 KiB steps; nfsbench offers 1 KiB..=64 KiB.
pub fn parse_inline(text: &str) -> Result<u32, String> {
    let lower = text.to_ascii_lowercase();
    let (digits, unit) = match lower.trim_end_matches("ib").trim_end_matches('b').strip_suffix('k') {
        Some(d) => (d, 1024),
        None => (lower.as_str(), 1),
    };
    match digits.parse::<u32>().ok().and_then(|n| n.checked_mul(unit)) {
        Some(n) if (1024..=65536).contains(&n) && n % 1024 == 0 => Ok(n),
        _ => Err(format!("--rdma-inline '{text}' is not a multiple of 1 KiB from 1KiB to 64KiB")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_sizes_take_kib_suffixes_and_stay_in_rfc_8797_steps() {
        assert_eq!(parse_inline("4096"), Ok(4096));
        assert_eq!(parse_inline("4k"), Ok(4096));
        assert_eq!(parse_inline("64KiB"), Ok(65536));
        for bad in ["512", "4097", "128k", "x"] {
            assert!(parse_inline(bad).unwrap_err().contains(bad), "{bad}");
        }
    }

    #[test]
    fn credits_are_never_zero() {
        assert_eq!(parse_credits("64"), Ok(64));
        assert!(parse_credits("0").is_err() && parse_credits("1025").is_err());
    }
}
