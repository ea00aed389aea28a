//! The validated result: [`JobSet`], [`JobSpec`] and their value types.

use std::time::Duration;

/// fio's `rw=`: the I/O pattern of a job (fio's trim patterns are rejected by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rw {
    #[default]
    Read,
    Write,
    RandRead,
    RandWrite,
    /// `rw=rw` / `rw=readwrite`: sequential mixed reads and writes.
    ReadWrite,
    RandRw,
}

impl Rw {
    /// The name fio prints (`read`, `randwrite`, `rw`, `randrw`...).
    pub fn fio_name(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::RandRead => "randread",
            Rw::RandWrite => "randwrite",
            Rw::ReadWrite => "rw",
            Rw::RandRw => "randrw",
        }
    }

    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw)
    }

    pub fn reads(self) -> bool {
        !matches!(self, Rw::Write | Rw::RandWrite)
    }

    pub fn writes(self) -> bool {
        !matches!(self, Rw::Read | Rw::RandRead)
    }
}

/// Block sizes of one direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockSize {
    Fixed(u64),
    /// `bsrange=min-max`: any multiple of `min` up to `max`.
    Range {
        min: u64,
        max: u64,
    },
    /// `bssplit=`: `(block size, percent)` sorted by percent as fio sorts them; percentages left blank
    /// were filled in (evenly from what was left); they may add up to less than 100.
    Split(Vec<(u64, u32)>),
}

impl BlockSize {
    pub fn min(&self) -> u64 {
        match self {
            BlockSize::Fixed(b) => *b,
            BlockSize::Range { min, .. } => *min,
            BlockSize::Split(s) => s.iter().map(|&(b, _)| b).min().unwrap_or(0),
        }
    }

    pub fn max(&self) -> u64 {
        match self {
            BlockSize::Fixed(b) => *b,
            BlockSize::Range { max, .. } => *max,
            BlockSize::Split(s) => s.iter().map(|&(b, _)| b).max().unwrap_or(0),
        }
    }
}

/// `verify=`: the checksums nfsbench implements (`crc32c-intel` is `crc32c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    Crc32c,
    Md5,
}

impl Verify {
    pub fn fio_name(self) -> &'static str {
        match self {
            Verify::Crc32c => "crc32c",
            Verify::Md5 => "md5",
        }
    }
}

/// `--output-format=` entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Normal,
    Json,
    /// `json+`: JSON with the completion-latency bins.
    JsonPlus,
}

/// Options as fio records them for its JSON output: canonical option name and value as given (after
/// `${VAR}` substitution); flags given bare have the value "" (as fio prints them).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options(pub Vec<(String, String)>);

impl Options {
    /// The last value given for `name` (canonical name).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Everything a job file plus command line define.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobSet {
    /// Jobs in fio's order: the job file's, then the command line's.
    pub jobs: Vec<JobSpec>,
    /// fio JSON "global options": every global option given, in order.
    pub global: Options,
    /// Things the user should know (options that have no effect here, values fio would adjust), once each.
    pub notices: Vec<String>,
    /// `--output-format=` when given (fio accepts lists such as `json,normal`).
    pub output_format: Option<Vec<OutputFormat>>,
}

/// One job section (before `numjobs` cloning) with every option resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    pub name: String,
    /// fio's groupid: `stonewall` / `new_group` start a new group; jobs in one group run together.
    pub group: u32,
    pub rw: Rw,
    /// Percent of mixed I/O that reads (0..=100).
    pub rwmixread: u8,
    /// `[read, write]`.
    pub bs: [BlockSize; 2],
    /// `size=` in bytes per job clone (None when not given or given as a percentage).
    pub size: Option<u64>,
    /// `size=N%`: N percent of each file's `filesize` (nfsbench does not look at existing files).
    pub size_percent: Option<u8>,
    /// `filesize=`: a size or a `(low, high)` range (equal for a single value).
    pub filesize: Option<(u64, u64)>,
    /// Files per clone: `nrfiles=`, or the number of `filename=` entries when those are given.
    pub nrfiles: u32,
    /// `filename=` split on ':' (`\:` is a colon in a name).
    pub filenames: Vec<String>,
    /// `directory=` as given (':'-separated list, see [`JobSpec::directories`]).
    pub directory: Option<String>,
    pub offset: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// None when not given or 0 (no limit).
    pub runtime: Option<Duration>,
    /// Set only together with a runtime (fio turns it off without one, with a notice).
    pub time_based: bool,
    pub ramp_time: Duration,
    /// `startdelay=`; a range `startdelay=1-5` sets the low end here and the high end in `startdelay_max`.
    pub startdelay: Duration,
    pub startdelay_max: Option<Duration>,
    /// At least 1 (fio treats 0 as 1).
    pub loops: u32,
    pub direct: bool,
    pub fsync: u32,
    pub fdatasync: u32,
    pub end_fsync: bool,
    pub create_on_open: bool,
    /// `refill_buffers`: every write is submitted with freshly generated random bytes instead of the
    /// buffer filled once at start and reused (fio's default). As fio's `fixup_options`, `verify=` turns
    /// it on unless the job set it (`refill_buffers=0`). Under `verify=` the bytes written are the verify
    /// units, themselves generated afresh for every write, whatever this says (fio fills the buffer and
    /// then overwrites it with the verify pattern). `zero_buffers`, `scramble_buffers`,
    /// `buffer_compress_percentage`, `dedupe_percentage` and `buffer_pattern`, which change what fio puts
    /// in its buffers, are refused by name.
    pub refill_buffers: bool,
    pub verify: Option<Verify>,
    pub verify_fatal: bool,
    /// As given; see [`JobSpec::effective_verify_interval`] for the value fio uses.
    pub verify_interval: Option<u64>,
    /// `do_verify=` (default true): run the verify phase after writing.
    pub do_verify: bool,
    /// Default true; false when `randseed=` is given (as fio does).
    pub randrepeat: bool,
    pub randseed: Option<u64>,
    pub norandommap: bool,
    pub group_reporting: bool,
    pub ioengine: Option<String>,
    pub description: Option<String>,
    /// `percentile_list=` as given (0..=100, at most 20 entries); None means fio's default list.
    pub percentile_list: Option<Vec<f64>>,
    /// Default true; false under `gtod_reduce=1`.
    pub clat_percentiles: bool,
    /// Default false.
    pub lat_percentiles: bool,
    /// `gtod_reduce=1`: fio then reports no latencies or percentiles.
    pub gtod_reduce: bool,
    /// 1024 (default) or 1000: which prefixes fio's normal output uses.
    pub kb_base: u32,
    /// Every option that applies to this job, globals first, one entry per option (the last value).
    pub options: Vec<(String, String)>,
    /// Only the options of the job's own section, as fio puts them in JSON "job options".
    pub job_options: Vec<(String, String)>,
}
