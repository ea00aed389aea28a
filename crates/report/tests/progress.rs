//! fio's live status line.

use std::time::{Duration, Instant};

use report::{eta_string, run_string, JobPhase, Progress, ProgressSnapshot};

const RANDREAD: JobPhase = JobPhase::Running { read: true, write: false, random: true };

fn snap(now: Instant, bytes: u64, ios: u64, elapsed: u64, eta: Option<u64>) -> ProgressSnapshot {
    ProgressSnapshot {
        now,
        phases: vec![RANDREAD; 4],
        files_open: 4,
        io_bytes: [bytes, 0],
        total_ios: [ios, 0],
        elapsed: Duration::from_secs(elapsed),
        eta: eta.map(Duration::from_secs),
    }
}

#[test]
fn progress_line_matches_fios_format() {
    let t0 = Instant::now();
    let mut p = Progress::new();
    // The first line has no previous counters, hence no rates.
    assert_eq!(p.line(&snap(t0, 0, 0, 20, Some(40))), "Jobs: 4 (f=4): [r(4)][33.3%][eta 00m:40s]");
    let mib = 1u64 << 20;
    let line = p.line(&snap(t0 + Duration::from_secs(1), 2150 * mib, 2150, 21, Some(39)));
    assert_eq!(line, "Jobs: 4 (f=4): [r(4)][35.0%][r=2150MiB/s][r=2150 IOPS][eta 00m:39s]");
}

#[test]
fn run_string_condenses_like_fio() {
    let w = JobPhase::Running { read: false, write: true, random: false };
    assert_eq!(run_string(&[RANDREAD, RANDREAD, w, JobPhase::Done { error: false }]), "r(2),W(1),_(1)");
    assert_eq!(run_string(&[JobPhase::Ramp]), "/(1)");
}

#[test]
fn eta_shows_hours_and_days_only_when_needed() {
    assert_eq!(eta_string(Duration::from_secs(39)), "00m:39s");
    assert_eq!(eta_string(Duration::from_secs(3 * 3600 + 61)), "03h:01m:01s");
    assert_eq!(eta_string(Duration::from_secs(2 * 86400 + 5)), "02d:00h:00m:05s");
}

#[test]
fn ramping_or_unknown_eta_shows_no_percentage() {
    let t0 = Instant::now();
    let mut p = Progress::new();
    let mut s = snap(t0, 0, 0, 5, None);
    assert_eq!(p.line(&s), "Jobs: 4 (f=4): [r(4)][-.-%][eta --]");
    s.phases = vec![JobPhase::Ramp; 4];
    s.eta = Some(Duration::from_secs(10));
    assert_eq!(p.line(&s), "Jobs: 4 (f=4): [/(4)][-.-%][eta 00m:10s]");
}

#[test]
fn tty_line_overwrites_a_longer_previous_line() {
    let t0 = Instant::now();
    let mut p = Progress::new();
    let long = p.tty_line(&snap(t0, 0, 0, 20, Some(40)));
    let mut s = snap(t0, 0, 0, 20, Some(40));
    s.phases = vec![JobPhase::Done { error: false }; 4];
    let short = p.tty_line(&s);
    assert!(long.ends_with('\r') && short.ends_with('\r'));
    assert_eq!(short.len(), long.len());
    assert!(short.starts_with("Jobs: 0 (f=4)"));
}
