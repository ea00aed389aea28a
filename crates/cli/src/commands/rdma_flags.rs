//! The RPC-over-RDMA flags `run` and `serve` share: `--rdma-provider`, `--rdma-credits` and
//! `--rdma-inline` are read by mount-options' typed parsers (`ProviderChoice::from_str`,
//! `mount_options::rdma::parse_credits` and `parse_inline`, which clap takes as they are), and what a
//! client's flags give is one [`RdmaSettings`] ([`rdma_settings`]); opening the provider
//! `--rdma-provider` names is in [`super::provider`].

use mount_options::{ProviderChoice, RdmaSettings};

/// The settings a client's `--rdma-provider`, `--rdma-credits` and `--rdma-inline` give (each flag
/// already parsed; `None`: not given), the Linux client's defaults where a flag is absent.
pub fn rdma_settings(provider: ProviderChoice, credits: Option<u32>, inline_size: Option<u32>) -> RdmaSettings {
    let defaults = RdmaSettings::default();
    RdmaSettings {
        provider,
        credits: credits.unwrap_or(defaults.credits),
        inline_size: inline_size.unwrap_or(defaults.inline_size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_flags_leave_the_linux_clients_credits_and_inline_threshold() {
        let given = rdma_settings(ProviderChoice::Soft, Some(32), Some(8192));
        assert_eq!(given, RdmaSettings { provider: ProviderChoice::Soft, credits: 32, inline_size: 8192 });
        let absent = rdma_settings(ProviderChoice::Auto, None, None);
        assert_eq!((absent.credits, absent.inline_size), (128, 4096));
        assert_eq!(absent, RdmaSettings::default());
    }
}
