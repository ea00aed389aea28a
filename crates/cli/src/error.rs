//! The CLI's one error type. Every command returns it and `main` turns its kind into the exit status of
//! the shared CLI contract — 0 success, 1 the work failed, 2 bad usage — so that no status depends on
//! what a message says.

use std::process::ExitCode;

/// What a failed command means for its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// A flag, value, configuration or plan was refused (exit status 2).
    Usage,
    /// The command could not do its work, or part of it failed (exit status 1).
    Failure,
}

impl ExitKind {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            ExitKind::Usage => 2,
            ExitKind::Failure => 1,
        }
    }
}

/// Why a command did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad usage; `main` prints the one-line message after the command's name.
    #[error("{0}")]
    Usage(String),
    /// The work failed; `main` prints the one-line message after the command's name.
    #[error("{0}")]
    Failed(String),
    /// The command already said why (on stderr, where under MPI only the rank that should speak did, or
    /// in its report): only the status is left.
    #[error("already reported")]
    Reported(ExitKind),
    /// An unexpected error from below (I/O, encoding), printed with its chain of causes.
    #[error("{0:#}")]
    Other(#[from] anyhow::Error),
}

impl CliError {
    /// The exit status this error stands for.
    pub fn kind(&self) -> ExitKind {
        match self {
            CliError::Usage(_) => ExitKind::Usage,
            CliError::Failed(_) | CliError::Other(_) => ExitKind::Failure,
            CliError::Reported(kind) => *kind,
        }
    }

    /// The line `main` prints on stderr for `nfsbench COMMAND`, unless the command already printed it.
    pub fn line(&self, command: &str) -> Option<String> {
        match self {
            CliError::Usage(message) | CliError::Failed(message) => Some(format!("nfsbench {command}: {message}")),
            CliError::Other(e) => Some(format!("nfsbench: {e:#}")),
            CliError::Reported(_) => None,
        }
    }

    /// Prints [`line`](Self::line) and returns the exit status.
    pub fn report(&self, command: &str) -> ExitCode {
        if let Some(line) = self.line(command) {
            eprintln!("{line}");
        }
        ExitCode::from(self.kind().code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_exits_2_and_every_failure_exits_1() {
        assert_eq!(CliError::Usage("--bs '4q'".into()).kind().code(), 2);
        assert_eq!(CliError::Failed("mount refused".into()).kind().code(), 1);
        assert_eq!(CliError::Other(anyhow::anyhow!("disk full")).kind().code(), 1);
        assert_eq!(CliError::Reported(ExitKind::Usage).kind().code(), 2);
        assert_eq!(CliError::Reported(ExitKind::Failure).kind().code(), 1);
    }

    #[test]
    fn the_printed_line_names_the_command_unless_the_command_already_spoke() {
        assert_eq!(CliError::Usage("bad plan".into()).line("compare").as_deref(), Some("nfsbench compare: bad plan"));
        assert_eq!(CliError::Failed("no port".into()).line("serve").as_deref(), Some("nfsbench serve: no port"));
        let chained = anyhow::anyhow!("disk full").context("writing report.html");
        assert_eq!(
            CliError::from(chained).line("compare").as_deref(),
            Some("nfsbench: writing report.html: disk full")
        );
        assert_eq!(CliError::Reported(ExitKind::Failure).line("run"), None);
    }
}
