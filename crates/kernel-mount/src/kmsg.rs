//! The kernel's own words about a refused mount. mount.cifs says only "mount error(22): Invalid
//! argument" for an option 6.1's cifs does not know; the kernel log names it ("cifs: Unknown parameter
//! 'nconnect'"). A [`Watch`] opened before the mount reads what the kernel logged since (/dev/kmsg,
//! Documentation/ABI/testing/dev-kmsg: one record per read, "PRIO,SEQ,TIME,FLAGS;MESSAGE").

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;

/// At most this many lines are kept, of at most this many bytes each.
const MAX_LINES: usize = 8;
const MAX_LINE: usize = 300;
/// Records read before giving up on finding the end (a flood of unrelated messages).
const MAX_RECORDS: usize = 10_000;

/// The kernel log from the moment of [`Watch::start`].
#[derive(Debug)]
pub struct Watch {
    file: Option<File>,
}

impl Watch {
    /// Start watching; without access to /dev/kmsg (not root, a container) the watch stays empty.
    pub fn start() -> Watch {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
            .open("/dev/kmsg")
            .ok()
            .and_then(|mut f| f.seek(SeekFrom::End(0)).ok().map(|_| f));
        Watch { file }
    }

    /// The messages logged since the start whose text contains one of `words` (case-insensitive),
    /// the last [`MAX_LINES`] of them.
    pub fn lines_about(self, words: &[&str]) -> Vec<String> {
        let Some(mut file) = self.file else { return Vec::new() };
        let mut found = Vec::new();
        let mut record = vec![0u8; 8192];
        for _ in 0..MAX_RECORDS {
            let n = match file.read(&mut record) {
                Ok(0) => break,
                Ok(n) => n,
                // EPIPE: records were overwritten while reading; the next read goes on from there.
                Err(e) if e.raw_os_error() == Some(nix::libc::EPIPE) => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(_) => break,
            };
            if let Some(message) = message_of(&record[..n]) {
                let lower = message.to_ascii_lowercase();
                if words.iter().any(|w| lower.contains(&w.to_ascii_lowercase())) {
                    found.push(message.chars().take(MAX_LINE).collect::<String>());
                }
            }
        }
        let skip = found.len().saturating_sub(MAX_LINES);
        found.into_iter().skip(skip).collect()
    }
}

/// The message of one /dev/kmsg record: after the first ';', up to the first newline (continuation
/// lines of key=value pairs follow it).
fn message_of(record: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(record);
    let (_, message) = text.split_once(';')?;
    let message = unescape(message.lines().next().unwrap_or("").trim());
    (!message.is_empty()).then_some(message)
}

/// /dev/kmsg writes unprintable bytes and backslashes as `\xHH`: "\x5c\x5c10.99.0.1\x5cbench".
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("\\x") {
        out.push_str(&rest[..i]);
        let hex = rest.get(i + 2..i + 4).and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) if b.is_ascii() && !b.is_ascii_control() => {
                out.push(char::from(b));
                rest = &rest[i + 4..];
            }
            _ => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_gives_its_message_and_garbage_gives_none() {
        assert_eq!(
            message_of(b"3,1234,567890,-;cifs: Unknown parameter 'nconnect'\n SUBSYSTEM=x\n").as_deref(),
            Some("cifs: Unknown parameter 'nconnect'")
        );
        assert_eq!(
            message_of(b"3,5,6,-;CIFS: VFS: BAD_NETWORK_NAME: \\x5c\\x5c10.99.0.1\\x5cnosuch").as_deref(),
            Some("CIFS: VFS: BAD_NETWORK_NAME: \\\\10.99.0.1\\nosuch")
        );
        assert_eq!(message_of(b"1,2,3,-;odd \\x0 and \\x07 end").as_deref(), Some("odd \\x0 and \\x07 end"));
        assert_eq!(message_of(b"no separator"), None);
        assert_eq!(message_of(b"6,1,2,-;\n"), None);
        assert!(message_of(&[0xff, b';', 0xfe, b'x']).is_some_and(|m| m.ends_with('x')));
    }

    #[test]
    fn a_watch_without_the_log_finds_nothing() {
        assert!(Watch { file: None }.lines_about(&["cifs"]).is_empty());
    }
}
