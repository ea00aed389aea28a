//! The live progress line on stderr, fio's eta line (`Jobs: 4 (f=4): [r(4)][35.0%][r=2150MiB/s][r=2150
//! IOPS][eta 00m:39s]`), once a second: redrawn in place on a terminal, one line per second otherwise
//! (`--eta=always` into a file or pipe).

use load_engine::LiveCounters;
use report::{Progress, ProgressSnapshot};
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running progress line; `stop` clears it.
#[derive(Debug)]
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
    let files: u32 = jobs.jobs.iter().map(|j| j.file_count() * j.numjobs.max(1)).sum();
    let (stop, mut stopped) = oneshot::channel();
    let task = tokio::spawn(async move {
        let tty = std::io::stderr().is_terminal();
        // The clock starts when the first job runs, after mounting and laying out files.
        let mut start = None;
        let mut progress = Progress::new();
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                _ = &mut stopped => break,
                _ = tick.tick() => {}
            }
            let counters = live.snapshot();
            let phases = live.phases();
            if start.is_none() && counters.running > 0 {
                start = Some(Instant::now());
            }
            let elapsed = start.map_or(Duration::ZERO, |s| s.elapsed());
            let snapshot = ProgressSnapshot {
                now: Instant::now(),
                phases,
                files_open: files,
                io_bytes: [counters.read_bytes, counters.write_bytes],
                total_ios: [counters.read_ios, counters.write_ios],
                elapsed,
                eta: planned.map(|p| p.saturating_sub(elapsed)),
            };
            let mut err = std::io::stderr().lock();
            let _ = if tty {
                write!(err, "{}", progress.tty_line(&snapshot))
            } else {
                writeln!(err, "{}", progress.line(&snapshot))
            };
            let _ = err.flush();
        }
        if tty {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    });
    Ticker { stop, task }
}

/// The longest job's startdelay + ramp + runtime, summed over groups, when every job has a runtime.
fn planned_duration(jobs: &fio_job::JobSet) -> Option<Duration> {
    let mut groups = std::collections::BTreeMap::<u32, Duration>::new();
    for job in &jobs.jobs {
        let length = job.startdelay + job.ramp_time + job.runtime?;
        let entry = groups.entry(job.group).or_default();
        *entry = (*entry).max(length);
    }
    Some(groups.values().sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_sums_the_longest_job_of_each_group() {
        let args: Vec<String> =
            ["--size=1m", "--name=a", "--runtime=5", "--ramp_time=1", "--name=b", "--stonewall", "--runtime=3"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        let jobs = fio_job::parse(None, &args).expect("jobs");
        assert_eq!(planned_duration(&jobs), Some(Duration::from_secs(9)));
    }
}
