//! The options nfsbench takes: fio's names and aliases (matched exactly and case-sensitively, as fio's
//! `o_match`), whether the option is a flag (fio's `FIO_OPT_STR_SET`, which may be given bare), and
//! fio's parse priority (within a job-file section `kb_base` is applied first and `filename` last).

/// Which option a name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opt {
    Name,
    Description,
    Rw,
    RwMixRead,
    RwMixWrite,
    Bs,
    BsRange,
    BsSplit,
    Size,
    FileSize,
    NrFiles,
    FileName,
    Directory,
    Offset,
    IoDepth,
    NumJobs,
    Runtime,
    TimeBased,
    RampTime,
    StartDelay,
    Loops,
    Direct,
    Buffered,
    Fsync,
    Fdatasync,
    EndFsync,
    CreateOnOpen,
    RefillBuffers,
    Verify,
    VerifyFatal,
    VerifyInterval,
    DoVerify,
    RandRepeat,
    RandSeed,
    NoRandomMap,
    GroupReporting,
    Stonewall,
    NewGroup,
    IoEngine,
    Thread,
    Invalidate,
    GtodReduce,
    PercentileList,
    ClatPercentiles,
    LatPercentiles,
    KbBase,
}

/// One supported option.
#[derive(Debug)]
pub(crate) struct OptDef {
    /// fio's canonical name (what fio records for JSON "job options").
    pub name: &'static str,
    pub alias: Option<&'static str>,
    pub opt: Opt,
    /// May be given without a value (and then never takes the next command-line argument).
    pub flag: bool,
    /// fio's `prio`: higher is applied first within a job-file section.
    pub prio: i8,
}

const fn def(name: &'static str, opt: Opt) -> OptDef {
    OptDef { name, alias: None, opt, flag: false, prio: 0 }
}

const fn alias(name: &'static str, alias: &'static str, opt: Opt) -> OptDef {
    OptDef { name, alias: Some(alias), opt, flag: false, prio: 0 }
}

const fn flag(name: &'static str, opt: Opt) -> OptDef {
    OptDef { name, alias: None, opt, flag: true, prio: 0 }
}

pub(crate) static OPTIONS: &[OptDef] = &[
    def("name", Opt::Name),
    def("description", Opt::Description),
    alias("rw", "readwrite", Opt::Rw),
    def("rwmixread", Opt::RwMixRead),
    def("rwmixwrite", Opt::RwMixWrite),
    alias("bs", "blocksize", Opt::Bs),
    alias("bsrange", "blocksize_range", Opt::BsRange),
    def("bssplit", Opt::BsSplit),
    def("size", Opt::Size),
    def("filesize", Opt::FileSize),
    alias("nrfiles", "nr_files", Opt::NrFiles),
    OptDef { name: "filename", alias: None, opt: Opt::FileName, flag: false, prio: -1 },
    def("directory", Opt::Directory),
    alias("offset", "fileoffset", Opt::Offset),
    def("iodepth", Opt::IoDepth),
    def("numjobs", Opt::NumJobs),
    alias("runtime", "timeout", Opt::Runtime),
    flag("time_based", Opt::TimeBased),
    def("ramp_time", Opt::RampTime),
    def("startdelay", Opt::StartDelay),
    def("loops", Opt::Loops),
    def("direct", Opt::Direct),
    def("buffered", Opt::Buffered),
    def("fsync", Opt::Fsync),
    def("fdatasync", Opt::Fdatasync),
    def("end_fsync", Opt::EndFsync),
    def("create_on_open", Opt::CreateOnOpen),
    flag("refill_buffers", Opt::RefillBuffers),
    def("verify", Opt::Verify),
    def("verify_fatal", Opt::VerifyFatal),
    def("verify_interval", Opt::VerifyInterval),
    def("do_verify", Opt::DoVerify),
    def("randrepeat", Opt::RandRepeat),
    def("randseed", Opt::RandSeed),
    flag("norandommap", Opt::NoRandomMap),
    flag("group_reporting", Opt::GroupReporting),
    OptDef { name: "stonewall", alias: Some("wait_for_previous"), opt: Opt::Stonewall, flag: true, prio: 0 },
    flag("new_group", Opt::NewGroup),
    def("ioengine", Opt::IoEngine),
    flag("thread", Opt::Thread),
    def("invalidate", Opt::Invalidate),
    def("gtod_reduce", Opt::GtodReduce),
    def("percentile_list", Opt::PercentileList),
    def("clat_percentiles", Opt::ClatPercentiles),
    def("lat_percentiles", Opt::LatPercentiles),
    OptDef { name: "kb_base", alias: None, opt: Opt::KbBase, flag: false, prio: 1 },
];

/// The option called `name` (canonical name or alias), if nfsbench takes it.
pub(crate) fn lookup(name: &str) -> Option<&'static OptDef> {
    OPTIONS.iter().find(|d| d.name == name || d.alias == Some(name))
}

/// The closest supported name, when it is close enough to be a likely typo: an edit distance of at
/// most a third of the length (fio allows half, which suggests `name` for `rate`).
pub(crate) fn suggest(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return None;
    }
    let (best, distance) = OPTIONS
        .iter()
        .flat_map(|d| std::iter::once(d.name).chain(d.alias))
        .map(|candidate| (candidate, edit_distance(name, candidate)))
        .min_by_key(|&(_, d)| d)?;
    (distance <= name.len() / 3).then_some(best)
}

/// Levenshtein distance over bytes (option names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitution = prev[j] + usize::from(ca != cb);
            cur[j + 1] = substitution.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_to_fio_canonical_names() {
        for (alias, name) in [
            ("readwrite", "rw"),
            ("blocksize", "bs"),
            ("blocksize_range", "bsrange"),
            ("nr_files", "nrfiles"),
            ("fileoffset", "offset"),
            ("timeout", "runtime"),
            ("wait_for_previous", "stonewall"),
        ] {
            assert_eq!(lookup(alias).map(|d| d.name), Some(name));
        }
        assert!(lookup("RW").is_none());
    }

    #[test]
    fn typos_get_a_suggestion_and_strangers_do_not() {
        assert_eq!(suggest("iodepht"), Some("iodepth"));
        assert_eq!(suggest("runtme"), Some("runtime"));
        assert_eq!(suggest("ioengine_opts"), None);
        assert_eq!(suggest("rate"), None);
        assert_eq!(suggest("xyzzy"), None);
    }
}
