//! CPU and context-switch sampling from procfs, no `unsafe`, no libc.
//!
//! - `/proc/self/stat`: utime, stime (clock ticks), minflt, majflt — summed over all threads by the kernel,
//!   including threads that already exited. [`ProcessStat`] reads the same for any process
//!   (`/proc/PID/stat`), e.g. a server sampled from outside.
//! - `/proc/self/task/*/status`: voluntary and nonvoluntary context switches, summed over live threads
//!   (`/proc/self/status` alone reports only the main thread). Threads that exited between two snapshots
//!   take their switches with them; deltas saturate at 0.
//! - `/proc/stat`: host-wide `cpu` line, `intr` total and `ctxt`.
//! - Clock ticks per second from the `AT_CLKTCK` entry of `/proc/self/auxv` (100 if absent).

use std::fs;
use std::io;
use std::time::Duration;

/// One reading of this process's and the host's CPU counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuSnapshot {
    utime_ticks: u64,
    stime_ticks: u64,
    minflt: u64,
    majflt: u64,
    voluntary_ctx: u64,
    nonvoluntary_ctx: u64,
    clk_tck: u64,
    host: HostCpu,
}

/// The host-wide counters of `/proc/stat`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct HostCpu {
    user: u64,
    system: u64,
    idle: u64,
    total: u64,
    intr: u64,
    ctxt: u64,
}

/// CPU use between two snapshots, in the units fio reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpuUsage {
    /// User CPU time as a percentage of wall time (can exceed 100 with several threads).
    pub usr_pct: f64,
    /// System CPU time as a percentage of wall time.
    pub sys_pct: f64,
    /// Voluntary + nonvoluntary context switches.
    pub ctx: u64,
    /// Major page faults.
    pub majf: u64,
    /// Minor page faults.
    pub minf: u64,
    /// Host user+nice share of all CPU time, percent.
    pub host_usr_pct: f64,
    /// Host system+irq+softirq share, percent.
    pub host_sys_pct: f64,
    /// Host idle+iowait share, percent.
    pub host_idle_pct: f64,
    /// This process's user+system CPU seconds.
    pub cpu_seconds: f64,
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("cannot parse {what}"))
}

/// One process's CPU counters from its `/proc/PID/stat` (proc(5) fields 14, 15, 10, 12), summed over
/// all its threads by the kernel, including threads that already exited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessStat {
    /// User CPU time, in clock ticks ([`clock_ticks_per_second`]).
    pub utime_ticks: u64,
    /// System CPU time, in clock ticks.
    pub stime_ticks: u64,
    /// Minor page faults.
    pub minflt: u64,
    /// Major page faults.
    pub majflt: u64,
}

/// The text is no `/proc/PID/stat` line: `field` (proc(5) numbering) is missing or not a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field {field} of the stat line is missing or not a number")]
pub struct MalformedStat {
    /// proc(5)'s number of the field (2 is the command name's closing parenthesis).
    pub field: usize,
}

impl ProcessStat {
    /// Parses the text of a `/proc/PID/stat` file.
    pub fn parse(text: &str) -> Result<ProcessStat, MalformedStat> {
        // The command name (field 2) may contain spaces and parentheses; fields resume after the last ')'.
        let rest = text.rfind(')').map(|i| &text[i + 1..]).ok_or(MalformedStat { field: 2 })?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // fields[0] is field 3 (state), so field N is fields[N - 3].
        let get = |field: usize| fields.get(field - 3).and_then(|f| f.parse().ok()).ok_or(MalformedStat { field });
        Ok(ProcessStat { utime_ticks: get(14)?, stime_ticks: get(15)?, minflt: get(10)?, majflt: get(12)? })
    }

    /// Reads process `pid`'s counters now. `NotFound` once the process is gone; `InvalidData` (holding
    /// a [`MalformedStat`]) when the file does not parse.
    pub fn read(pid: u32) -> io::Result<ProcessStat> {
        Self::read_file(&format!("/proc/{pid}/stat"))
    }

    /// This process's user + system CPU time, in clock ticks.
    pub fn cpu_ticks(&self) -> u64 {
        self.utime_ticks + self.stime_ticks
    }

    fn read_file(path: &str) -> io::Result<ProcessStat> {
        let text = fs::read_to_string(path)?;
        Self::parse(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("cannot parse {path}: {e}")))
    }
}

/// The kernel's clock ticks per second (the unit of [`ProcessStat`]'s times): `AT_CLKTCK` from this
/// process's auxiliary vector, 100 if absent.
pub fn clock_ticks_per_second() -> u64 {
    fs::read("/proc/self/auxv").ok().and_then(|b| parse_auxv_clk_tck(&b)).unwrap_or(100)
}

/// (voluntary, nonvoluntary) context switches from the text of a `status` file.
fn parse_status_ctx(text: &str) -> (u64, u64) {
    let mut vol = 0;
    let mut nonvol = 0;
    for line in text.lines() {
        let value = |l: &str| l.split(':').nth(1).and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(0);
        if line.starts_with("voluntary_ctxt_switches:") {
            vol = value(line);
        } else if line.starts_with("nonvoluntary_ctxt_switches:") {
            nonvol = value(line);
        }
    }
    (vol, nonvol)
}

fn parse_proc_stat(text: &str) -> io::Result<HostCpu> {
    let mut host = HostCpu::default();
    let mut seen_cpu = false;
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("cpu") => {
                let v: Vec<u64> = it.map(|f| f.parse().unwrap_or(0)).collect();
                let at = |i: usize| v.get(i).copied().unwrap_or(0);
                // user nice system idle iowait irq softirq steal (guest time is already inside user).
                host.user = at(0) + at(1);
                host.system = at(2) + at(5) + at(6);
                host.idle = at(3) + at(4);
                host.total = (0..8).map(at).sum();
                seen_cpu = true;
            }
            Some("intr") => host.intr = it.next().and_then(|f| f.parse().ok()).unwrap_or(0),
            Some("ctxt") => host.ctxt = it.next().and_then(|f| f.parse().ok()).unwrap_or(0),
            _ => {}
        }
    }
    if seen_cpu {
        Ok(host)
    } else {
        Err(invalid("/proc/stat"))
    }
}

/// `AT_CLKTCK` (17) from the auxiliary vector: pairs of native-endian words.
fn parse_auxv_clk_tck(bytes: &[u8]) -> Option<u64> {
    const AT_CLKTCK: u64 = 17;
    let word = std::mem::size_of::<usize>();
    let read = |b: &[u8]| -> Option<u64> {
        let arr: [u8; std::mem::size_of::<usize>()] = b.try_into().ok()?;
        u64::try_from(usize::from_ne_bytes(arr)).ok()
    };
    bytes.chunks_exact(2 * word).find_map(|pair| {
        let key = read(&pair[..word])?;
        (key == AT_CLKTCK).then(|| read(&pair[word..])).flatten().filter(|&v| v > 0)
    })
}

fn context_switches() -> (u64, u64) {
    let mut total = (0, 0);
    let mut any = false;
    if let Ok(tasks) = fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            // A thread may exit between listing and reading: skip it.
            if let Ok(text) = fs::read_to_string(task.path().join("status")) {
                let (v, n) = parse_status_ctx(&text);
                total = (total.0 + v, total.1 + n);
                any = true;
            }
        }
    }
    if !any {
        if let Ok(text) = fs::read_to_string("/proc/self/status") {
            total = parse_status_ctx(&text);
        }
    }
    total
}

impl CpuSnapshot {
    /// Reads the counters now.
    pub fn now() -> io::Result<Self> {
        let ProcessStat { utime_ticks, stime_ticks, minflt, majflt } = ProcessStat::read_file("/proc/self/stat")?;
        let (voluntary_ctx, nonvoluntary_ctx) = context_switches();
        let clk_tck = clock_ticks_per_second();
        let host = parse_proc_stat(&fs::read_to_string("/proc/stat")?)?;
        Ok(Self { utime_ticks, stime_ticks, minflt, majflt, voluntary_ctx, nonvoluntary_ctx, clk_tck, host })
    }

    /// Host interrupts since boot (`intr` in /proc/stat).
    pub fn host_interrupts(&self) -> u64 {
        self.host.intr
    }

    /// Host context switches since boot (`ctxt` in /proc/stat).
    pub fn host_context_switches(&self) -> u64 {
        self.host.ctxt
    }

    /// This process's user + system CPU seconds since it started.
    pub fn cpu_seconds(&self) -> f64 {
        (self.utime_ticks + self.stime_ticks) as f64 / self.clk_tck.max(1) as f64
    }
}

impl CpuUsage {
    /// Use between snapshot `a` and later snapshot `b`, `wall` apart.
    pub fn between(a: &CpuSnapshot, b: &CpuSnapshot, wall: Duration) -> Self {
        let tck = b.clk_tck.max(1) as f64;
        let secs = |ticks: u64| ticks as f64 / tck;
        let du = b.utime_ticks.saturating_sub(a.utime_ticks);
        let ds = b.stime_ticks.saturating_sub(a.stime_ticks);
        let wall_s = wall.as_secs_f64();
        let pct_of_wall = |t: u64| if wall_s > 0.0 { secs(t) * 100.0 / wall_s } else { 0.0 };
        let host_total = b.host.total.saturating_sub(a.host.total);
        let host_pct = |x: u64, y: u64| {
            if host_total == 0 {
                0.0
            } else {
                x.saturating_sub(y) as f64 * 100.0 / host_total as f64
            }
        };
        Self {
            usr_pct: pct_of_wall(du),
            sys_pct: pct_of_wall(ds),
            ctx: (b.voluntary_ctx + b.nonvoluntary_ctx).saturating_sub(a.voluntary_ctx + a.nonvoluntary_ctx),
            majf: b.majflt.saturating_sub(a.majflt),
            minf: b.minflt.saturating_sub(a.minflt),
            host_usr_pct: host_pct(b.host.user, a.host.user),
            host_sys_pct: host_pct(b.host.system, a.host.system),
            host_idle_pct: host_pct(b.host.idle, a.host.idle),
            cpu_seconds: secs(du + ds),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_stat_parsing_survives_parentheses_in_the_command_name() {
        let text = "42 (we ird) (x)) S 1 42 42 0 -1 4194560 7 0 3 0 11 22 0 0 20 0 1 0 5 0 0";
        let stat = ProcessStat::parse(text).unwrap();
        assert_eq!(stat, ProcessStat { utime_ticks: 11, stime_ticks: 22, minflt: 7, majflt: 3 });
        assert_eq!(stat.cpu_ticks(), 33);
    }

    #[test]
    fn a_truncated_or_nameless_stat_line_names_the_field_it_lacks() {
        assert_eq!(ProcessStat::parse("42 cat S 1"), Err(MalformedStat { field: 2 }));
        assert_eq!(ProcessStat::parse("42 (cat) S 1 42 42 0 -1 4194560 7 0 3 0 11"), Err(MalformedStat { field: 15 }));
        assert_eq!(
            ProcessStat::parse("42 (cat) S 1 42 42 0 -1 4194560 x 0 3 0 11 22"),
            Err(MalformedStat { field: 10 })
        );
    }

    #[test]
    fn another_process_is_read_by_pid_and_a_gone_one_is_not_found() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().expect("spawn sleep");
        let stat = ProcessStat::read(child.id());
        child.kill().expect("kill");
        child.wait().expect("reap");
        assert!(stat.is_ok(), "{stat:?}");
        let gone = ProcessStat::read(child.id()).expect_err("reaped");
        assert_eq!(gone.kind(), io::ErrorKind::NotFound);
        let own = ProcessStat::read(std::process::id()).expect("own stat");
        assert!(own.minflt > 0, "a running test has faulted pages in: {own:?}");
    }

    #[test]
    fn host_percentages_come_from_cpu_line_deltas() {
        let a = parse_proc_stat("cpu 100 0 50 800 50 0 0 0 0 0\nintr 5 1 2\nctxt 9\n").unwrap();
        let b = parse_proc_stat("cpu 125 5 65 850 55 0 0 0 0 0\nintr 8\nctxt 20\n").unwrap();
        let snap = |host: HostCpu| CpuSnapshot { clk_tck: 100, host, ..Default::default() };
        let u = CpuUsage::between(&snap(a), &snap(b), Duration::from_secs(1));
        assert!((u.host_usr_pct - 30.0).abs() < 1e-9);
        assert!((u.host_sys_pct - 15.0).abs() < 1e-9);
        assert!((u.host_idle_pct - 55.0).abs() < 1e-9);
    }

    #[test]
    fn auxv_clock_tick_entry_is_found() {
        let mut v = Vec::new();
        for (k, val) in [(6usize, 4096usize), (17, 250), (0, 0)] {
            v.extend_from_slice(&k.to_ne_bytes());
            v.extend_from_slice(&val.to_ne_bytes());
        }
        assert_eq!(parse_auxv_clk_tck(&v), Some(250));
    }
}
