//! The plan file (TOML) and the built-in plans. Unknown keys are refused by name, so a typo never
//! silently changes what is measured.
//!
//! ```toml
//! title = "TCP vs RDMA"
//! reps = 3                 # repetitions per cell
//! baseline = "tcp"         # ratios are against this case
//! runtime = "2s"           # measured time per cell; ramp_time = "500ms" before it
//! wire = true              # measure the transports' own bandwidth and round trip too
//! # wan = "rate=10gbit"    # the client emulates a long-distance link (`nfsbench run --wan`)
//! # versions = ["3", "4.1"] # every case once per NFS version: "rdma-2qp-v3", "rdma-2qp-v4.1"
//!
//! [[case]]                 # as many as wanted
//! name = "rdma-2qp"
//! # engine = "kernel"      # this case only
//! vers = "3"               # or 3, or a list ["3", "4.1", "4.2"]: one case per version ("NAME-v4.1")
//! proto = "rdma"
//! nconnect = 2
//! # remoteports = "127.0.0.1-127.0.0.2", rsize = 1048576, wsize = 1048576,
//! # options = "timeo=600", rdma_credits = 128, rdma_inline = "4k"
//!
//! [[case]]                 # an SMB share, mounted by the kernel's cifs client (always the kernel engine)
//! name = "smb-direct"
//! kind = "smb"
//! # share = "bench"        # on the plan's --target host
//! options = "vers=3.1.1,rdma"  # mount.cifs options, as written
//!
//! [[case]]                 # a block transport, attached by the kernel's initiator (always the kernel engine)
//! name = "nvme-rdma"
//! kind = "nvme-rdma"       # nvme-tcp | nvme-rdma | iscsi | iser (default: nfs; or smb)
//! # nqn = "nqn.2026-11.io.nfsbench:ram0"  (iqn = "iqn..." for iscsi/iser), port = 4420
//! options = "nr_io_queues=2,queue_size=128"   # the kind's attach options
//!
//! [[workload]]
//! name = "seq-read-1m"
//! rw = "read"
//! bs = "1m"
//! iodepth = 8
//! numjobs = 2
//! size = "256m"            # per job; metric = "bandwidth" | "iops" (default: by block size)
//! # clients = 4            # client processes under `mpirun -np 4`, merged as "All clients"
//! # rtt = "20ms"           # round trip of the emulated link (or a distance: "8600mi", "100km")
//! # end_fsync = true       # the final COMMIT counts in the measured time
//! # fio = { verify = "crc32c" }
//!
//! [[sweep]]
//! parameter = "iodepth"    # iodepth | numjobs | bs | clients | rtt
//! values = [1, 4, 16, 64]  # for bs: sizes, e.g. ["4k", "64k", "1m", "16m"]; for rtt: times or
//!                          # distances, e.g. ["0", "1ms", "20ms", "8600mi"]
//! workload = "rand-read-4k"
//! cases = ["tcp", "rdma"]  # default: every case
//! ```

use crate::plan::{metric_for, Case, CaseKind, Engine, Plan, SweepParameter, SweepSpec, SweepValueError, Workload};
use crate::results::Metric;
use crate::size::parse_size;
use mount_options::{Entry, Proto};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    title: Option<String>,
    reps: Option<u32>,
    baseline: Option<String>,
    runtime: Option<String>,
    ramp_time: Option<String>,
    wire: Option<bool>,
    wan: Option<String>,
    engine: Option<String>,
    #[serde(default)]
    versions: Vec<Scalar>,
    #[serde(default)]
    case: Vec<CaseFile>,
    #[serde(default)]
    workload: Vec<WorkloadFile>,
    #[serde(default)]
    sweep: Vec<SweepFile>,
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Scalar {
    Int(u64),
    Float(f64),
    Text(String),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Int(i) => i.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Text(t) => t.clone(),
        }
    }

    fn size(&self, what: &str) -> Result<u64, PlanFileError> {
        match self {
            Scalar::Int(i) => Ok(*i),
            _ => parse_size(&self.text())
                .ok_or_else(|| PlanFileError::NotSize { what: what.to_string(), text: self.text() }),
        }
    }
}

/// A case's `vers`: one version, or a list that makes one case per version.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Versions {
    One(Scalar),
    Many(Vec<Scalar>),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    name: String,
    kind: Option<String>,
    nqn: Option<String>,
    iqn: Option<String>,
    port: Option<u16>,
    share: Option<String>,
    engine: Option<String>,
    vers: Option<Versions>,
    proto: Option<String>,
    nconnect: Option<u32>,
    remoteports: Option<String>,
    rsize: Option<Scalar>,
    wsize: Option<Scalar>,
    options: Option<String>,
    rdma_credits: Option<u32>,
    rdma_inline: Option<Scalar>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct WorkloadFile {
    name: String,
    rw: String,
    bs: Scalar,
    iodepth: Option<u32>,
    numjobs: Option<u32>,
    size: Option<Scalar>,
    clients: Option<u32>,
    rtt: Option<String>,
    metric: Option<Metric>,
    end_fsync: Option<bool>,
    #[serde(default)]
    fio: BTreeMap<String, Scalar>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    parameter: String,
    values: Vec<Scalar>,
    workload: String,
    #[serde(default)]
    cases: Vec<String>,
}

/// Defaults the machine decides: jobs per workload and bytes per job.
#[derive(Clone, Copy, Debug)]
pub struct Defaults {
    pub numjobs: u32,
    pub size: u64,
}

impl Defaults {
    /// As the studies ran fio (one job per core, here at most 8), 256 MiB per job; `quick`: 64 MiB.
    pub fn for_machine(cores: usize, quick: bool) -> Defaults {
        Defaults { numjobs: cores.clamp(1, 8) as u32, size: if quick { 64 << 20 } else { 256 << 20 } }
    }
}

/// Why a plan file cannot be used; each message names the key, case, workload or sweep.
#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    /// Not TOML, or a key the plan file does not know (toml's message, which names it, on one line).
    #[error("{}", .0.to_string().trim_end().replace('\n', " "))]
    Toml(#[source] toml::de::Error),
    /// `what` names the owner and the key: "case 'rdma': rsize".
    #[error("{what} '{text}' is not a size")]
    NotSize { what: String, text: String },
    #[error("{key} '{text}' is not a duration (2s, 500ms)")]
    NotDuration { key: &'static str, text: String },
    /// `owner`: "engine" (the plan's) or "case 'x': engine".
    #[error("{owner} '{text}' is not nfsbench or kernel")]
    Engine { owner: String, text: String },
    #[error("wan: {0}")]
    Wan(#[source] mount_options::LinkSpecError),
    #[error("workload '{workload}': rtt {source}")]
    WorkloadRtt {
        workload: String,
        #[source]
        source: SweepValueError,
    },
    #[error("case '{case}': kind '{text}' is not nfs, smb, nvme-tcp, nvme-rdma, iscsi or iser")]
    Kind { case: String, text: String },
    /// A key of the other kind of case: `vers` on an NVMe case, `nqn` on an NFS one.
    #[error("case '{case}': {key} does not apply to a case of kind {kind}")]
    NotForKind { case: String, key: &'static str, kind: String },
    #[error(
        "case '{case}': a {kind} case is attached by the kernel's own initiator; engine must be kernel, not '{text}'"
    )]
    BlockEngine { case: String, kind: String, text: String },
    #[error("case '{0}': vers is an empty list")]
    NoVersions(String),
    #[error("versions crosses every case with each version, so no case may also give a list in its vers")]
    VersionsTwice,
    #[error("sweep parameter '{0}' is not iodepth, numjobs, bs, clients or rtt")]
    SweepParameter(String),
    #[error("sweep of {parameter} on '{workload}': {source}")]
    SweepValue {
        parameter: String,
        workload: String,
        #[source]
        source: SweepValueError,
    },
}

/// Parse a plan file. Cases or workloads it leaves out are the defaults'.
pub fn parse(text: &str, defaults: Defaults) -> Result<Plan, PlanFileError> {
    let file: PlanFile = toml::from_str(text).map_err(PlanFileError::Toml)?;
    let mut plan = Plan::default_for(defaults);
    if let Some(t) = file.title {
        plan.title = t;
    }
    if let Some(r) = file.reps {
        plan.reps = r;
    }
    if let Some(r) = &file.runtime {
        plan.runtime =
            parse_duration(r).ok_or_else(|| PlanFileError::NotDuration { key: "runtime", text: r.clone() })?;
    }
    if let Some(r) = &file.ramp_time {
        plan.ramp =
            parse_duration(r).ok_or_else(|| PlanFileError::NotDuration { key: "ramp_time", text: r.clone() })?;
    }
    if let Some(w) = file.wire {
        plan.wire = w;
    }
    if let Some(w) = &file.wan {
        plan.wan = Some(mount_options::LinkSpec::parse(w).map_err(PlanFileError::Wan)?);
    }
    let engine = file.engine.as_deref().map(|e| engine(e, "engine".into())).transpose()?;
    let mut expanded = BTreeMap::new();
    if !file.case.is_empty() {
        let mut cases = Vec::new();
        for c in file.case {
            let name = c.name.clone();
            let made = case_from_file(c, engine)?;
            if made.len() > 1 {
                expanded.insert(name, made[0].name.clone());
            }
            cases.extend(made);
        }
        plan.cases = cases;
        plan.baseline = plan.cases[0].name.clone();
    } else if let Some(engine) = engine {
        plan.set_engine(engine);
    }
    if let Some(b) = file.baseline {
        // A baseline naming a case written with a list of versions is that case's first version.
        plan.baseline = expanded.get(&b).cloned().unwrap_or(b);
    }
    if !file.versions.is_empty() {
        if !expanded.is_empty() {
            return Err(PlanFileError::VersionsTwice);
        }
        plan.cross_versions(&file.versions.iter().map(Scalar::text).collect::<Vec<_>>());
    }
    if !file.workload.is_empty() {
        plan.workloads =
            file.workload.into_iter().map(|w| workload_from_file(w, defaults)).collect::<Result<_, _>>()?;
    }
    plan.sweeps = file.sweep.into_iter().map(sweep_from_file).collect::<Result<_, _>>()?;
    Ok(plan)
}

fn engine(text: &str, owner: String) -> Result<Engine, PlanFileError> {
    Engine::parse(text).ok_or_else(|| PlanFileError::Engine { owner, text: text.to_string() })
}

/// A case of the file, or one per version when its `vers` is a list; `plan_engine`: the plan's
/// `engine`, for cases that name none.
fn case_from_file(mut c: CaseFile, plan_engine: Option<Engine>) -> Result<Vec<Case>, PlanFileError> {
    let kind = match c.kind.as_deref() {
        Some(text) => {
            CaseKind::parse(text).ok_or_else(|| PlanFileError::Kind { case: c.name.clone(), text: text.to_string() })?
        }
        None => CaseKind::Nfs,
    };
    match kind {
        CaseKind::Block(kind) => return block_case(c, kind).map(|case| vec![case]),
        CaseKind::Smb => return smb_case(c).map(|case| vec![case]),
        CaseKind::Nfs => {}
    }
    let not_for_nfs =
        [("nqn", c.nqn.is_some()), ("iqn", c.iqn.is_some()), ("port", c.port.is_some()), ("share", c.share.is_some())];
    if let Some((key, _)) = not_for_nfs.iter().find(|(_, set)| *set) {
        return Err(PlanFileError::NotForKind { case: c.name, key, kind: "nfs (give an NFS port in options)".into() });
    }
    match c.vers.take() {
        Some(Versions::Many(list)) => {
            if list.is_empty() {
                return Err(PlanFileError::NoVersions(c.name));
            }
            Ok(one_case(c, plan_engine)?.per_version(&list.iter().map(Scalar::text).collect::<Vec<_>>()))
        }
        Some(Versions::One(v)) => {
            let mut case = one_case(c, plan_engine)?;
            case.vers = v.text();
            Ok(vec![case])
        }
        None => Ok(vec![one_case(c, plan_engine)?]),
    }
}

/// The NFS keys of a case, for refusing them on a case of another kind.
fn nfs_keys(c: &CaseFile) -> [(&'static str, bool); 8] {
    [
        ("vers", c.vers.is_some()),
        ("proto", c.proto.is_some()),
        ("nconnect", c.nconnect.is_some()),
        ("remoteports", c.remoteports.is_some()),
        ("rsize", c.rsize.is_some()),
        ("wsize", c.wsize.is_some()),
        ("rdma_credits", c.rdma_credits.is_some()),
        ("rdma_inline", c.rdma_inline.is_some()),
    ]
}

/// An SMB case of the file: its share and mount.cifs options (`vers=3.1.1,rdma`); NFS and block keys are
/// refused by name.
fn smb_case(c: CaseFile) -> Result<Case, PlanFileError> {
    let others = [("nqn", c.nqn.is_some()), ("iqn", c.iqn.is_some()), ("port", c.port.is_some())];
    if let Some((key, _)) = nfs_keys(&c).iter().chain(&others).find(|(_, set)| *set) {
        let hint = if *key == "vers" || *key == "port" { " (give mount.cifs's in options)" } else { "" };
        return Err(PlanFileError::NotForKind { case: c.name, key, kind: format!("smb{hint}") });
    }
    if let Some(text) = c.engine.filter(|e| e != "kernel") {
        return Err(PlanFileError::BlockEngine { case: c.name, kind: "smb".into(), text });
    }
    let mut case = Case::smb(&c.name, c.options.as_deref().unwrap_or(""));
    case.share = c.share;
    Ok(case)
}

/// A block case of the file: its attach options, target name and port; NFS keys are refused by name.
fn block_case(c: CaseFile, kind: kernel_attach::Kind) -> Result<Case, PlanFileError> {
    let nvme = kind.is_nvme();
    let others = [
        (if nvme { "iqn" } else { "nqn" }, if nvme { c.iqn.is_some() } else { c.nqn.is_some() }),
        ("share", c.share.is_some()),
    ];
    if let Some((key, _)) = nfs_keys(&c).iter().chain(&others).find(|(_, set)| *set) {
        return Err(PlanFileError::NotForKind { case: c.name, key, kind: kind.to_string() });
    }
    if let Some(text) = c.engine.filter(|e| e != "kernel") {
        return Err(PlanFileError::BlockEngine { case: c.name, kind: kind.to_string(), text });
    }
    let mut case = Case::block(&c.name, kind, c.options.as_deref().unwrap_or(""));
    case.target_name = if nvme { c.nqn } else { c.iqn };
    case.port = c.port;
    Ok(case)
}

/// A case of the file whose `vers` has been taken out.
fn one_case(c: CaseFile, plan_engine: Option<Engine>) -> Result<Case, PlanFileError> {
    // `options` is read as `--case` reads a whole option string (so `options = "rdma,nconnect=2"` is an
    // RDMA case with two connections); the case's own keys then win over it.
    let mut case = Case::from_options(&c.name, c.options.as_deref().unwrap_or(""));
    case.engine = match &c.engine {
        Some(e) => engine(e, format!("case '{}': engine", c.name))?,
        None => plan_engine.unwrap_or_default(),
    };
    // Read as the entry `proto=NAME`; one the client refuses stays an option, as `--case` keeps it.
    let mut refused_proto = None;
    if let Some(name) = c.proto {
        let raw = format!("proto={name}");
        match Proto::from_entry(&Entry::parse(&raw)) {
            Some(Ok(proto)) => case.proto = proto,
            _ => refused_proto = Some(raw),
        }
    }
    if let Some(n) = c.nconnect {
        case.nconnect = n;
    }
    if c.remoteports.is_some() {
        case.remoteports = c.remoteports;
    }
    let what = |k: &str| format!("case '{}': {k}", c.name);
    if let Some(r) = c.rsize {
        case.rsize = Some(r.size(&what("rsize"))?);
    }
    if let Some(w) = c.wsize {
        case.wsize = Some(w.size(&what("wsize"))?);
    }
    let options: Vec<String> = refused_proto.into_iter().chain(case.options.take()).collect();
    case.options = (!options.is_empty()).then(|| options.join(","));
    case.rdma_credits = c.rdma_credits;
    case.rdma_inline = c.rdma_inline.map(|s| s.size(&what("rdma_inline"))).transpose()?.map(|v| v as u32);
    Ok(case)
}

fn workload_from_file(w: WorkloadFile, defaults: Defaults) -> Result<Workload, PlanFileError> {
    let what = |k: &str| format!("workload '{}': {k}", w.name);
    let bs = w.bs.size(&what("bs"))?;
    let size = w.size.as_ref().map(|s| s.size(&what("size"))).transpose()?.unwrap_or(defaults.size);
    let mut workload =
        Workload::new(&w.name, &w.rw, bs, w.iodepth.unwrap_or(1), w.numjobs.unwrap_or(defaults.numjobs), size);
    workload.metric = w.metric.unwrap_or_else(|| metric_for(bs));
    workload.end_fsync = w.end_fsync.unwrap_or(false);
    workload.clients = w.clients;
    workload.rtt = match &w.rtt {
        Some(r) => Some(Duration::from_micros(
            SweepParameter::Rtt
                .parse_value(r)
                .map_err(|source| PlanFileError::WorkloadRtt { workload: w.name.clone(), source })?,
        )),
        None => None,
    };
    workload.fio = w.fio.iter().map(|(k, v)| (k.clone(), v.text())).collect();
    Ok(workload)
}

fn sweep_from_file(s: SweepFile) -> Result<SweepSpec, PlanFileError> {
    let parameter =
        SweepParameter::parse(&s.parameter).ok_or_else(|| PlanFileError::SweepParameter(s.parameter.clone()))?;
    let values = s
        .values
        .iter()
        .map(|v| {
            parameter.parse_value(&v.text()).map_err(|source| PlanFileError::SweepValue {
                parameter: s.parameter.clone(),
                workload: s.workload.clone(),
                source,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(SweepSpec { parameter, values, workload: s.workload, cases: s.cases })
}

/// "2s", "500ms", "1.5s", "2" (seconds).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = number.trim().parse().ok()?;
    (0.0..1e6).contains(&v).then(|| Duration::from_secs_f64(v * scale))
}
