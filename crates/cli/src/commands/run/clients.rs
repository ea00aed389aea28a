//! `mpirun -np N nfsbench run ...`: every rank is a client running the whole job against the target.
//! The ranks agree at each step whether to go on (a rank that cannot read its job file or mount stops
//! them all), start each group together ([`load_engine::Peers`]), and hand their results to rank 0, which merges
//! them exactly ([`report::clients`]) and alone prints and writes: every client's rows, then "All
//! clients", in fio's client-mode layout.

use mpi_rt::Mpi;
use report::clients::ClientRun;
use report::RunResult;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// This process as one client of an MPI run.
#[derive(Debug)]
pub struct MpiClients {
    mpi: Mpi,
}

impl load_engine::Peers for MpiClients {
    fn rank(&self) -> usize {
        self.mpi.rank()
    }

    fn all_ok(&self, ok: bool) -> bool {
        // An MPI failure here is fatal for every rank (Open MPI aborts the job), so it counts as not ok.
        self.mpi.all_max(i32::from(!ok)).is_ok_and(|worst| worst == 0)
    }
}

/// What a rank tells rank 0 besides its job results.
#[derive(Debug, Serialize, Deserialize)]
struct RankHeader {
    host: String,
    start_time_ms: u64,
    notes: Vec<(String, String)>,
    failures: Vec<String>,
}

/// Every rank's run at rank 0, with the failures each reported ("host rank K: ...").
#[derive(Debug)]
pub struct Gathered {
    pub clients: Vec<ClientRun>,
    pub failures: Vec<String>,
}

impl MpiClients {
    /// MPI when mpirun started this process; `Err` names why it could not come up.
    pub fn from_env() -> Option<Result<MpiClients, String>> {
        Mpi::from_env().map(|m| m.map(|mpi| MpiClients { mpi }).map_err(|e| e.to_string()))
    }

    pub fn rank(&self) -> usize {
        self.mpi.rank()
    }

    /// This rank's host name as MPI knows it.
    pub fn host(&self) -> &str {
        self.mpi.host()
    }

    /// Whether every rank got this far without trouble (a barrier too).
    pub fn all_ok(&self, ok: bool) -> bool {
        load_engine::Peers::all_ok(self, ok)
    }

    /// Sends this rank's run and failures to rank 0; at rank 0, every rank's in rank order.
    pub fn gather(&self, run: &RunResult, failures: &[String]) -> Result<Option<Gathered>, String> {
        let header = RankHeader {
            host: self.mpi.host().to_string(),
            start_time_ms: run.start_time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64),
            notes: run.notes.clone(),
            failures: failures.to_vec(),
        };
        let header = serde_json::to_vec(&header).map_err(|e| format!("encoding this rank's result: {e}"))?;
        let headers = self.mpi.gather(&header).map_err(|e| e.to_string())?;
        let jobs = self.mpi.gather(&report::job_codec::encode_jobs(&run.jobs)).map_err(|e| e.to_string())?;
        let (Some(headers), Some(jobs)) = (headers, jobs) else { return Ok(None) };
        let mut gathered = Gathered { clients: Vec::new(), failures: Vec::new() };
        for (rank, (header, jobs)) in headers.iter().zip(&jobs).enumerate() {
            let header: RankHeader =
                serde_json::from_slice(header).map_err(|e| format!("the result of rank {rank}: {e}"))?;
            let jobs =
                report::job_codec::decode_jobs(jobs).map_err(|e| format!("the job results of rank {rank}: {e}"))?;
            let who = format!("{} rank {rank}", header.host);
            gathered.failures.extend(header.failures.iter().map(|f| format!("{who}: {f}")));
            gathered.clients.push(ClientRun {
                host: header.host,
                rank,
                run: RunResult {
                    jobs,
                    start_time: UNIX_EPOCH + Duration::from_millis(header.start_time_ms),
                    notes: header.notes,
                    ..run_without_jobs(run)
                },
            });
        }
        Ok(Some(gathered))
    }
}

/// The parts of a run every rank shares (same job file): global options and percentile list.
fn run_without_jobs(run: &RunResult) -> RunResult {
    RunResult {
        jobs: Vec::new(),
        global_options: run.global_options.clone(),
        start_time: SystemTime::UNIX_EPOCH,
        percentile_list: run.percentile_list.clone(),
        notes: Vec::new(),
    }
}
