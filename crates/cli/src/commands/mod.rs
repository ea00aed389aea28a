pub mod compare;
pub mod decode;
pub mod model;
mod rdma_flags;
pub mod run;
pub mod serve;

/// Log to stderr at `warn` unless RUST_LOG says otherwise.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // Fails only when a subscriber is already installed, which is then kept.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).try_init();
}
