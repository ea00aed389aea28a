//! One repetition of one cell: `nfsbench run` in a child process with the workload's fio options and
//! the case's mount options, its json+ kept as the cell's fio JSON, its figures read back. A workload
//! with `clients` runs as `mpirun -np CLIENTS nfsbench run ...`, whose JSON is fio's client mode: the
//! figures are those of "All clients".

use crate::measure::{from_fio_json, FioJsonError, RepMeasure};
use crate::plan::{Case, Workload};
use mount_options::LinkSpec;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

/// Why a repetition (or the files' lay-out) gave no figures; each message names the file or the command.
#[derive(Debug, thiserror::Error)]
pub enum CellError {
    #[error("creating {}: {source}", .path.display())]
    CreateLog {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("starting {}: {source}", .exe.display())]
    Spawn {
        exe: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `args`: `nfsbench run`'s arguments; `last`: the last line it wrote to stderr.
    #[error("nfsbench {} exited with {status}: {last}", .args.join(" "))]
    Exit { args: Vec<String>, status: ExitStatus, last: String },
    /// SIGINT or SIGTERM: the cell in progress was stopped.
    #[error("interrupted")]
    Interrupted,
    #[error("reading {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not JSON: {source}", .path.display())]
    NotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{}: {source}", .path.display())]
    Figures {
        path: PathBuf,
        #[source]
        source: FioJsonError,
    },
}

/// Where and how the client runs.
#[derive(Clone, Debug)]
pub struct ClientSetup {
    pub exe: PathBuf,
    /// HOST:/EXPORT.
    pub target: String,
    /// Ports of the embedded server, added to each case's options: (nfs/mount port, rdma port).
    pub ports: Option<(u16, Option<u16>)>,
    /// `--rdma-provider` for RDMA cases.
    pub rdma_provider: String,
    /// Open MPI's hostfile for client processes (`clients`); without it they run on this host.
    pub hostfile: Option<PathBuf>,
    pub cpus: usize,
}

impl ClientSetup {
    /// The `-o` string of `case` as run: the case's options plus the embedded server's ports.
    pub fn mount_options(&self, case: &Case) -> String {
        let mut o = case.mount_options();
        if let Some((port, rdma_port)) = self.ports {
            let nfs = if case.is_rdma() { rdma_port.unwrap_or(port) } else { port };
            o.push_str(&format!(",port={nfs},mountport={port}"));
        }
        o
    }

    /// The full `nfsbench run` argument list; `link`: the long-distance link the client emulates. A
    /// kernel-engine case runs `nfsbench run --engine kernel`, which mounts the target with the case's
    /// options, runs the jobs on the mount and reports what the kernel negotiated.
    pub fn run_args(&self, case: &Case, fio_args: &[String], link: Option<&LinkSpec>, json: &Path) -> Vec<String> {
        let mut args = vec!["run".to_string()];
        args.extend(fio_args.iter().cloned());
        match case.target_on(crate::plan::target_host(&self.target)) {
            Some(url) => {
                args.extend(["--target".into(), url]);
                let options = case.mount_options();
                if !options.is_empty() {
                    args.extend(["-o".into(), options]);
                }
            }
            None => args.extend(["--target".into(), self.target.clone(), "-o".into(), self.mount_options(case)]),
        }
        if case.is_kernel() {
            // Validation refused nfsbench's RDMA flags for this engine; the link goes on the path.
            args.extend(["--engine".into(), "kernel".into()]);
        }
        if let Some(link) = link {
            args.extend(["--wan".into(), link.to_string()]);
        }
        if case.is_rdma() && !case.is_kernel() {
            args.extend(["--rdma-provider".into(), self.rdma_provider.clone()]);
            if let Some(c) = case.rdma_credits {
                args.extend(["--rdma-credits".into(), c.to_string()]);
            }
            if let Some(i) = case.rdma_inline {
                args.extend(["--rdma-inline".into(), i.to_string()]);
            }
        }
        args.extend(["--eta".into(), "never".into(), "--output-format=json+".into(), "--output".into()]);
        args.push(json.display().to_string());
        args
    }

    /// Run one measured repetition; the JSON goes to `json`, stderr next to it (`.err`).
    pub fn run_cell(
        &self,
        case: &Case,
        workload: &Workload,
        runtime: Duration,
        ramp: Duration,
        link: Option<&LinkSpec>,
        json: &Path,
    ) -> Result<RepMeasure, CellError> {
        let args = self.run_args(case, &workload.fio_args(runtime, ramp), link, json);
        let ran = self.run_client(&args, json, workload.clients);
        self.sweep_after(case, link.is_some(), json);
        ran?;
        let path = || json.to_path_buf();
        let text = std::fs::read_to_string(json).map_err(|source| CellError::Read { path: path(), source })?;
        let doc: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| CellError::NotJson { path: path(), source })?;
        from_fio_json(&doc, self.cpus).map_err(|source| CellError::Figures { path: path(), source })
    }

    /// Write `workload`'s files once, unmeasured (sequential 1 MiB writes of each job's whole file over
    /// `case`), so that no measured run pays for the server allocating them.
    /// With `clients`, every client lays out its own files (as many as the most any cell runs).
    pub fn lay_out(&self, case: &Case, workload: &Workload, numjobs: u32, json: &Path) -> Result<(), CellError> {
        let fio = vec![
            format!("--name={}", workload.job_name),
            "--rw=write".into(),
            "--bs=1m".into(),
            "--iodepth=8".into(),
            format!("--numjobs={numjobs}"),
            format!("--size={}", workload.size),
            "--group_reporting".into(),
        ];
        // Over the plain path: laying out is not measured.
        let ran = self.run_client(&self.run_args(case, &fio, None, json), json, workload.clients);
        self.sweep_after(case, false, json);
        ran
    }

    /// After a run of `case` (`over_link`: with a long-distance link), whatever way it ended: undo what a
    /// run killed before it could clean up left in the kernel — a block case's attachment, a kernel
    /// case's path delay — and say so in the cell's stderr log.
    fn sweep_after(&self, case: &Case, over_link: bool, json: &Path) {
        let host = crate::plan::target_host(&self.target);
        if case.is_block() {
            let swept = case.target_on(host).and_then(|url| kernel_attach::Target::parse(&url).ok()).map(|target| {
                let sysfs = kernel_attach::Sysfs::new("/sys");
                let undone = kernel_attach::sweep(&target, &kernel_attach::SystemRunner, &sysfs);
                (target.url(), undone.map_err(|e| e.to_string()))
            });
            if let Some((url, undone)) = swept {
                report_swept(json, "left attached by the run", &format!("what the run left attached to {url}"), undone);
            }
        }
        if over_link && case.is_kernel() {
            let undone = kernel_link::resolve(host)
                .and_then(|a| kernel_link::sweep(a, &kernel_link::SystemRunner))
                .map_err(|e| e.to_string());
            report_swept(
                json,
                "left on the path by the run",
                &format!("the path to {host} for a delay the run left"),
                undone,
            );
        }
    }

    fn run_client(&self, args: &[String], json: &Path, clients: Option<u32>) -> Result<(), CellError> {
        let err_path = json.with_extension("err");
        let err = std::fs::File::create(&err_path)
            .map_err(|source| CellError::CreateLog { path: err_path.clone(), source })?;
        let mut command = match clients {
            Some(n) => {
                let mut mpirun = Command::new("mpirun");
                if is_root() {
                    mpirun.arg("--allow-run-as-root");
                }
                if let Some(hostfile) = &self.hostfile {
                    mpirun.arg("--hostfile").arg(hostfile);
                }
                mpirun.args(["--oversubscribe", "-np", &n.to_string()]).arg(&self.exe);
                mpirun
            }
            None => Command::new(&self.exe),
        };
        if crate::interrupt::interrupted() {
            return Err(CellError::Interrupted);
        }
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .map_err(|source| CellError::Spawn { exe: self.exe.clone(), source })?;
        crate::interrupt::set_child(child.id());
        let status = child.wait();
        crate::interrupt::set_child(0);
        let status = status.map_err(|source| CellError::Spawn { exe: self.exe.clone(), source })?;
        if crate::interrupt::interrupted() {
            return Err(CellError::Interrupted);
        }
        if status.success() {
            return Ok(());
        }
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        Err(CellError::Exit { args: args.to_vec(), status, last: last.to_string() })
    }
}

/// A line on stderr and in the cell's stderr log (`.err` beside its JSON).
fn log_line(json: &Path, line: &str) {
    eprintln!("{line}");
    let err_path = json.with_extension("err");
    if let Ok(mut log) = std::fs::OpenOptions::new().append(true).create(true).open(&err_path) {
        let _ = std::io::Write::write_all(&mut log, format!("{line}\n").as_bytes());
    }
}

/// Whether Open MPI's mpirun runs here.
pub fn mpirun_available() -> bool {
    Command::new("mpirun")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// mpirun refuses root without --allow-run-as-root (containers and CI machines often run as root).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Uid:").map(|u| u.split_whitespace().next() == Some("0"))))
        .unwrap_or(false)
}

/// One log line per thing a sweep undid (`left`: what it was), or one for the check that failed (`checked`).
fn report_swept(json: &Path, left: &str, checked: &str, undone: Result<Vec<String>, String>) {
    match undone {
        Ok(undone) => undone.iter().for_each(|u| log_line(json, &format!("nfsbench compare: {left}, undone: {u}"))),
        Err(e) => log_line(json, &format!("nfsbench compare: checking {checked}: {e}")),
    }
}
