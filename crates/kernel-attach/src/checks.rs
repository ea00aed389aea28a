//! Building the asked-against-negotiated checks, in the `mountstats` shape so that reports treat NFS
//! mounts and block attachments alike.

use mountstats::{OptionCheck, Verdict};

use crate::options::Asked;

/// The kernel shows what was asked.
pub(crate) fn same(asked: &Asked, negotiated: impl Into<String>) -> OptionCheck {
    check(asked, Some(negotiated.into()), Verdict::Same, None)
}

/// The kernel shows something else; `note` says why where the rule is known.
pub(crate) fn differs(asked: &Asked, negotiated: impl Into<String>, note: Option<String>) -> OptionCheck {
    check(asked, Some(negotiated.into()), Verdict::Differs, note)
}

/// The kernel has no file for it.
pub(crate) fn not_shown(asked: &Asked, note: impl Into<String>) -> OptionCheck {
    check(asked, None, Verdict::NotShown, Some(note.into()))
}

/// Same when `negotiated` equals `expected`, else Differs with `note`; NotShown when absent.
pub(crate) fn compare(
    asked: &Asked,
    expected: &str,
    negotiated: Option<String>,
    absent: &str,
    note: impl FnOnce(&str) -> Option<String>,
) -> OptionCheck {
    match negotiated {
        None => not_shown(asked, absent),
        Some(n) if n == expected => same(asked, n),
        Some(n) => {
            let why = note(&n);
            differs(asked, n, why)
        }
    }
}

fn check(asked: &Asked, negotiated: Option<String>, verdict: Verdict, note: Option<String>) -> OptionCheck {
    OptionCheck { key: asked.key.to_string(), asked: asked.written.clone(), negotiated, verdict, note }
}
