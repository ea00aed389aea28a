//! One-shot checks of the NFSv4.1 server's answers to hostile clients: each case sends what a hostile or
//! broken client sends and compares the answer with what RFC 8881 (and knfsd) require, collecting a
//! [`Verdict`] per case so that a test reports every wrong answer at once, not only the first.
//!
//! - [`compound`]: malformed COMPOUNDs ([`super::malformed`]'s probes), outside and inside a session;
//!   a refused SEQUENCE leaves its slot as it was; a record past the transport's limit is dropped.
//! - [`sessions`]: session and slot misuse — unknown sessions, slots past the table, sequence ids out of
//!   order, retries of uncached requests, replays from the cache, clamped CREATE_SESSION grants, the
//!   per-client session cap, csa_sequence misuse.
//! - [`stateids`]: forged, stale and borrowed stateids on READ/WRITE/LOCKU/CLOSE/FREE_STATEID/TEST_STATEID,
//!   and lock ranges past 2^64 − 1; no data is ever read or written under them.
//! - [`backchannel`]: callbacks answered, answered with garbage, or never: the path up or down as the
//!   server reports it in SEQUENCE's status flags.

pub mod backchannel;
pub mod compound;
pub mod sessions;
pub mod stateids;

use std::fmt;

use super::answer::Outcome;

/// One case: what was expected and what came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub case: String,
    pub expected: String,
    pub got: String,
    pub passed: bool,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.passed { "ok  " } else { "FAIL" };
        write!(f, "{mark} {}: expected {}, got {}", self.case, self.expected, self.got)
    }
}

/// The verdicts of a run of checks.
#[derive(Debug, Default)]
pub struct Verdicts(pub Vec<Verdict>);

impl Verdicts {
    /// `got` must be `expected`.
    pub fn outcome(&mut self, case: impl Into<String>, expected: &Outcome, got: &Outcome) {
        self.push(case, expected.to_string(), got.to_string(), expected == got);
    }

    /// `passed`, described by `expected` and `got`.
    pub fn that(&mut self, case: impl Into<String>, expected: impl Into<String>, got: impl Into<String>, passed: bool) {
        self.push(case, expected.into(), got.into(), passed);
    }

    fn push(&mut self, case: impl Into<String>, expected: String, got: String, passed: bool) {
        self.0.push(Verdict { case: case.into(), expected, got, passed });
    }

    /// The cases that failed.
    pub fn failures(&self) -> Vec<&Verdict> {
        self.0.iter().filter(|v| !v.passed).collect()
    }

    /// The verdict of `case`, if it ran.
    pub fn get(&self, case: &str) -> Option<&Verdict> {
        self.0.iter().find(|v| v.case == case)
    }
}

impl fmt::Display for Verdicts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.0 {
            writeln!(f, "{v}")?;
        }
        Ok(())
    }
}
