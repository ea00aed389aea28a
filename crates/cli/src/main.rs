//! The `nfsbench` command line (see shared CLI contract: serve, run, compare, model, and tools such as
//! `decode`). Exit status: 0 success, 1 the run failed, 2 bad usage — each command returns a
//! [`error::CliError`] whose kind says which.

/// mimalloc keeps freed memory in its heaps: glibc's malloc returned each 1 MiB READ reply buffer to the
/// kernel and faulted it in again on the next call (a quarter of the server's CPU at 1 MiB reads).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod commands;
mod error;
mod log_limit;
mod serve_config;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "nfsbench",
    version,
    long_version = commands::provider::LONG_VERSION,
    about = "A storage-transport lab: NFS over TCP and over RDMA"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compare mount-option test cases (TCP, RDMA, nconnect, ...) × workloads with repetitions, wire
    /// baselines, confidence intervals and an HTML report (the main job; `nfsbench compare --help`).
    Compare(commands::compare::CompareArgs),
    /// Decode the ONC RPC / NFSv3 / MOUNT v3 / NFSv4.1-4.2 (COMPOUND, CB_COMPOUND) traffic in a packet capture with
    /// nfsbench's own codecs.
    Decode(commands::decode::DecodeArgs),
    /// The closed-form throughput model: bandwidth, IOPS and the binding limit over distance, credits,
    /// inline threshold and I/O size, TCP against RDMA (`nfsbench model --help`).
    Model(commands::model::ModelArgs),
    /// What a Linux NFS mount negotiated and its RPC statistics, from /proc/self/mountstats; `--asked`
    /// checks the options it was asked for (`nfsbench mountstats --help`).
    Mountstats(commands::mountstats::MountstatsArgs),
    /// Serve NFSv3 and MOUNT v3 over TCP from RAM disks or local directories.
    Serve(commands::serve::ServeArgs),
    /// Run fio-style jobs against an NFS export through nfsbench's own client (`nfsbench run --help`).
    #[command(disable_help_flag = true)]
    Run {
        /// A job file, fio options (--name=N --rw=... --bs=...), --target, -o MOUNT_OPTIONS, --output-format
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (command, result) = match cli.command {
        Command::Compare(args) => ("compare", commands::compare::run(&args)),
        Command::Decode(args) => ("decode", commands::decode::run(&args)),
        Command::Model(args) => ("model", commands::model::run(&args)),
        Command::Mountstats(args) => ("mountstats", commands::mountstats::run(&args)),
        Command::Serve(args) => ("serve", commands::serve::run(&args)),
        Command::Run { args } => ("run", commands::run::run(&args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(command),
    }
}
