pub mod compare;
pub mod decode;
pub mod kernel_engine;
pub mod model;
pub mod mountstats;
pub mod provider;
mod rdma_flags;
pub mod run;
pub mod serve;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::log_limit::{spawn_summaries, RateLimit};

/// Log to stderr at `warn` unless RUST_LOG says otherwise, each call site at most
/// [`crate::log_limit::BURST`] lines a second (then one line counting the rest).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let limit = RateLimit::new();
    let counts = limit.counts();
    let fmt = tracing_subscriber::fmt::layer().with_ansi(ansi).with_writer(std::io::stderr);
    // Fails only when a subscriber is already installed, which is then kept.
    if tracing_subscriber::registry().with(filter).with(limit).with(fmt).try_init().is_ok() {
        spawn_summaries(counts);
    }
}
