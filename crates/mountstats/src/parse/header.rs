//! The `device DEV mounted on PATH with fstype TYPE[ STATS]` header of a section
//! (fs/proc_namespace.c `show_vfsstat`; DEV and PATH escape blank, tab, newline and backslash as
//! `\ooo`, `mangle`/`seq_path_root`).

use crate::error::{excerpt, ParseError};
use crate::mount::{Mount, NfsStats};

/// File system types whose sections carry NFS statistics.
const NFS_TYPES: [&str; 2] = ["nfs", "nfs4"];

/// Reads a header; `rest` is the text after `device `, `line` the whole line (for messages).
pub(super) fn parse_header(number: usize, rest: &str, line: &str) -> Result<Mount, ParseError> {
    let bad = |missing| ParseError::BadDeviceLine { line: number, missing, text: excerpt(line) };
    let (device, rest) = rest.split_once(" mounted on ").ok_or(bad(" mounted on "))?;
    let (mountpoint, rest) = rest.rsplit_once(" with fstype ").ok_or(bad(" with fstype "))?;
    let mut words = rest.split(' ');
    let fstype = words.next().unwrap_or_default().to_string();
    let statvers = words.find_map(|w| w.strip_prefix("statvers=")).map(str::to_string);
    let is_nfs = NFS_TYPES.contains(&fstype.as_str()) || statvers.is_some();
    Ok(Mount {
        device: unescape_octal(device),
        mountpoint: unescape_octal(mountpoint),
        fstype,
        nfs: is_nfs.then(|| NfsStats { statvers, ..NfsStats::default() }),
    })
}

/// Decodes the kernel's `\ooo` escapes (three octal digits); anything else is kept as written.
pub(super) fn unescape_octal(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped =
            bytes.get(i + 1..i + 4).filter(|d| bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match escaped {
            Some(d) if d[0] <= b'3' => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
