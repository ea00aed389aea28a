//! Text to [`Mount`]s: the whole of /proc/self/mountstats, section by section.
//!
//! Every mount gets a header line (fs/proc_namespace.c `show_vfsstat`:
//! `device DEV mounted on PATH with fstype TYPE`, then ` ` and the file system's own statistics for
//! those that have them: NFS prints `statvers=1.1` and tab-indented lines). A line that is neither a
//! header nor indented under one is an error naming its number; inside an NFS section, a line that
//! cannot be read is skipped and its number recorded. Nothing is allocated ahead of the text: what is
//! kept is at most a copy of it.

mod header;
mod section;
#[cfg(test)]
mod tests;

use crate::error::{excerpt, ParseError};
use crate::mount::{Mount, NfsStats};

/// Parses the whole of `/proc/self/mountstats` (or a saved copy).
pub fn parse(text: &str) -> Result<Vec<Mount>, ParseError> {
    let mut mounts: Vec<Mount> = Vec::new();
    let mut section: Option<section::SectionParser> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(rest) = line.strip_prefix("device ") {
            finish(&mut mounts, section.take());
            let mount = header::parse_header(number, rest, line)?;
            section = mount.nfs.is_some().then(section::SectionParser::new);
            mounts.push(mount);
        } else if line.trim().is_empty() {
            continue;
        } else if line.starts_with(['\t', ' ']) && !mounts.is_empty() {
            if let Some(parser) = section.as_mut() {
                parser.line(number, line);
            }
            // Indented lines under a file system other than NFS are its own business: ignored.
        } else {
            return Err(ParseError::UnexpectedLine { line: number, text: excerpt(line) });
        }
    }
    finish(&mut mounts, section);
    Ok(mounts)
}

/// Stores the statistics read for the last mount.
fn finish(mounts: &mut [Mount], section: Option<section::SectionParser>) {
    let (Some(parser), Some(mount)) = (section, mounts.last_mut()) else { return };
    let statvers = mount.nfs.take().and_then(|n: NfsStats| n.statvers);
    let mut stats = parser.finish();
    stats.statvers = statvers;
    mount.nfs = Some(stats);
}
