//! fio job files and fio-style command-line options → validated job specifications for nfsbench's
//! load engine, following fio 3.33 for every option taken and rejecting every other by name.
//!
//! - [`parse`] takes an optional job file (text and a name for messages) and arguments such as
//!   `--name=x --rw=randread --bs=4k`, and returns a [`JobSet`]: [`JobSpec`]s (one per job section,
//!   before `numjobs` cloning) with fio's group ids, fio's JSON "global options" / "job options"
//!   records, `--output-format`, and notices (options that have no effect over NFS).
//! - [`Parser`] is the same with the environment, file reads (for `include`) and the `$ncpus`-style
//!   keywords injectable.
//! - Job files: INI sections, `;`/`#` comments, bare flags, `${VAR}`, `$ncpus`/`$mb_memory`/`$pagesize`
//!   with `bc`-style integer arithmetic, `include FILE`, repeated `[global]` sections (module `ini`).
//! - Values: fio's size suffixes under `kb_base` (1024 by default: `4k` = 4096, `4KiB` = 4000 as in
//!   fio), `0x` hex, `(expr)`, times in s/ms/us/m/h/d (module `units`); stricter than fio where fio
//!   silently misreads (`4q`, `1.5g`).
//! - [`JobSpec::file_names`], [`JobSpec::file_size`], [`JobSpec::io_size`] apply fio's file rules.
//!
//! Command-line options given before the first `--name` apply to every job, on top of the job file's
//! `[global]` sections (fio itself lets the file's `[global]` win); a job's own options win over both.
//! Errors are one enum, [`JobError`]; every message names the option and where it was given.

mod apply;
mod build;
mod cmdline;
mod error;
mod files;
mod ini;
mod spec;
mod state;
mod subst;
mod table;
mod units;

pub use error::{JobError, Location};
pub use spec::{BlockSize, JobSet, JobSpec, Options, OutputFormat, Rw, Verify};
pub use subst::Host;

use std::fmt;
use std::path::Path;

/// Parses a job file (text, name for messages) and fio-style arguments with this process's
/// environment and file system (for `include`).
pub fn parse(job_file: Option<(&str, &str)>, cli_args: &[String]) -> Result<JobSet, JobError> {
    Parser::new().parse(job_file, cli_args)
}

/// Names of the options nfsbench takes (fio's canonical names).
pub fn supported_options() -> impl Iterator<Item = &'static str> {
    table::OPTIONS.iter().map(|d| d.name)
}

type EnvFn<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;
type ReadFn<'a> = Box<dyn Fn(&Path) -> std::io::Result<String> + 'a>;

/// [`parse`] with its outside inputs replaceable.
pub struct Parser<'a> {
    env: EnvFn<'a>,
    read_file: ReadFn<'a>,
    host: Option<Host>,
}

impl fmt::Debug for Parser<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Parser").field("host", &self.host).finish_non_exhaustive()
    }
}

impl Default for Parser<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// Largest job file `include` reads: job files are text of a few KiB; this keeps `include /dev/zero`
/// from reading forever.
pub const MAX_INCLUDE_BYTES: u64 = 1 << 20;

/// Read an included job file, at most [`MAX_INCLUDE_BYTES`].
pub fn read_job_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?.take(MAX_INCLUDE_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_INCLUDE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {MAX_INCLUDE_BYTES} bytes: not a job file"),
        ));
    }
    Ok(text)
}

impl<'a> Parser<'a> {
    /// The process environment, [`read_job_file`], and this machine's facts.
    pub fn new() -> Self {
        Parser { env: Box::new(|name| std::env::var(name).ok()), read_file: Box::new(read_job_file), host: None }
    }

    /// Where `${VAR}` values come from.
    pub fn env(mut self, env: impl Fn(&str) -> Option<String> + 'a) -> Self {
        self.env = Box::new(env);
        self
    }

    /// How `include FILE` reads FILE.
    pub fn read_file(mut self, read: impl Fn(&Path) -> std::io::Result<String> + 'a) -> Self {
        self.read_file = Box::new(read);
        self
    }

    /// The values of `$pagesize`, `$mb_memory`, `$ncpus` (default: [`Host::detect`]).
    pub fn host(mut self, host: Host) -> Self {
        self.host = Some(host);
        self
    }

    /// See [`parse`].
    pub fn parse(&self, job_file: Option<(&str, &str)>, cli_args: &[String]) -> Result<JobSet, JobError> {
        let cmd = cmdline::parse(cli_args)?;
        let sections = match job_file {
            Some((text, name)) => {
                let host = self.host.clone().unwrap_or_else(Host::detect);
                let cx = ini::Context { env: &*self.env, host: &host, read_file: &*self.read_file };
                ini::lex(text, name, &cx)?
            }
            None => Vec::new(),
        };
        build::build(&sections, &cmd)
    }
}
