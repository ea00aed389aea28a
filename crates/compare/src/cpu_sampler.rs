//! The server process's CPU time, sampled from `/proc/PID/stat` every 20 ms in a thread, so that a
//! cell's server CPU can be taken over the cell's measured window (which `nfsbench run` reports after
//! the fact) rather than over its whole process lifetime (mount, ramp, unmount). The file is read by
//! `report::cpu`, the parser `nfsbench run` uses for its own CPU figures.

use report::cpu::{clock_ticks_per_second, ProcessStat};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const INTERVAL: Duration = Duration::from_millis(20);
/// Samples kept: 10 minutes' worth; older ones are dropped (a cell is far shorter).
const KEEP: usize = 30_000;

/// A running sampler; stops when dropped.
#[derive(Debug)]
pub struct CpuSampler {
    samples: Arc<Mutex<Vec<(f64, f64)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl CpuSampler {
    /// Sample process `pid`.
    pub fn start(pid: u32) -> CpuSampler {
        let clk_tck = clock_ticks_per_second() as f64;
        let samples = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (samples.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("nfsbench-cpu-sampler".into())
            .spawn(move || {
                while !st.load(Ordering::Relaxed) {
                    // Once the process is gone there is nothing left to sample: cpu_between says so.
                    if let Ok(stat) = ProcessStat::read(pid) {
                        let ticks = stat.cpu_ticks();
                        let mut v = s.lock().unwrap_or_else(|e| e.into_inner());
                        if v.len() >= KEEP {
                            v.drain(..KEEP / 2);
                        }
                        v.push((now_ms(), ticks as f64 / clk_tck));
                    }
                    std::thread::sleep(INTERVAL);
                }
            })
            .ok();
        CpuSampler { samples, stop, thread }
    }

    /// CPU-seconds the process used between two instants (ms since the epoch), interpolated between
    /// samples; waits (up to 10 intervals) for the first sample after `to_ms`. `None` when the samples do
    /// not cover the window (the process exited).
    pub fn cpu_between(&self, from_ms: f64, to_ms: f64) -> Option<f64> {
        for _ in 0..10 {
            let covered =
                self.samples.lock().unwrap_or_else(|e| e.into_inner()).last().is_some_and(|(t, _)| *t > to_ms);
            if covered {
                break;
            }
            std::thread::sleep(INTERVAL);
        }
        let v = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        Some(interpolate(&v, to_ms)? - interpolate(&v, from_ms)?).map(|d| d.max(0.0))
    }
}

impl Drop for CpuSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The value at time `t` on the piecewise-linear curve through `samples` (sorted by time).
fn interpolate(samples: &[(f64, f64)], t: f64) -> Option<f64> {
    let i = samples.partition_point(|(ts, _)| *ts <= t);
    if i == 0 || i == samples.len() {
        return None;
    }
    let ((t0, v0), (t1, v1)) = (samples[i - 1], samples[i]);
    Some(if t1 > t0 { v0 + (v1 - v0) * (t - t0) / (t1 - t0) } else { v1 })
}

fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_needs_samples_on_both_sides() {
        let s = [(0.0, 0.0), (100.0, 1.0), (200.0, 3.0)];
        assert_eq!(interpolate(&s, 50.0), Some(0.5));
        assert_eq!(interpolate(&s, 150.0), Some(2.0));
        assert_eq!(interpolate(&s, -1.0), None);
        assert_eq!(interpolate(&s, 250.0), None);
    }

    #[test]
    fn this_process_can_be_sampled() {
        let pid = std::process::id();
        let sampler = CpuSampler::start(pid);
        std::thread::sleep(Duration::from_millis(60));
        let from = now_ms();
        let spin_until = std::time::Instant::now() + Duration::from_millis(150);
        let mut x = 0u64;
        while std::time::Instant::now() < spin_until {
            x = x.wrapping_add(1);
        }
        let to = now_ms();
        std::thread::sleep(Duration::from_millis(60));
        let used = sampler.cpu_between(from, to).expect("covered");
        assert!(used >= 0.0 && x > 0);
    }
}
