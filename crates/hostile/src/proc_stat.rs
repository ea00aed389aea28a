//! A process's memory as the kernel counts it.

/// Resident set size of process `pid` in bytes (`VmRSS` of `/proc/PID/status`); `None` when the process
/// is gone or the line is missing.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_has_a_resident_set() {
        let rss = super::rss_bytes(std::process::id()).expect("VmRSS");
        assert!(rss > 1 << 20, "{rss}");
    }
}
