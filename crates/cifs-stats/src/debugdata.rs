//! `/proc/fs/cifs/DebugData` to [`DebugData`]: one [`Connection`] per `N) ConnectionId: ...` block.
//!
//! The layout is fs/smb/client/cifs_debug.c `cifs_debug_data_proc_show` (Linux 6.1): a fixed header,
//! `Servers:`, then per primary connection (extra channels are printed inside their session, not as
//! servers) a column-0 block — the SMBDirect lines when the connection is RDMA, `Number of credits: N
//! Dialect 0x311 ...`, `RDMA`, `TCP status: ...` — followed by tab-indented sessions, their `Extra
//! Channels: N`, their shares (`N) \\host\share Mounts: ...`) and the server's interfaces. Only those
//! lines are read; anything else (MIDs, interfaces, witness registrations, lines of a newer kernel) is
//! skipped. A recognised line whose numbers do not read is an error naming the line.
//!
//! Bounded: at most [`MAX_CONNECTIONS`] connections and [`MAX_SHARES`] shares in all are kept (a
//! share name longer than the kernel allows is dropped); past either, [`DebugData::truncated`] is set
//! and the rest is skipped. What is kept is then at most a few MiB, whatever the input.

use std::collections::HashSet;

use serde::Serialize;

use crate::error::{bad_field, expect_first_line, CifsStatsError};
use crate::num::{hex_u32, pairs};
use crate::unc::{unc_key, MAX_NAME_BYTES};
use crate::DEBUG_DATA_PATH as FILE;

/// The first line cifs_debug.c prints.
const HEADER: &str = "Display Internal CIFS Data Structures for Debugging";

/// Most connections kept from one DebugData.
pub const MAX_CONNECTIONS: usize = 256;
/// Most shares kept from one DebugData, over all connections.
pub const MAX_SHARES: usize = 1024;

/// The SMB Direct (RDMA) parameters of a connection, as cifs_debug.c prints them (all `%x`): what the
/// client and server settled on in SMB Direct negotiation (fs/smb/client/smbdirect.c). A value the
/// text lacks stays 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SmbDirect {
    /// The SMB Direct protocol version (0x100 is 1.0).
    pub protocol_version: u32,
    pub transport_status: u32,
    pub receive_credit_max: u32,
    pub send_credit_target: u32,
    pub max_send_size: u32,
    pub max_fragmented_recv_size: u32,
    pub max_fragmented_send_size: u32,
    pub max_receive_size: u32,
    pub keep_alive_interval: u32,
    /// The largest RDMA read or write; the kernel caps rsize/wsize at it on unsigned mounts
    /// (fs/smb/client/smb2ops.c `smb3_negotiate_rsize`/`_wsize`).
    pub max_readwrite_size: u32,
    /// I/O smaller than this goes inline in SMB Direct sends instead of by RDMA read/write.
    pub rdma_readwrite_threshold: u32,
}

/// One server connection (a `N) ConnectionId: ...` block) with what matters here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Connection {
    /// As the kernel prints it after `Hostname:` (empty when it printed none).
    pub hostname: String,
    /// The negotiated dialect: `3.1.1` from `Dialect 0x311` (see [`dialect_name`]); `None` for 0.
    pub dialect: Option<String>,
    /// The connection is SMB Direct: an SMBDirect section (or the `RDMA` line) is present.
    pub rdma: bool,
    /// The SMB Direct parameters, when the kernel printed them (`None` on TCP, and on an RDMA
    /// connection whose transport is gone: "SMBDirect transport not available").
    pub smbd: Option<SmbDirect>,
    /// Channels of the session with the most: 1 + its `Extra Channels: N`.
    pub channels: u32,
    /// Tree names of the shares connected over it (`\\10.99.0.1\bench` as printed; the IPC$ share
    /// left out), each once.
    pub shares: Vec<String>,
    /// `Number of credits:` of the primary channel.
    pub credits: Option<u32>,
}

/// What `/proc/fs/cifs/DebugData` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DebugData {
    pub connections: Vec<Connection>,
    /// Connections or shares beyond [`MAX_CONNECTIONS`]/[`MAX_SHARES`], or share names longer than
    /// the kernel allows, were left out.
    pub truncated: bool,
}

impl DebugData {
    /// The connection carrying the share `unc` (`//10.99.0.1/bench`, `\\10.99.0.1\bench`; a path
    /// after the share is ignored), host and share compared case-insensitively.
    pub fn for_share(&self, unc: &str) -> Option<&Connection> {
        let key = unc_key(unc)?;
        self.connections.iter().find(|c| c.shares.iter().any(|s| unc_key(s).as_ref() == Some(&key)))
    }
}

/// The dialect as `vers=` names it (fs/smb/common/smb2pdu.h `SMB*_PROT_ID`, the version strings of
/// fs/smb/common/cifsglob.h): 0x202 → 2.0, 0x210 → 2.1, 0x300 → 3.0, 0x302 → 3.02, 0x311 → 3.1.1;
/// another nonzero value as `0x...`; 0 (not negotiated) → `None`.
pub fn dialect_name(dialect: u16) -> Option<String> {
    let name = match dialect {
        0 => return None,
        0x202 => "2.0",
        0x210 => "2.1",
        0x300 => "3.0",
        0x302 => "3.02",
        0x311 => "3.1.1",
        other => return Some(format!("{other:#x}")),
    };
    Some(name.to_string())
}

/// Parses the whole of `/proc/fs/cifs/DebugData` (or a saved copy).
pub fn parse_debug_data(text: &str) -> Result<DebugData, CifsStatsError> {
    expect_first_line(text, FILE, HEADER)?;
    let mut parser = Parser { out: DebugData::default(), current: None, seen: HashSet::new() };
    for (index, line) in text.lines().enumerate() {
        parser.line(index + 1, line)?;
    }
    parser.finish();
    Ok(parser.out)
}

struct Parser {
    out: DebugData,
    current: Option<Connection>,
    /// The shares kept so far: (connection number, lowercased tree name).
    seen: HashSet<(usize, String)>,
}

impl Parser {
    fn line(&mut self, number: usize, line: &str) -> Result<(), CifsStatsError> {
        // `\n%d) ConnectionId: 0x%llx ` then `Hostname: %s ` (cifs_debug_data_proc_show), at column 0.
        if let Some(rest) = connection_header(line) {
            self.finish();
            if self.out.connections.len() >= MAX_CONNECTIONS {
                self.out.truncated = true;
            } else {
                self.current =
                    Some(Connection { hostname: hostname(number, rest)?, channels: 1, ..Connection::default() });
            }
            return Ok(());
        }
        let Some(conn) = self.current.as_mut() else { return Ok(()) };
        if line.starts_with("SMBDirect (in hex) protocol version:") {
            conn.rdma = true;
            conn.smbd = Some(smbd_header(number, line)?);
        } else if line.starts_with("SMBDirect transport not available") || line.trim_end() == "RDMA" {
            conn.rdma = true;
        } else if line.starts_with("Conn ") {
            if let Some(smbd) = conn.smbd.as_mut() {
                smbd_conn_line(smbd, number, line)?;
            }
        } else if line.starts_with("Number of credits:") {
            credits_line(conn, number, line)?;
        } else if let Some(rest) = line.trim_start().strip_prefix("Extra Channels:") {
            // `\n\n\tExtra Channels: %zu ` (ses->chan_count - 1), per session.
            let extra: u32 = rest.trim().parse().map_err(|_| bad_field(FILE, number, "Extra Channels", line))?;
            conn.channels = conn.channels.max(extra.saturating_add(1));
        } else if let Some(tree) = share_line(line) {
            let key = (self.out.connections.len(), tree.to_lowercase());
            if !self.seen.contains(&key) {
                if self.seen.len() >= MAX_SHARES || tree.len() > 2 * MAX_NAME_BYTES + 3 {
                    self.out.truncated = true;
                } else {
                    conn.shares.push(tree.to_string());
                    self.seen.insert(key);
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self) {
        if let Some(conn) = self.current.take() {
            self.out.connections.push(conn);
        }
    }
}

/// What follows `N) ConnectionId: ` on a connection's first line.
fn connection_header(line: &str) -> Option<&str> {
    let (index, rest) = line.split_once(") ConnectionId: ")?;
    (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit())).then_some(rest)
}

fn hostname(number: usize, rest: &str) -> Result<String, CifsStatsError> {
    let Some((_, after)) = rest.split_once("Hostname: ") else { return Ok(String::new()) };
    let name = after.split_whitespace().next().unwrap_or("");
    if name.len() > MAX_NAME_BYTES {
        return Err(bad_field(FILE, number, "Hostname", rest));
    }
    Ok(name.to_string())
}

/// `SMBDirect (in hex) protocol version: %x transport status: %x`.
fn smbd_header(number: usize, line: &str) -> Result<SmbDirect, CifsStatsError> {
    let mut smbd = SmbDirect::default();
    for (key, value) in pairs(line) {
        let field = match key {
            "version" => &mut smbd.protocol_version,
            "status" => &mut smbd.transport_status,
            _ => continue,
        };
        *field = hex_u32(value).ok_or_else(|| bad_field(FILE, number, "SMBDirect protocol version", line))?;
    }
    Ok(smbd)
}

/// The three `Conn ...` lines, every value `%x`.
fn smbd_conn_line(smbd: &mut SmbDirect, number: usize, line: &str) -> Result<(), CifsStatsError> {
    for (key, value) in pairs(line) {
        let (name, field): (&'static str, &mut u32) = match key {
            "receive_credit_max" => ("receive_credit_max", &mut smbd.receive_credit_max),
            "send_credit_target" => ("send_credit_target", &mut smbd.send_credit_target),
            "max_send_size" => ("max_send_size", &mut smbd.max_send_size),
            "max_fragmented_recv_size" => ("max_fragmented_recv_size", &mut smbd.max_fragmented_recv_size),
            "max_fragmented_send_size" => ("max_fragmented_send_size", &mut smbd.max_fragmented_send_size),
            "max_receive_size" => ("max_receive_size", &mut smbd.max_receive_size),
            "keep_alive_interval" => ("keep_alive_interval", &mut smbd.keep_alive_interval),
            "max_readwrite_size" => ("max_readwrite_size", &mut smbd.max_readwrite_size),
            "rdma_readwrite_threshold" => ("rdma_readwrite_threshold", &mut smbd.rdma_readwrite_threshold),
            _ => continue,
        };
        *field = hex_u32(value).ok_or_else(|| bad_field(FILE, number, name, line))?;
    }
    Ok(())
}

/// `Number of credits: %d Dialect 0x%x` and flags (` signed`, ` posix`, ...).
fn credits_line(conn: &mut Connection, number: usize, line: &str) -> Result<(), CifsStatsError> {
    let mut tokens = line.split_whitespace().skip(3);
    let credits = tokens.next().and_then(|t| t.parse::<u32>().ok());
    conn.credits = Some(credits.ok_or_else(|| bad_field(FILE, number, "Number of credits", line))?);
    if tokens.next() != Some("Dialect") {
        return Err(bad_field(FILE, number, "Dialect", line));
    }
    let dialect = tokens.next().and_then(|t| t.strip_prefix("0x")).and_then(hex_u32);
    let dialect =
        dialect.and_then(|d| u16::try_from(d).ok()).ok_or_else(|| bad_field(FILE, number, "Dialect", line))?;
    conn.dialect = dialect_name(dialect);
    Ok(())
}

/// The tree name of a share line `\tN) \\host\share Mounts: %d ...` (cifs_debug.c `cifs_debug_tcon`);
/// `None` for the `0) IPC: ...` line and every other line.
fn share_line(line: &str) -> Option<&str> {
    let (index, rest) = line.trim_start().split_once(") ")?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) || !rest.starts_with("\\\\") {
        return None;
    }
    let (tree, _) = rest.split_once(" Mounts: ")?;
    (tree.len() > 2).then_some(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialects_are_named_like_vers() {
        assert_eq!(dialect_name(0x311).as_deref(), Some("3.1.1"));
        assert_eq!(dialect_name(0x302).as_deref(), Some("3.02"));
        assert_eq!(dialect_name(0x300).as_deref(), Some("3.0"));
        assert_eq!(dialect_name(0x210).as_deref(), Some("2.1"));
        assert_eq!(dialect_name(0x2ff).as_deref(), Some("0x2ff"));
        assert_eq!(dialect_name(0), None);
    }

    #[test]
    fn share_lines_and_not() {
        assert_eq!(share_line("\t1) \\\\10.99.0.1\\bench Mounts: 1 DevInfo: 0x20"), Some("\\\\10.99.0.1\\bench"));
        assert_eq!(share_line("\t2) \\\\srv\\my share Mounts: 1 Type: NTFS"), Some("\\\\srv\\my share"));
        assert_eq!(share_line("\t0) IPC: \\\\10.99.0.1\\IPC$ Mounts: 1"), None);
        assert_eq!(share_line("\t1) Address: 10.99.0.1 Uses: 1"), None);
        assert_eq!(share_line("\t1)\tSpeed: 1000000000 bps"), None);
    }
}
