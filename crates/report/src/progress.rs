//! The live status line fio prints while jobs run (eta.c `display_thread_status`):
//! `Jobs: 4 (f=4): [r(4)][35.0%][r=2150MiB/s][r=2150 IOPS][eta 00m:39s]`.
//! Rates are computed from the difference between two calls, as fio does between two displays.

use std::time::{Duration, Instant};

use crate::units::{num2str, Unit};
use crate::Dir;

/// What one job is doing, shown as one letter of fio's run string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobPhase {
    /// Not started yet ('P').
    Pending,
    /// Setting up: mounting, laying out files ('I').
    SettingUp,
    /// Inside ramp_time ('/').
    Ramp,
    /// Doing I/O: r/w/m when random, R/W/M when sequential (m/M: mixed reads and writes).
    Running {
        /// Issues reads.
        read: bool,
        /// Issues writes.
        write: bool,
        /// Random offsets.
        random: bool,
    },
    /// Verifying ('V').
    Verifying,
    /// fsync/COMMIT at the end ('F').
    Fsyncing,
    /// Finishing ('f').
    Finishing,
    /// Done ('_'), or failed ('X').
    Done {
        /// Ended with an error.
        error: bool,
    },
}

impl JobPhase {
    /// fio's letter for this phase.
    pub fn letter(self) -> char {
        match self {
            JobPhase::Pending => 'P',
            JobPhase::SettingUp => 'I',
            JobPhase::Ramp => '/',
            JobPhase::Running { read, write, random } => match (read, write, random) {
                (true, true, true) => 'm',
                (true, true, false) => 'M',
                (false, true, true) => 'w',
                (false, true, false) => 'W',
                (_, _, true) => 'r',
                (_, _, false) => 'R',
            },
            JobPhase::Verifying => 'V',
            JobPhase::Fsyncing => 'F',
            JobPhase::Finishing => 'f',
            JobPhase::Done { error: false } => '_',
            JobPhase::Done { error: true } => 'X',
        }
    }

    fn is_running(self) -> bool {
        matches!(
            self,
            JobPhase::Ramp | JobPhase::Running { .. } | JobPhase::Verifying | JobPhase::Fsyncing | JobPhase::Finishing
        )
    }
}

/// fio's condensed run string: "rrrw" → "r(3),w(1)".
pub fn run_string(phases: &[JobPhase]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < phases.len() {
        let c = phases[i].letter();
        let n = phases[i..].iter().take_while(|p| p.letter() == c).count();
        parts.push(format!("{c}({n})"));
        i += n;
    }
    parts.join(",")
}

/// fio's `eta_to_str`: "39s" → "00m:39s", with hours and days when needed.
pub fn eta_string(eta: Duration) -> String {
    let mut s = eta.as_secs();
    let sec = s % 60;
    s /= 60;
    let min = s % 60;
    s /= 60;
    let hours = s % 24;
    let days = s / 24;
    let mut out = String::new();
    if days > 0 {
        out.push_str(&format!("{days:02}d:"));
    }
    if hours > 0 || days > 0 {
        out.push_str(&format!("{hours:02}h:"));
    }
    out.push_str(&format!("{min:02}m:{sec:02}s"));
    out
}

/// Counters the engine hands in at each display.
#[derive(Clone, Debug)]
pub struct ProgressSnapshot {
    /// When the counters were read.
    pub now: Instant,
    /// One phase per job (clones included).
    pub phases: Vec<JobPhase>,
    /// Files (or NFS file handles) open.
    pub files_open: u32,
    /// Bytes completed so far, [read, write].
    pub io_bytes: [u64; 2],
    /// I/Os completed so far, [read, write].
    pub total_ios: [u64; 2],
    /// Time since the run started.
    pub elapsed: Duration,
    /// Estimated time left, if known.
    pub eta: Option<Duration>,
}

/// Keeps the previous counters to turn totals into rates; one per display.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    prev: Option<(Instant, [u64; 2], [u64; 2])>,
    last_len: usize,
}

impl Progress {
    /// A display with no history: the first line shows no rates.
    pub fn new() -> Self {
        Self::default()
    }

    /// The status line for `s` (no trailing '\r').
    pub fn line(&mut self, s: &ProgressSnapshot) -> String {
        let mut rate_kib = [0u64; 2];
        let mut iops = [0u64; 2];
        if let Some((t, bytes, ios)) = self.prev {
            let ms = s.now.saturating_duration_since(t).as_millis() as u64;
            for d in 0..2 {
                let per_sec = |delta: u64| delta.saturating_mul(1000).checked_div(ms).unwrap_or(0);
                rate_kib[d] = per_sec(s.io_bytes[d].saturating_sub(bytes[d])) / 1024;
                iops[d] = per_sec(s.total_ios[d].saturating_sub(ios[d]));
            }
        }
        self.prev = Some((s.now, s.io_bytes, s.total_ios));
        let running = s.phases.iter().filter(|p| p.is_running()).count();
        let mut out = format!("Jobs: {running} (f={})", s.files_open);
        if running == 0 {
            return out;
        }
        let all_ramp = s.phases.iter().filter(|p| p.is_running()).all(|p| *p == JobPhase::Ramp);
        let (perc, eta) = match s.eta {
            Some(eta) if !(all_ramp || eta.is_zero() && s.elapsed.is_zero()) => {
                let e = s.elapsed.as_secs_f64();
                let total = e + eta.as_secs_f64();
                let p = if total > 0.0 { e / total * 100.0 } else { 0.0 };
                (format!("{p:3.1}%"), eta_string(eta))
            }
            Some(eta) => ("-.-%".to_string(), eta_string(eta)),
            None => ("-.-%".to_string(), "--".to_string()),
        };
        out.push_str(&format!(": [{}][{perc}]", run_string(&s.phases)));
        let has: Vec<Dir> = Dir::ALL.into_iter().filter(|d| rate_kib[d.index()] > 0 || iops[d.index()] > 0).collect();
        if !has.is_empty() {
            let letter = |d: Dir| if d == Dir::Read { 'r' } else { 'w' };
            let rates: Vec<String> = has
                .iter()
                .map(|&d| format!("{}={}", letter(d), num2str(rate_kib[d.index()], 4, 1024, true, Unit::BytePerSec)))
                .collect();
            let ops: Vec<String> = has
                .iter()
                .map(|&d| format!("{}={}", letter(d), num2str(iops[d.index()], 4, 1, false, Unit::None)))
                .collect();
            out.push_str(&format!("[{}][{} IOPS]", rates.join(","), ops.join(",")));
        }
        out.push_str(&format!("[eta {eta}]"));
        out
    }

    /// The line padded with spaces over the previous one and ended with '\r', for a terminal.
    pub fn tty_line(&mut self, s: &ProgressSnapshot) -> String {
        let mut line = self.line(s);
        let len = line.chars().count();
        if len < self.last_len {
            line.push_str(&" ".repeat(self.last_len - len));
        }
        self.last_len = len;
        line.push('\r');
        line
    }
}
