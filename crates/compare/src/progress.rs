//! Progress across the whole plan: a bar with the current cell and the time left on a terminal; one
//! line per finished cell otherwise (CI logs, pipes).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The plan's progress. Positions are planned milliseconds, so the ETA follows the cells' lengths.
#[derive(Debug)]
pub struct PlanProgress {
    bar: Option<ProgressBar>,
    done: u64,
    total: u64,
    cells_done: usize,
    cells: usize,
}

impl PlanProgress {
    /// `cells` cells taking `planned` in all.
    pub fn new(cells: usize, planned: Duration) -> PlanProgress {
        let total = planned.as_millis().max(1) as u64;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{bar:30.cyan/blue} {percent:>3}% eta {eta:>4} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        PlanProgress { bar, done: 0, total, cells_done: 0, cells }
    }

    /// A cell (or a preparation step) starts.
    pub fn start(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("[{}/{}] {what}", self.cells_done + 1, self.cells));
        }
    }

    /// A cell planned to take `planned` finished; `summary` is its figure.
    pub fn finish(&mut self, what: &str, planned: Duration, summary: &str) {
        self.cells_done += 1;
        self.done = (self.done + planned.as_millis() as u64).min(self.total);
        match &self.bar {
            Some(bar) => bar.set_position(self.done),
            None => eprintln!("nfsbench compare: [{}/{}] {what}: {summary}", self.cells_done, self.cells),
        }
    }

    /// Print a line above the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for PlanProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
