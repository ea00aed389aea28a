//! `nfsbench compare`: a plan of test cases (named mount-option sets, as in the published NFS/RDMA
//! studies) × workloads (fio jobs) × repetitions, run against one target — by default the embedded RAM
//! server on loopback — with the transports' own wire figures beside them, summarised as means with 95%
//! intervals and paired ratios against a baseline case, and rendered for a terminal, Markdown, CSV and a
//! self-contained HTML report.
//!
//! - [`plan`], [`plan_file`], [`validate`]: what to run (TOML plans, the defaults, checks).
//! - [`execute`]: running it — [`embedded`] server, one `nfsbench run` child per repetition ([`cell`]),
//!   the server's CPU sampled ([`cpu_sampler`]), the transports' own figures ([`wire_baselines`]),
//!   [`progress`]; [`interrupt`]: SIGINT stops the cell in progress and ends the plan.
//! - [`measure`], [`stats`], [`summarize`]: from fio JSON to the [`results::Report`]; [`prediction`]:
//!   the closed-form model's figures (crate `model`) beside a round-trip sweep's points.
//! - [`render`] and [`output`]: the files of a comparison.

pub mod cell;
pub mod cpu_sampler;
pub mod embedded;
pub mod execute;
pub mod interrupt;
pub mod machine;
pub mod measure;
pub mod output;
pub mod plan;
pub mod plan_file;
pub mod prediction;
pub mod progress;
mod proto_serde;
pub mod render;
pub mod results;
pub mod size;
pub mod stats;
pub mod summarize;
pub mod validate;
pub mod wire_baselines;
