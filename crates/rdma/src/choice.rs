//! Which provider a user asked for (`--rdma-provider auto|verbs|soft`).

use std::fmt;
use std::str::FromStr;

/// The provider selection: `Auto` takes the verbs provider when an RDMA device exists and the
/// software provider otherwise; the others insist on one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProviderChoice {
    #[default]
    Auto,
    Verbs,
    Soft,
}

impl FromStr for ProviderChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "auto" => Ok(ProviderChoice::Auto),
            "verbs" => Ok(ProviderChoice::Verbs),
            "soft" => Ok(ProviderChoice::Soft),
            other => Err(format!("unknown RDMA provider '{other}' (auto, verbs or soft)")),
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
        assert!("shm".parse::<ProviderChoice>().unwrap_err().contains("'shm'"));
    }
}
