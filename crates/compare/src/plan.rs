//! A comparison plan: test cases (named mount-option sets) × workloads (fio jobs) × repetitions, plus
//! optional scaling sweeps. Built from a TOML file ([`crate::plan_file`]), from the defaults
//! ([`Plan::default_for`]) and from command-line shorthands; validated before anything runs.

use crate::results::Metric;
use crate::size::{fio_size, format_size};
use mount_options::{LinkSpec, MountConfig, MountSpec, OptionsError, Proto};
use std::time::Duration;

/// The target a case's own [`MountConfig`] is parsed against: only the case's options decide what the
/// model and the embedded server read from it (transport, connections, sizes, remoteports).
const PLACEHOLDER_TARGET: &str = "127.0.0.1:/export";

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub title: String,
    pub reps: u32,
    /// The case ratios are taken against (the first case when the plan names none).
    pub baseline: String,
    /// Measured time per cell (fio's runtime, time_based).
    pub runtime: Duration,
    /// Unmeasured warm-up per cell (fio's ramp_time).
    pub ramp: Duration,
    pub cases: Vec<Case>,
    pub workloads: Vec<Workload>,
    pub sweeps: Vec<SweepSpec>,
    /// Measure the transports' own bandwidth and round trip (the wire baselines).
    pub wire: bool,
    /// The long-distance link every cell's client emulates (`--wan`: rate, jitter, loss, window; a
    /// workload's `rtt` or an rtt sweep sets the round trip).
    pub wan: Option<LinkSpec>,
}

/// Which NFS client a case measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// nfsbench's own userspace client (`nfsbench run --target`).
    #[default]
    Nfsbench,
    /// The operating system's NFS client: the case's options mounted with mount.nfs, the jobs run by the
    /// file engine on the mount (`nfsbench run --engine kernel`).
    Kernel,
}

impl Engine {
    /// "nfsbench" or "kernel", as plans and `--engine` write it.
    pub fn parse(text: &str) -> Option<Engine> {
        match text {
            "nfsbench" => Some(Engine::Nfsbench),
            "kernel" => Some(Engine::Kernel),
            _ => None,
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Nfsbench => "nfsbench",
            Engine::Kernel => "kernel",
        })
    }
}

/// The port of NFS over RPC-over-RDMA (RFC 8267 §6.1, IANA "nfsrdma"); knfsd never registers it with
/// rpcbind, so a kernel mount names it.
pub const NFS_RDMA_PORT: u16 = 20049;

/// What a case measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaseKind {
    /// An NFS export, through nfsbench's own client or the kernel's (the case's [`Engine`]).
    #[default]
    Nfs,
    /// An SMB share mounted by the kernel's cifs client (SMB3 over TCP, or SMB Direct with `rdma`):
    /// always the kernel engine.
    Smb,
    /// A block device the kernel's own initiator attaches (NVMe/TCP, NVMe/RDMA, iSCSI, iSER): always
    /// the kernel engine.
    Block(kernel_attach::Kind),
}

impl CaseKind {
    /// "nfs", "smb", or a block kind as [`kernel_attach::Kind`] writes it ("nvme-rdma").
    pub fn parse(text: &str) -> Option<CaseKind> {
        match text {
            "nfs" => Some(CaseKind::Nfs),
            "smb" => Some(CaseKind::Smb),
            other => kernel_attach::Kind::parse(other).map(CaseKind::Block),
        }
    }
}

impl std::fmt::Display for CaseKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaseKind::Nfs => f.write_str("nfs"),
            CaseKind::Smb => f.write_str("smb"),
            CaseKind::Block(kind) => kind.fmt(f),
        }
    }
}

impl serde::Serialize for CaseKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for CaseKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CaseKind, D::Error> {
        let text = String::deserialize(d)?;
        CaseKind::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("unknown case kind '{text}'")))
    }
}

/// An option string for reports, with any password's value replaced (mount.cifs's `password=`/`pass=`).
pub fn masked(options: &str) -> String {
    mount_options::entries(options)
        .map(|e| match e.key {
            k if k.eq_ignore_ascii_case("password") || k.eq_ignore_ascii_case("pass") => format!("{k}=***"),
            _ => e.raw.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The host part of a plan's target (`HOST:/EXPORT`, `[IPv6]:/EXPORT`, `nfs://HOST[:PORT]/...` or a bare
/// host): where a block case finds its target.
pub fn target_host(target: &str) -> &str {
    let t = target.strip_prefix("nfs://").unwrap_or(target);
    match t.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => t.split([':', '/']).next().unwrap_or(t),
    }
}

/// A named set of mount options, or of a block transport's attach options.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Case {
    pub name: String,
    /// What it measures: NFS (the default) or a block transport.
    #[serde(default)]
    pub kind: CaseKind,
    /// The client that runs it.
    #[serde(default)]
    pub engine: Engine,
    /// As written: NFSv4 cases load and are reported as not supported yet.
    pub vers: String,
    #[serde(with = "crate::proto_serde")]
    pub proto: Proto,
    pub nconnect: u32,
    pub remoteports: Option<String>,
    pub rsize: Option<u64>,
    pub wsize: Option<u64>,
    /// Further mount options, appended as written.
    pub options: Option<String>,
    pub rdma_credits: Option<u32>,
    pub rdma_inline: Option<u32>,
    /// A block case's target on the host: its NVMe subsystem's NQN or its iSCSI target's IQN (`None`:
    /// the name `lab/targets/block-target.sh` gives, [`DEFAULT_NQN`] or [`DEFAULT_IQN`]).
    #[serde(default)]
    pub target_name: Option<String>,
    /// A block case's port (`None`: the kind's own, 4420 for NVMe-oF and 3260 for iSCSI).
    #[serde(default)]
    pub port: Option<u16>,
    /// An SMB case's share (`None`: [`DEFAULT_SHARE`], the one `lab/targets/smb-target.sh` serves).
    #[serde(default)]
    pub share: Option<String>,
}

/// The SMB share `lab/targets/smb-target.sh` serves.
pub const DEFAULT_SHARE: &str = "bench";

/// The NVMe subsystem `lab/targets/block-target.sh` serves.
pub const DEFAULT_NQN: &str = "nqn.2026-11.io.nfsbench:ram0";
/// The iSCSI target `lab/targets/block-target.sh` serves.
pub const DEFAULT_IQN: &str = "iqn.2026-11.io.nfsbench:ram0";

impl Case {
    /// An SMB case with its mount.cifs options (`vers=3.1.1,rdma`), run by the kernel engine against the
    /// default share.
    pub fn smb(name: &str, options: &str) -> Case {
        Case {
            name: name.to_string(),
            kind: CaseKind::Smb,
            engine: Engine::Kernel,
            vers: String::new(),
            options: (!options.is_empty()).then(|| options.to_string()),
            ..Case::default()
        }
    }

    /// A block case of `kind` with its attach options (`nr_io_queues=2,queue_size=128`), run by the
    /// kernel engine against the default target names.
    pub fn block(name: &str, kind: kernel_attach::Kind, options: &str) -> Case {
        Case {
            name: name.to_string(),
            kind: CaseKind::Block(kind),
            engine: Engine::Kernel,
            vers: String::new(),
            options: (!options.is_empty()).then(|| options.to_string()),
            ..Case::default()
        }
    }

    /// The case once per NFS version, each named "NAME-vVERS" with its own `vers`; an SMB or block case
    /// stays one case.
    pub fn per_version(&self, versions: &[String]) -> Vec<Case> {
        if self.kind != CaseKind::Nfs {
            return vec![self.clone()];
        }
        versions.iter().map(|v| Case { name: format!("{}-v{v}", self.name), vers: v.clone(), ..self.clone() }).collect()
    }

    /// A case from a name and a mount option string ("vers=3,proto=rdma,nconnect=2"): vers, proto,
    /// nconnect, remoteports, rsize and wsize become fields, the rest stays in `options`. A transport
    /// entry the client refuses (`proto=udp`) stays in `options` as written, so that validation reports
    /// it as the client would.
    pub fn from_options(name: &str, options: &str) -> Case {
        let mut case = Case {
            name: name.to_string(),
            engine: Engine::Nfsbench,
            vers: "3".into(),
            proto: Proto::Tcp,
            nconnect: 1,
            remoteports: None,
            rsize: None,
            wsize: None,
            options: None,
            rdma_credits: None,
            rdma_inline: None,
            ..Case::default()
        };
        let mut rest = Vec::new();
        for entry in mount_options::entries(options) {
            if let Some(Ok(proto)) = Proto::from_entry(&entry) {
                case.proto = proto;
                continue;
            }
            match (entry.key, entry.value) {
                ("vers" | "nfsvers", Some(v)) => case.vers = v.to_string(),
                ("nconnect", Some(v)) if v.parse::<u32>().is_ok() => case.nconnect = v.parse().unwrap_or(1),
                ("remoteports", Some(v)) => case.remoteports = Some(v.to_string()),
                ("rsize", Some(v)) if v.parse::<u64>().is_ok() => case.rsize = v.parse().ok(),
                ("wsize", Some(v)) if v.parse::<u64>().is_ok() => case.wsize = v.parse().ok(),
                _ => rest.push(entry.raw),
            }
        }
        if !rest.is_empty() {
            case.options = Some(rest.join(","));
        }
        case
    }

    /// The `-o` string of this case, without ports (the runner adds those for the embedded server). For
    /// the kernel engine an RDMA case without a port gets [`NFS_RDMA_PORT`], written out so that the
    /// report shows what mount.nfs was asked.
    /// A block case's options are its attach options, an SMB case's its mount.cifs options, as written.
    pub fn mount_options(&self) -> String {
        if self.kind != CaseKind::Nfs {
            return self.options.clone().unwrap_or_default();
        }
        let mut o = format!("vers={},proto={}", self.vers, self.proto);
        if self.engine == Engine::Kernel && self.is_rdma() && !self.names_option("port") {
            o.push_str(&format!(",port={NFS_RDMA_PORT}"));
        }
        if self.nconnect != 1 {
            o.push_str(&format!(",nconnect={}", self.nconnect));
        }
        if let Some(r) = &self.remoteports {
            o.push_str(&format!(",remoteports={r}"));
        }
        if let Some(r) = self.rsize {
            o.push_str(&format!(",rsize={r}"));
        }
        if let Some(w) = self.wsize {
            o.push_str(&format!(",wsize={w}"));
        }
        if let Some(extra) = &self.options {
            o.push(',');
            o.push_str(extra);
        }
        o
    }

    pub fn is_rdma(&self) -> bool {
        self.proto == Proto::Rdma
    }

    pub fn is_kernel(&self) -> bool {
        self.engine == Engine::Kernel
    }

    pub fn is_block(&self) -> bool {
        matches!(self.kind, CaseKind::Block(_))
    }

    pub fn is_smb(&self) -> bool {
        self.kind == CaseKind::Smb
    }

    /// An SMB or block case's target on `host`, as `nfsbench run --engine kernel --target` takes it:
    /// `//10.99.0.1/bench`, `nvme-rdma://10.99.0.1:4420/NQN`; `None` for an NFS case (its target is the
    /// plan's).
    pub fn target_on(&self, host: &str) -> Option<String> {
        let kind = match self.kind {
            CaseKind::Nfs => return None,
            CaseKind::Smb => return Some(format!("//{host}/{}", self.share.as_deref().unwrap_or(DEFAULT_SHARE))),
            CaseKind::Block(kind) => kind,
        };
        let nvme = kind.is_nvme();
        let default_name = if nvme { DEFAULT_NQN } else { DEFAULT_IQN };
        let name = self.target_name.as_deref().unwrap_or(default_name);
        let host = if host.contains(':') { format!("[{host}]") } else { host.to_string() };
        Some(format!("{kind}://{host}:{}/{name}", self.port.unwrap_or_else(|| kind.default_port())))
    }

    /// Whether the case's further options set `key`.
    fn names_option(&self, key: &str) -> bool {
        self.options.as_deref().is_some_and(|o| mount_options::entries(o).any(|e| e.key == key))
    }

    /// The mount this case describes, read once by the client's own parser: [`Self::mount_options`]
    /// against a placeholder target, with the case's RDMA credits and inline threshold.
    pub fn mount_config(&self) -> Result<MountConfig, OptionsError> {
        self.mount_config_for(PLACEHOLDER_TARGET)
    }

    /// [`Self::mount_config`] against the plan's real target (`HOST:/EXPORT` or an `nfs://` URL, whose
    /// parameters the case's options then override).
    pub fn mount_config_for(&self, target: &str) -> Result<MountConfig, OptionsError> {
        let mut config = MountConfig::new(MountSpec::parse(target, Some(&self.mount_options()))?);
        if let Some(credits) = self.rdma_credits {
            config.rdma.credits = credits;
        }
        if let Some(inline) = self.rdma_inline {
            config.rdma.inline_size = inline;
        }
        Ok(config)
    }
}

/// One fio job, run as its own group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    /// The name in reports (a sweep point's is "rand-read-4k@iodepth=32").
    pub name: String,
    /// fio's job name, which names its files ("NAME.JOB.0"): a sweep's points share their workload's.
    pub job_name: String,
    pub rw: String,
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Bytes per job's file.
    pub size: u64,
    /// Client processes under `mpirun -np N` (each with its own files), `None`: one process, no MPI.
    pub clients: Option<u32>,
    /// Round trip of the emulated link the client runs over (`--wan rtt=`), `None`: the plan's link if
    /// any, else none.
    pub rtt: Option<Duration>,
    pub metric: Metric,
    /// Include the final fsync (COMMIT) in the measured time (fio's end_fsync; iozone's -e).
    pub end_fsync: bool,
    /// Further fio options, `--key=value`.
    pub fio: Vec<(String, String)>,
}

impl Workload {
    /// A workload whose headline metric follows from its block size: bandwidth from 64 KiB up.
    pub fn new(name: &str, rw: &str, bs: u64, iodepth: u32, numjobs: u32, size: u64) -> Workload {
        Workload {
            name: name.into(),
            job_name: name.into(),
            rw: rw.into(),
            bs,
            iodepth,
            numjobs,
            size,
            clients: None,
            rtt: None,
            metric: metric_for(bs),
            end_fsync: false,
            fio: Vec::new(),
        }
    }

    /// "1 MiB sequential read, iodepth 8, 2 jobs".
    pub fn description(&self) -> String {
        let pattern = match self.rw.as_str() {
            "read" => "sequential read",
            "write" => "sequential write",
            "randread" => "random read",
            "randwrite" => "random write",
            "rw" | "readwrite" => "sequential read/write",
            "randrw" => "random read/write",
            other => other,
        };
        let jobs = if self.numjobs == 1 { "1 job".to_string() } else { format!("{} jobs", self.numjobs) };
        let fsync = if self.end_fsync { ", fsync timed" } else { "" };
        let clients = match self.clients {
            Some(1) => ", 1 client (MPI)".to_string(),
            Some(n) => format!(", {n} clients"),
            None => String::new(),
        };
        let rtt = self.rtt.map(|r| format!(", RTT {}", mount_options::link::format_time(r))).unwrap_or_default();
        format!("{} {pattern}, iodepth {}, {jobs}{clients}{rtt}{fsync}", format_size(self.bs), self.iodepth)
    }

    /// Whether the job writes (its files are laid out before the first measurement).
    pub fn writes(&self) -> bool {
        self.rw.contains("write") || self.rw == "rw" || self.rw == "randrw" || self.rw == "trimwrite"
    }

    /// The fio options of one measured run.
    pub fn fio_args(&self, runtime: Duration, ramp: Duration) -> Vec<String> {
        let mut args = vec![
            format!("--name={}", self.job_name),
            format!("--rw={}", self.rw),
            format!("--bs={}", fio_size(self.bs)),
            format!("--iodepth={}", self.iodepth),
            format!("--numjobs={}", self.numjobs),
            format!("--size={}", fio_size(self.size)),
            format!("--runtime={}ms", runtime.as_millis().max(1)),
            "--time_based".into(),
            "--direct=1".into(),
            "--group_reporting".into(),
        ];
        if !ramp.is_zero() {
            args.push(format!("--ramp_time={}ms", ramp.as_millis()));
        }
        if self.end_fsync {
            args.push("--end_fsync=1".into());
        }
        args.extend(self.fio.iter().map(|(k, v)| format!("--{k}={v}")));
        args
    }
}

/// Bandwidth is the headline for 64 KiB blocks and larger, IOPS below.
pub fn metric_for(bs: u64) -> Metric {
    if bs >= 64 << 10 {
        Metric::Bandwidth
    } else {
        Metric::Iops
    }
}

/// A scaling sweep: one workload re-run with one parameter taking each value, for the chosen cases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepSpec {
    pub parameter: SweepParameter,
    pub values: Vec<u64>,
    pub workload: String,
    /// Empty: every supported case.
    pub cases: Vec<String>,
}

/// What a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepParameter {
    Iodepth,
    Numjobs,
    BlockSize,
    /// Client processes under mpirun (each point runs `mpirun -np VALUE`).
    Clients,
    /// Round trip of the emulated link in µs (`--wan rtt=`; given as times or distances).
    Rtt,
}

impl SweepParameter {
    pub fn parse(text: &str) -> Option<SweepParameter> {
        match text {
            "iodepth" => Some(SweepParameter::Iodepth),
            "numjobs" => Some(SweepParameter::Numjobs),
            "bs" | "blocksize" => Some(SweepParameter::BlockSize),
            "clients" => Some(SweepParameter::Clients),
            "rtt" | "distance" => Some(SweepParameter::Rtt),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SweepParameter::Iodepth => "iodepth",
            SweepParameter::Numjobs => "numjobs",
            SweepParameter::BlockSize => "bs",
            SweepParameter::Clients => "clients",
            SweepParameter::Rtt => "rtt",
        }
    }

    /// `workload` with this parameter set to `value`, named "<name>@<param>=<value>" in reports; its fio
    /// job name (and so its files) stays the workload's.
    pub fn apply(self, workload: &Workload, value: u64) -> Workload {
        let mut w = workload.clone();
        let label = self.label(value);
        match self {
            SweepParameter::Iodepth => w.iodepth = value as u32,
            SweepParameter::Numjobs => w.numjobs = value as u32,
            SweepParameter::BlockSize => w.bs = value,
            SweepParameter::Clients => w.clients = Some(value as u32),
            SweepParameter::Rtt => w.rtt = Some(Duration::from_micros(value)),
        }
        w.name = format!("{}@{}={}", workload.name, self.name(), label.replace(' ', ""));
        w
    }

    /// The value as printed: "32", "4 KiB", "20ms".
    pub fn label(self, value: u64) -> String {
        match self {
            SweepParameter::BlockSize => format_size(value),
            SweepParameter::Rtt => mount_options::link::format_time(Duration::from_micros(value)),
            _ => value.to_string(),
        }
    }

    /// One value as written in a plan or on the command line: a count, a size ("64k"), or for rtt a
    /// time ("20ms") or a distance ("8600mi", "100km", at 5 µs/km each way), kept in µs.
    pub fn parse_value(self, text: &str) -> Result<u64, SweepValueError> {
        let text = text.trim();
        match self {
            SweepParameter::Rtt if text == "0" => Ok(0),
            SweepParameter::Rtt => {
                let rtt = match mount_options::link::parse_time(text) {
                    Ok(rtt) => rtt,
                    Err(_) => mount_options::link::parse_distance_km(text)
                        .map(mount_options::link::rtt_of_distance_km)
                        .map_err(|_| SweepValueError::NotRoundTrip { text: text.to_string() })?,
                };
                Ok(rtt.as_micros() as u64)
            }
            _ => crate::size::parse_size(text).ok_or_else(|| SweepValueError::NotCount { text: text.to_string() }),
        }
    }
}

/// A sweep value (or a workload's `rtt`) that does not read as its parameter's kind of value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SweepValueError {
    #[error("'{text}' is neither a round trip (20ms) nor a distance (8600mi, 100km)")]
    NotRoundTrip { text: String },
    #[error("'{text}' is not a number or size")]
    NotCount { text: String },
}

impl Plan {
    /// The default comparison: TCP, TCP with 4 connections, RDMA, RDMA over 2 queue pairs; the four
    /// measurements of the published studies; 3 repetitions of 2 s (≈ 2 minutes on 2 cores).
    pub fn default_for(defaults: crate::plan_file::Defaults) -> Plan {
        let (nj, size) = (defaults.numjobs, defaults.size);
        Plan {
            title: "NFS over TCP vs RPC-over-RDMA".into(),
            reps: 3,
            baseline: "tcp".into(),
            runtime: Duration::from_secs(2),
            ramp: Duration::from_millis(500),
            cases: vec![
                Case::from_options("tcp", "vers=3,proto=tcp"),
                Case::from_options("tcp-nconnect4", "vers=3,proto=tcp,nconnect=4"),
                Case::from_options("rdma", "vers=3,proto=rdma"),
                Case::from_options("rdma-2qp", "vers=3,proto=rdma,nconnect=2"),
            ],
            workloads: vec![
                Workload::new("seq-read-1m", "read", 1 << 20, 8, nj, size),
                Workload::new("seq-write-1m", "write", 1 << 20, 8, nj, size),
                Workload::new("rand-read-4k", "randread", 4 << 10, 32, nj, size),
                Workload::new("rand-write-4k", "randwrite", 4 << 10, 32, nj, size),
            ],
            sweeps: Vec::new(),
            wire: true,
            wan: None,
        }
    }

    /// Crosses every case with each NFS version (`--vers 3,4.1`, a plan's `versions`): the case `tcp`
    /// becomes `tcp-v3` and `tcp-v4.1`, in that order; the baseline becomes its case's first version.
    /// An empty list changes nothing.
    pub fn cross_versions(&mut self, versions: &[String]) {
        if versions.is_empty() {
            return;
        }
        if self.cases.iter().any(|c| c.name == self.baseline) {
            self.baseline = format!("{}-v{}", self.baseline, versions[0]);
        }
        self.cases = self.cases.iter().flat_map(|case| case.per_version(versions)).collect();
    }

    /// Every NFS case measures `engine`'s client (`--engine`, a plan's `engine`); SMB and block cases are
    /// always the kernel's.
    pub fn set_engine(&mut self, engine: Engine) {
        self.cases.iter_mut().filter(|c| c.kind == CaseKind::Nfs).for_each(|c| c.engine = engine);
    }

    /// Whether some case mounts with the kernel's client.
    pub fn uses_kernel(&self) -> bool {
        self.cases.iter().any(Case::is_kernel)
    }

    /// Whether some NFS case mounts with the kernel's client (mount.nfs).
    pub fn uses_kernel_nfs(&self) -> bool {
        self.cases.iter().any(|c| c.is_kernel() && c.kind == CaseKind::Nfs)
    }

    /// Whether some case mounts an SMB share (mount.cifs).
    pub fn uses_smb(&self) -> bool {
        self.cases.iter().any(Case::is_smb)
    }

    /// The block kinds the plan attaches, each once.
    pub fn block_kinds(&self) -> Vec<kernel_attach::Kind> {
        let mut kinds = Vec::new();
        for case in &self.cases {
            if let CaseKind::Block(kind) = case.kind {
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
        }
        kinds
    }

    /// `--quick`: every cell 300 ms after a 100 ms ramp (≈ 20 s for the default plan).
    pub fn make_quick(&mut self) {
        self.runtime = Duration::from_millis(300);
        self.ramp = Duration::from_millis(100);
    }

    /// The cells of one repetition that a sweep adds: (case, workload) pairs.
    pub fn sweep_workloads(&self, sweep: &SweepSpec) -> Vec<Workload> {
        let Some(base) = self.workloads.iter().find(|w| w.name == sweep.workload) else {
            return Vec::new();
        };
        sweep.values.iter().map(|&v| sweep.parameter.apply(base, v)).collect()
    }

    /// The link `workload`'s client emulates (`--wan`): the plan's with the workload's round trip; none
    /// when neither gives one, or when all that is left is a zero round trip without a rate.
    pub fn link_for(&self, workload: &Workload) -> Option<LinkSpec> {
        let spec = match (&self.wan, workload.rtt) {
            (Some(base), Some(rtt)) => base.with_rtt(rtt),
            (Some(base), None) => base.clone(),
            (None, Some(rtt)) => LinkSpec::rtt_only(rtt),
            (None, None) => return None,
        };
        (!spec.rtt.is_zero() || spec.rate_bps.is_some()).then_some(spec)
    }

    /// Whether some cell runs its clients under mpirun (a workload's `clients`, or a sweep of them).
    pub fn uses_mpi(&self) -> bool {
        self.workloads.iter().any(|w| w.clients.is_some())
            || self.sweeps.iter().any(|s| s.parameter == SweepParameter::Clients)
    }

    /// The cases a sweep runs (all when it names none).
    pub fn sweep_cases<'a>(&'a self, sweep: &'a SweepSpec) -> impl Iterator<Item = &'a Case> + 'a {
        self.cases.iter().filter(move |c| sweep.cases.is_empty() || sweep.cases.contains(&c.name))
    }
}
