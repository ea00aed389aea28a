#![no_main]
//! /proc/self/mountstats text (crates/mountstats) on arbitrary input.
//!
//! Input: UTF-8 text (invalid sequences replaced) split at the first NUL into a mount.nfs option string
//! and the mountstats text (no NUL: all of it is mountstats, the options are empty). Must not panic;
//! errors must print; what parses stays within the input (no more mounts than lines, no more ops and
//! transports in a section than lines); every mount gives a window against itself (all zero) and
//! against the mount before it, and option checks against the asked string.
use libfuzzer_sys::fuzz_target;
use mountstats::{check_options, differs, parse, Mount};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (asked, stats) = match text.split_once('\0') {
        Some((a, s)) => (a, s),
        None => ("", &*text),
    };
    let mounts = match parse(stats) {
        Ok(mounts) => mounts,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let lines = stats.lines().count();
    assert!(mounts.len() <= lines, "{} mounts from {lines} lines", mounts.len());
    let mut before: Option<&Mount> = None;
    for m in &mounts {
        if let Some(nfs) = &m.nfs {
            assert!(nfs.ops.len() + nfs.transports.len() <= lines);
        }
        let idle = m.delta(m);
        assert!(idle.ops.is_empty(), "a mount against itself did nothing");
        assert!(idle.transports.iter().all(|t| t.sends == 0 && t.recvs == 0));
        let w = m.delta(before.unwrap_or(m));
        assert_eq!(w.transports.len(), m.transports().len());
        let checks = check_options(asked, m);
        let _ = differs(&checks);
        assert!(Mount::find(&mounts, &m.mountpoint).is_some(), "{:?} is not found", m.mountpoint);
        before = Some(m);
    }
});
