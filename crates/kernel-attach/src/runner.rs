//! Running nvme-cli and iscsiadm: a trait, so that tests record the argv and feed the output.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::AttachError;
use crate::sysfs::Sysfs;

/// Where root's tools are when `PATH` does not say (sudo and cron can leave `/usr/sbin` out).
const SBIN_DIRS: [&str; 4] = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"];
/// Lines of a tool's output kept as its last words.
const LAST_WORDS_LINES: usize = 10;

/// What a command said and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandOutput {
    /// The exit status, `None` when a signal ended it.
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl CommandOutput {
    /// Exit status 0.
    pub fn success(&self) -> bool {
        self.status == Some(0)
    }

    /// The tool's own last words: its non-empty stderr lines, else its stdout's, joined with `; `.
    pub fn last_words(&self) -> String {
        let lines = |text: &str| -> Vec<String> {
            let all: Vec<String> = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
            all[all.len().saturating_sub(LAST_WORDS_LINES)..].to_vec()
        };
        let mut words = lines(&self.stderr);
        if words.is_empty() {
            words = lines(&self.stdout);
        }
        if words.is_empty() {
            "no message".to_string()
        } else {
            words.join("; ")
        }
    }
}

/// Runs a program with arguments, waiting for it to end.
pub trait Runner {
    fn run(&self, program: &str, args: &[String]) -> Result<CommandOutput, AttachError>;
}

/// Runs commands with [`std::process::Command`], in the C locale (the tools' messages as documented),
/// finding `nvme` and `iscsiadm` in `PATH` or the sbin directories.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemRunner;

impl Runner for SystemRunner {
    fn run(&self, program: &str, args: &[String]) -> Result<CommandOutput, AttachError> {
        let path = find_program(program).unwrap_or_else(|| PathBuf::from(program));
        let out = Command::new(&path)
            .args(args)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|source| AttachError::Spawn { program: program.to_string(), source })?;
        Ok(CommandOutput {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// `program` itself when it is a path, else the first executable of that name in `PATH` or the sbin
/// directories.
pub(crate) fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    path_dirs
        .into_iter()
        .chain(SBIN_DIRS.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Runs `program args`; a non-zero exit is [`AttachError::Refused`] with the tool's last words.
pub(crate) fn run_checked(runner: &dyn Runner, program: &str, args: &[String]) -> Result<CommandOutput, AttachError> {
    let out = runner.run(program, args)?;
    if out.success() {
        Ok(out)
    } else {
        Err(refused(program, args, &out))
    }
}

pub(crate) fn refused(program: &str, args: &[String], out: &CommandOutput) -> AttachError {
    AttachError::Refused { argv: argv(program, args), status: out.status, message: out.last_words() }
}

pub(crate) fn argv(program: &str, args: &[String]) -> Vec<String> {
    std::iter::once(program.to_string()).chain(args.iter().cloned()).collect()
}

/// `modprobe NAME` unless /sys/module/NAME shows it loaded (or built in). A system with udev loads
/// drivers on demand; one without (a minimal guest, a container) needs it done here.
pub(crate) fn load_module(runner: &dyn Runner, sysfs: &Sysfs, name: &str) -> Result<(), AttachError> {
    if sysfs.exists(&format!("module/{name}")) {
        return Ok(());
    }
    run_checked(runner, "modprobe", &[name.to_string()]).map(|_| ())
}
