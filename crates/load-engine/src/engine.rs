//! A whole run: groups one after another (fio's `stonewall`), the jobs of a group and their `numjobs`
//! clones at once. Each group's files are laid out before its clock starts; CPU use is sampled around
//! each group, so a job's `usr_cpu`/`sys_cpu` is the client process's over its group's run (all
//! clones share one process, unlike fio's per-thread figures).

use crate::clone_core::{CloneSetup, WorkerOutcome};
use crate::error::EngineError;
use crate::layout::{prepare_file, LayoutRequest, PreparedFile};
use crate::live::LiveCounters;
use crate::offsets::Region;
use crate::paths::{export_relative, resolve_directory};
use crate::peers::{private_path, Peers};
use crate::permutation::splitmix64;
use crate::verify::{Verifier, VerifyKind, HEADER_LEN};
use crate::worker::{self, WorkerSetup};
use fio_job::{JobSet, JobSpec, Verify};
use nfs_client::NfsClient;
use report::{CpuSnapshot, CpuUsage, JobResult};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// How the engine runs and what it shares with its caller.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Export path the target names (to interpret absolute `directory=` values).
    pub export: String,
    /// Counters for a progress line.
    pub live: Arc<LiveCounters>,
    /// Print fio's "Laying out IO file" lines on stderr.
    pub verbose_layout: bool,
    /// The other clients of a many-clients run, if any: files per client, groups started together.
    pub peers: Option<Arc<dyn Peers>>,
}

/// The run's results: one per job clone, in job order, and what went wrong.
#[derive(Debug)]
pub struct EngineRun {
    pub results: Vec<JobResult>,
    /// One line per failed clone (I/O error or verify failure).
    pub failures: Vec<String>,
    /// Notes worth telling the user (how `directory=` was taken, ...).
    pub notices: Vec<String>,
}

/// One clone to run.
struct JobClone {
    jobnum: u32,
    spec: Arc<JobSpec>,
    files: Vec<String>,
    verifier: Option<Verifier>,
    seed: u64,
}

/// What an engine does that the group logic does not: where a job's file lives, laying files out,
/// and running one clone. The NFS engine ([`NfsBackend`]) and the file engine ([`crate::file`]) are
/// siblings over it.
pub(crate) trait Backend {
    /// A file laid out and ready for I/O.
    type File: Clone;
    /// Where the job file `name` lives for this engine, and a notice when the user should know how it
    /// was read; `directories` are the job's `directory=` entries.
    fn locate(&self, name: &str, directories: &[String]) -> (String, Option<String>);
    /// Lay out every distinct file of a group.
    async fn prepare(
        &self,
        requests: BTreeMap<String, LayoutRequest>,
        verbose: bool,
    ) -> Result<BTreeMap<String, Self::File>, EngineError>;
    /// The region of a prepared file the job uses (a file sized by itself is known only once open).
    fn region(file: &Self::File) -> Region;
    /// Start one clone over its prepared files.
    fn start(&self, files: Vec<Self::File>, clone: CloneSetup) -> tokio::task::JoinHandle<WorkerOutcome>;
    /// The group is done with its files (every clone ended): what the engine holds open for them is
    /// let go. Returns a line per file that could not be.
    async fn release(&self, _files: BTreeMap<String, Self::File>) -> Vec<String> {
        Vec::new()
    }
}

/// The NFS engine's side: files on the export through the userspace client.
struct NfsBackend<'a> {
    client: &'a NfsClient,
    export: &'a str,
}

impl Backend for NfsBackend<'_> {
    type File = PreparedFile;

    fn locate(&self, name: &str, directories: &[String]) -> (String, Option<String>) {
        export_relative(name, directories, self.export)
    }

    async fn prepare(
        &self,
        requests: BTreeMap<String, LayoutRequest>,
        verbose: bool,
    ) -> Result<BTreeMap<String, PreparedFile>, EngineError> {
        prepare_all(self.client, requests, verbose).await
    }

    fn region(file: &PreparedFile) -> Region {
        file.region
    }

    fn start(&self, files: Vec<PreparedFile>, clone: CloneSetup) -> tokio::task::JoinHandle<WorkerOutcome> {
        tokio::spawn(worker::run(WorkerSetup { client: self.client.clone(), files, clone }))
    }

    /// CLOSE of every file the group opened (NFSv4; nothing goes out over NFSv3).
    async fn release(&self, files: BTreeMap<String, PreparedFile>) -> Vec<String> {
        close_all(self.client, files.into_values()).await
    }
}

/// Closes each of `files`; a line per CLOSE that failed.
async fn close_all(client: &NfsClient, files: impl IntoIterator<Item = PreparedFile>) -> Vec<String> {
    let mut failed = Vec::new();
    for file in files {
        if let Err(e) = client.close(&file.file).await {
            failed.push(format!("file '{}': closing it failed: {e}", file.name));
        }
    }
    failed
}

/// Run every group of `set` against `client`.
pub async fn run(client: &NfsClient, set: &JobSet, config: &EngineConfig) -> Result<EngineRun, EngineError> {
    run_groups(&NfsBackend { client, export: &config.export }, set, config).await
}

/// Every group of `set`, one after another, through `backend`.
pub(crate) async fn run_groups<B: Backend>(
    backend: &B,
    set: &JobSet,
    config: &EngineConfig,
) -> Result<EngineRun, EngineError> {
    let mut run = EngineRun { results: Vec::new(), failures: Vec::new(), notices: Vec::new() };
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, job) in set.jobs.iter().enumerate() {
        groups.entry(job.group).or_default().push(i);
    }
    for jobs in groups.values() {
        run_group(backend, set, jobs, config, &mut run).await?;
    }
    Ok(run)
}

async fn run_group<B: Backend>(
    backend: &B,
    set: &JobSet,
    jobs: &[usize],
    config: &EngineConfig,
    run: &mut EngineRun,
) -> Result<(), EngineError> {
    let mut clones = Vec::new();
    let mut requests: BTreeMap<String, LayoutRequest> = BTreeMap::new();
    for &job_index in jobs {
        let spec = Arc::new(set.jobs[job_index].clone());
        let verifier = verifier_for(&spec)?;
        let directories = spec.directories();
        for jobnum in 0..spec.numjobs.max(1) {
            let mut names = spec.file_names(jobnum);
            if let Some(peers) = config.peers.as_ref().filter(|_| spec.filenames.is_empty()) {
                names = names.iter().map(|n| private_path(n, peers.rank())).collect();
            }
            let mut files = Vec::new();
            for (filenum, name) in names.iter().enumerate() {
                let (path, notice) = backend.locate(name, &directories);
                if let Some(notice) = notice.filter(|n| !run.notices.contains(n)) {
                    run.notices.push(notice);
                }
                let sized_by_file = spec.size.is_none() && spec.filesize.is_none();
                let region = Region { start: spec.offset, len: spec.file_io_size(filenum as u32) };
                let request = requests.entry(path.clone()).or_insert_with(|| LayoutRequest {
                    name: path.clone(),
                    region,
                    fill: false,
                    verifier,
                    sized_by_file,
                    direct: spec.direct,
                });
                request.region.len = request.region.len.max(region.len);
                request.fill |= spec.rw.reads();
                request.verifier = request.verifier.or(verifier);
                request.direct |= spec.direct;
                files.push(path);
            }
            clones.push(JobClone {
                jobnum,
                spec: spec.clone(),
                files,
                verifier,
                seed: seed_for(&spec, job_index, jobnum),
            });
        }
    }
    config.live.begin_group(clones.len());
    let group = clones.first().map_or(0, |c| c.spec.group);
    let shared = clones.iter().any(|c| !c.spec.filenames.is_empty());
    let prepared = prepare_in_step(backend, requests, config, shared, group).await?;
    // CPU is counted from the end of the longest startdelay + ramp_time, as fio resets its counters there.
    let warmup = clones.iter().map(|c| c.spec.startdelay + c.spec.ramp_time).max().unwrap_or_default();
    let cpu_mark = tokio::spawn(async move {
        tokio::time::sleep(warmup).await;
        (CpuSnapshot::now().ok(), Instant::now())
    });
    let group_start = (CpuSnapshot::now().ok(), Instant::now());
    let mut handles = Vec::new();
    for (slot, clone) in clones.iter().enumerate() {
        let files: Vec<B::File> = clone.files.iter().filter_map(|p| prepared.get(p).cloned()).collect();
        let setup = CloneSetup {
            spec: clone.spec.clone(),
            files: clone.files.iter().cloned().zip(files.iter().map(B::region)).collect(),
            verifier: clone.verifier,
            seed: clone.seed,
            live: config.live.clone(),
            slot,
            max_read: u64::MAX,
        };
        handles.push(backend.start(files, setup));
    }
    let mut outcomes = Vec::new();
    for handle in handles {
        outcomes.push(handle.await.map_err(|e| EngineError::Task(format!("a job task ended abnormally: {e}")))?);
    }
    let end = CpuSnapshot::now().ok();
    let (start, since) = if cpu_mark.is_finished() {
        cpu_mark.await.unwrap_or(group_start)
    } else {
        cpu_mark.abort();
        group_start
    };
    let cpu = match (start, end) {
        (Some(a), Some(b)) => CpuUsage::between(&a, &b, since.elapsed()),
        _ => CpuUsage::default(),
    };
    let cpu = share_of(&cpu, clones.len());
    for (clone, outcome) in clones.iter().zip(outcomes) {
        if let Some(error) = &outcome.error {
            run.failures.push(format!("job '{}' (clone {}): {error}", clone.spec.name, clone.jobnum));
        }
        run.results.push(result_for(clone, outcome, cpu.clone()));
    }
    // After the clock and the CPU count stopped: CLOSE is not part of the measured run.
    run.failures.extend(backend.release(prepared).await);
    Ok(())
}

/// Lay out the group's files; with peers, in step with them: client 0 first when files are shared (the
/// others then find them laid out), and nobody starts the clock until every client is ready.
async fn prepare_in_step<B: Backend>(
    backend: &B,
    requests: BTreeMap<String, LayoutRequest>,
    config: &EngineConfig,
    shared: bool,
    group: u32,
) -> Result<BTreeMap<String, B::File>, EngineError> {
    let verbose = config.verbose_layout;
    let Some(peers) = &config.peers else {
        return backend.prepare(requests, verbose).await;
    };
    let prepared = if !shared || peers.rank() == 0 {
        let done = backend.prepare(requests, verbose).await;
        if shared && !peers.all_ok(done.is_ok()) {
            return Err(done.err().unwrap_or(EngineError::Peer { group }));
        }
        done
    } else {
        if !peers.all_ok(true) {
            return Err(EngineError::Peer { group });
        }
        backend.prepare(requests, verbose).await
    };
    if !peers.all_ok(prepared.is_ok()) {
        return Err(prepared.err().unwrap_or(EngineError::Peer { group }));
    }
    prepared
}

/// Lay out every distinct file of the group, a few at a time; when one fails, the others opened are
/// closed and its error returned.
async fn prepare_all(
    client: &NfsClient,
    requests: BTreeMap<String, LayoutRequest>,
    verbose: bool,
) -> Result<BTreeMap<String, PreparedFile>, EngineError> {
    use futures_util::stream::{self, StreamExt};
    if let Some(request) = requests.values().find(|r| r.sized_by_file) {
        return Err(EngineError::Usage(format!(
            "file '{}': you need to specify size= (or filesize=): nfsbench creates the files it uses over NFS",
            request.name
        )));
    }
    let mut dirs: BTreeMap<String, nfs_client::FileHandle> = BTreeMap::new();
    for path in requests.keys() {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        if let std::collections::btree_map::Entry::Vacant(entry) = dirs.entry(dir) {
            let fh = resolve_directory(client, entry.key()).await?;
            entry.insert(fh);
        }
    }
    let root = client.root().clone();
    let done: Vec<Result<(String, PreparedFile), EngineError>> = stream::iter(requests.into_values().enumerate())
        .map(|(i, request)| {
            let (dir, leaf) = match request.name.rsplit_once('/') {
                Some((d, l)) => (dirs.get(d).cloned().unwrap_or_else(|| root.clone()), l.to_string()),
                None => (root.clone(), request.name.clone()),
            };
            async move {
                let (file, written) = prepare_file(client, &dir, &leaf, &request, splitmix64(i as u64)).await?;
                if verbose && written > 0 {
                    eprintln!("{}: Laying out IO file (1 file / {}MiB)", request.name, written >> 20);
                }
                Ok::<_, EngineError>((request.name, file))
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let (prepared, failed): (Vec<_>, Vec<_>) = done.into_iter().partition(Result::is_ok);
    let prepared = prepared.into_iter().flatten();
    match failed.into_iter().find_map(Result::err) {
        None => Ok(prepared.collect()),
        Some(e) => {
            close_all(client, prepared.map(|(_, file)| file)).await;
            Err(e)
        }
    }
}

/// One clone's share of the process's CPU use: fio reports each job thread's own use, and summing
/// `usr_cpu × job_runtime` over the jobs gives the client's CPU time; equal shares keep that sum right.
fn share_of(cpu: &CpuUsage, clones: usize) -> CpuUsage {
    let n = clones.max(1) as f64;
    let part = |v: u64| (v as f64 / n).round() as u64;
    CpuUsage {
        usr_pct: cpu.usr_pct / n,
        sys_pct: cpu.sys_pct / n,
        ctx: part(cpu.ctx),
        majf: part(cpu.majf),
        minf: part(cpu.minf),
        cpu_seconds: cpu.cpu_seconds / n,
        ..cpu.clone()
    }
}

fn verifier_for(spec: &JobSpec) -> Result<Option<Verifier>, EngineError> {
    let Some(verify) = spec.verify else { return Ok(None) };
    let kind = match verify {
        Verify::Crc32c => VerifyKind::Crc32c,
        Verify::Md5 => VerifyKind::Md5,
    };
    let min_bs = spec.min_bs();
    // fio's unit: the block size unless verify_interval says otherwise. A job that checks what a job with
    // another block size wrote needs a common verify_interval (e.g. 4k) on both.
    let interval = spec.effective_verify_interval().unwrap_or(min_bs);
    if interval < HEADER_LEN as u64 * 2 || !min_bs.is_multiple_of(interval) {
        return Err(EngineError::Usage(format!(
            "job '{}': verify_interval={interval} must be at least {} bytes and divide the smallest block size ({min_bs})",
            spec.name,
            HEADER_LEN * 2
        )));
    }
    Ok(Some(Verifier::new(kind, interval)))
}

/// fio's random seeds: fixed with `randrepeat` (the default), from `randseed` when given, else from the
/// clock; each clone gets its own stream.
fn seed_for(spec: &JobSpec, job_index: usize, jobnum: u32) -> u64 {
    let base = match (spec.randseed, spec.randrepeat) {
        (Some(seed), _) => seed,
        (None, true) => 0x6e66_7362_656e_6368,
        (None, false) => {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
        }
    };
    splitmix64(base ^ ((job_index as u64) << 32 | u64::from(jobnum)))
}

fn result_for(clone: &JobClone, outcome: WorkerOutcome, cpu: CpuUsage) -> JobResult {
    JobResult {
        name: clone.spec.name.clone(),
        groupid: clone.spec.group,
        jobs: 1,
        error: outcome.errno,
        runtime: outcome.runtime,
        recorder: outcome.recorder,
        cpu,
        job_options: clone.spec.job_options.clone(),
        description: clone.spec.description.clone(),
        verify_errors: outcome.verify_errors,
    }
}
