//! The live progress line on stderr, fio's "Jobs: ..." eta line: bandwidth and IOPS over the last
//! second, and the time left when the jobs have a runtime.

use bench::{LiveCounters, LiveSnapshot};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running progress line; `stop` clears it.
pub struct Ticker {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Ticker {
    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// Start drawing the line once a second.
pub fn spawn(live: Arc<LiveCounters>, jobs: &fio_job::JobSet) -> Ticker {
    let planned = planned_duration(jobs);
    let (stop, mut stopped) = oneshot::channel();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template("{msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    let task = tokio::spawn(async move {
        let start = Instant::now();
        let mut last = (start, live.snapshot());
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                _ = &mut stopped => break,
                _ = tick.tick() => {}
            }
            let now = (Instant::now(), live.snapshot());
            bar.set_message(line(&last, &now, planned.map(|p| p.saturating_sub(start.elapsed()))));
            last = now;
        }
        bar.finish_and_clear();
    });
    Ticker { stop, task }
}

/// The longest group's ramp + runtime + startdelay summed over groups, when every job has a runtime.
fn planned_duration(jobs: &fio_job::JobSet) -> Option<Duration> {
    let mut groups = std::collections::BTreeMap::<u32, Duration>::new();
    for job in &jobs.jobs {
        let length = job.startdelay + job.ramp_time + job.runtime?;
        let entry = groups.entry(job.group).or_default();
        *entry = (*entry).max(length);
    }
    Some(groups.values().sum())
}

fn line(last: &(Instant, LiveSnapshot), now: &(Instant, LiveSnapshot), eta: Option<Duration>) -> String {
    let secs = now.0.duration_since(last.0).as_secs_f64().max(1e-3);
    let rate = |a: u64, b: u64| (b.saturating_sub(a)) as f64 / secs;
    let (r_bw, w_bw) = (rate(last.1.read_bytes, now.1.read_bytes), rate(last.1.write_bytes, now.1.write_bytes));
    let (r_iops, w_iops) = (rate(last.1.read_ios, now.1.read_ios), rate(last.1.write_ios, now.1.write_ios));
    let eta =
        eta.map_or_else(|| "--m:--s".to_string(), |d| format!("{:02}m:{:02}s", d.as_secs() / 60, d.as_secs() % 60));
    format!(
        "Jobs: {} [r={}/s,w={}/s][r={:.0},w={:.0} IOPS][eta {eta}]",
        now.1.running,
        human(r_bw),
        human(w_bw),
        r_iops,
        w_iops
    )
}

/// Bytes per second as fio prints them (KiB, MiB, GiB).
fn human(bytes_per_sec: f64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes_per_sec;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1}{}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_rates_over_the_interval() {
        let t = Instant::now();
        let a = LiveSnapshot { read_bytes: 0, read_ios: 0, running: 2, ..LiveSnapshot::default() };
        let b = LiveSnapshot { read_bytes: 2 << 30, read_ios: 2048, running: 2, ..LiveSnapshot::default() };
        let text = line(&(t, a), &(t + Duration::from_secs(2), b), Some(Duration::from_secs(75)));
        assert_eq!(text, "Jobs: 2 [r=1.0GiB/s,w=0.0B/s][r=1024,w=0 IOPS][eta 01m:15s]");
    }
}
