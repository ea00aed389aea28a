//! The parse state, and the mount options nfsbench's client applies (vers, minorversion, proto, port,
//! nconnect, max_connect, remoteports, rsize/wsize, timeo/retrans, hard/soft, ro/rw, sec, addr, ...). The
//! transport entries are read in `proto.rs`, the version in `version.rs`; options without effect and
//! options refused by name live in `noop.rs`.

use std::net::IpAddr;
use std::ops::RangeInclusive;

use crate::entries::Entry;
use crate::error::{OptionsError, Origin};
use crate::version::Version;
use crate::{addrs, noop, proto, Proto};

/// Largest rsize/wsize the Linux client uses (`NFS_MAX_FILE_IO_SIZE`), and nfsbench's default.
pub const MAX_IO_SIZE: u32 = 1_048_576;
/// Default `timeo` for TCP and RDMA, in deciseconds (`NFS_DEF_TCP_TIMEO`: 60 s).
pub const DEFAULT_TIMEO_DS: u32 = 600;
/// Linux caps the TCP/RDMA retransmit timeout at 600 s (`NFS_MAX_TCP_TIMEOUT`), i.e. `timeo=6000`.
pub const MAX_TIMEO_DS: u32 = 6000;
/// Default `retrans` for TCP and RDMA (`NFS_DEF_TCP_RETRANS`).
pub const DEFAULT_RETRANS: u32 = 2;
/// Linux's cap on `nconnect` (`NFS_MAX_CONNECTIONS`).
pub const MAX_NCONNECT: u16 = 16;
/// Linux's cap on `max_connect` (`NFS_MAX_TRANSPORTS`).
pub const MAX_CONNECT: u16 = 16;

const PAGE_SIZE: u32 = 4096;

/// rsize/wsize as the Linux client turns a requested size into the one it uses over TCP or RDMA with
/// 4 KiB pages (fs/nfs/internal.h `nfs_io_size`): below 1024 becomes 4096, from 1048576 up becomes
/// 1048576, below one page rounds down to a power of two, otherwise down to a multiple of the page.
/// `0` is not passed here: it means "not set" (the default).
pub fn kernel_io_size(requested: u32) -> u32 {
    let size = if requested < 1024 { PAGE_SIZE } else { requested.min(MAX_IO_SIZE) };
    if size < PAGE_SIZE {
        1 << (31 - size.leading_zeros())
    } else {
        size & !(PAGE_SIZE - 1)
    }
}

/// One `key[=value]` entry, as written by the user.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opt<'a> {
    pub origin: Origin,
    pub raw: &'a str,
    pub key: &'a str,
    pub value: Option<&'a str>,
}

impl<'a> Opt<'a> {
    pub fn new(entry: Entry<'a>, origin: Origin) -> Self {
        Opt { origin, raw: entry.raw, key: entry.key, value: entry.value }
    }

    pub fn flag(&self) -> Result<(), OptionsError> {
        match self.value {
            Some(_) => Err(OptionsError::UnexpectedValue { origin: self.origin, option: self.raw.into() }),
            None => Ok(()),
        }
    }

    pub fn value(&self) -> Result<&'a str, OptionsError> {
        self.value.ok_or_else(|| OptionsError::MissingValue { origin: self.origin, option: self.raw.into() })
    }

    /// A decimal `u32`, no sign, no unit. The kernel's `fsparam_u32` also reads `0x..` as hex and a
    /// leading `0` as octal; nfsbench refuses both in mount options rather than read `timeo=0600` as
    /// 600 where Linux reads 384 (libnfs URL parameters are plain decimal, leading zeros and all).
    pub fn number(&self) -> Result<u32, OptionsError> {
        let v = self.value()?;
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.bad(format!("'{v}' is not a decimal number")));
        }
        if self.origin == Origin::MountOption && v.len() > 1 && v.starts_with('0') {
            return Err(self.bad(format!("Linux reads '{v}' as octal; write the number without leading zeros")));
        }
        v.parse().map_err(|_| self.bad(format!("{v} does not fit in 32 bits")))
    }

    pub fn number_in(&self, range: RangeInclusive<u32>) -> Result<u32, OptionsError> {
        let n = self.number()?;
        if range.contains(&n) {
            Ok(n)
        } else {
            Err(self.bad(format!("{} must be {}..={}", self.key, range.start(), range.end())))
        }
    }

    pub fn bad(&self, reason: impl Into<String>) -> OptionsError {
        OptionsError::BadValue { origin: self.origin, option: self.raw.into(), reason: reason.into() }
    }

    pub fn unsupported(&self, reason: impl Into<String>) -> OptionsError {
        OptionsError::Unsupported { origin: self.origin, option: self.raw.into(), reason: reason.into() }
    }
}

/// Everything parsed so far; later entries overwrite earlier ones (last wins, as in the kernel).
#[derive(Debug)]
pub(crate) struct State {
    pub version: Version,
    pub proto: Proto,
    /// `None`: never given; `Some(None)`: port=0 (ask the port mapper).
    pub port: Option<Option<u16>>,
    pub mountport: Option<u16>,
    pub nconnect: u16,
    /// `max_connect=N`, NFSv4.1+ session trunking; `None`: never given.
    pub max_connect: Option<u16>,
    pub remoteports: Vec<IpAddr>,
    pub addr: Option<IpAddr>,
    pub rsize: u32,
    pub wsize: u32,
    pub timeo_ds: u32,
    pub retrans: u32,
    pub hard: bool,
    pub read_only: bool,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// The options of the MOUNT side (mountport, mountproto, mountvers) as given, for the notice an
    /// NFSv4 mount gives instead, with the refusal an NFSv3 mount gives (`mountvers=2`), judged once the
    /// version is known.
    pub mount_side: Vec<MountSide>,
    /// (key, line): a later occurrence of the same option replaces its notice.
    notices: Vec<(String, String)>,
}

/// One MOUNT-side option as given: NFSv4 ignores it (with a notice), NFSv3 may refuse it.
#[derive(Debug)]
pub(crate) struct MountSide {
    pub key: String,
    pub raw: String,
    pub origin: Origin,
    pub v3_refusal: Option<OptionsError>,
}

impl State {
    pub fn new() -> Self {
        State {
            version: Version::default(),
            proto: Proto::Tcp,
            port: None,
            mountport: None,
            nconnect: 1,
            max_connect: None,
            remoteports: Vec::new(),
            addr: None,
            rsize: MAX_IO_SIZE,
            wsize: MAX_IO_SIZE,
            timeo_ds: DEFAULT_TIMEO_DS,
            retrans: DEFAULT_RETRANS,
            hard: true,
            read_only: false,
            uid: None,
            gid: None,
            mount_side: Vec::new(),
            notices: Vec::new(),
        }
    }

    /// Records a MOUNT-side option (the last of each key counts).
    pub fn mount_side(&mut self, o: &Opt<'_>, v3_refusal: Option<OptionsError>) {
        self.mount_side.retain(|m| m.key != o.key);
        let entry = MountSide { key: o.key.to_owned(), raw: o.raw.to_owned(), origin: o.origin, v3_refusal };
        self.mount_side.push(entry);
    }

    pub fn notice(&mut self, key: &str, line: String) {
        self.clear_notice(key);
        self.notices.push((key.to_owned(), line));
    }

    pub fn clear_notice(&mut self, key: &str) {
        self.notices.retain(|(k, _)| k != key);
    }

    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices).into_iter().map(|(_, line)| line).collect()
    }
}

pub(crate) const FAMILY: &str = "the address family follows the server address: write an IPv6 server as [ADDR]:/EXPORT";

/// Applies one mount option (URL parameters with mount-option semantics come here too).
pub(crate) fn apply(st: &mut State, o: &Opt<'_>) -> Result<(), OptionsError> {
    if let Some(chosen) = proto::read(o) {
        st.proto = chosen?;
        return Ok(());
    }
    match o.key {
        "vers" | "nfsvers" => st.version.vers(o, o.value()?),
        "v2" | "v3" | "v4" | "v4.0" | "v4.1" | "v4.2" => {
            o.flag()?;
            st.version.vers(o, &o.key[1..])
        }
        "minorversion" => st.version.minorversion(o),
        "port" => {
            st.port = Some(port(o)?);
            Ok(())
        }
        "mountport" => {
            st.mountport = port(o)?;
            st.mount_side(o, None);
            Ok(())
        }
        "mountproto" => {
            let v3_refusal = match o.value()? {
                "tcp" => None,
                "udp" => Some(o.unsupported("nfsbench sends MOUNT over TCP only")),
                "tcp6" | "udp6" => Some(o.unsupported(FAMILY)),
                "rdma" => return Err(o.bad("MOUNT does not run over RDMA (Linux refuses it too); use mountproto=tcp")),
                _ => return Err(o.bad("mountproto is tcp")),
            };
            st.mount_side(o, v3_refusal);
            Ok(())
        }
        "mountvers" => {
            let v3_refusal = match o.number()? {
                3 => None,
                1 | 2 => Some(o.unsupported("nfsbench speaks MOUNT version 3 only")),
                _ => return Err(o.bad("mountvers must be 1..=3")),
            };
            st.mount_side(o, v3_refusal);
            Ok(())
        }
        "nconnect" => {
            st.nconnect = o.number_in(1..=u32::from(MAX_NCONNECT))? as u16;
            Ok(())
        }
        "max_connect" => {
            st.max_connect = Some(o.number_in(1..=u32::from(MAX_CONNECT))? as u16);
            Ok(())
        }
        "remoteports" => {
            st.remoteports = addrs::parse_remoteports(o)?;
            Ok(())
        }
        "addr" => {
            st.addr = Some(addrs::parse_ip(o, o.value()?)?);
            Ok(())
        }
        "rsize" => {
            st.rsize = io_size(st, o)?;
            Ok(())
        }
        "wsize" => {
            st.wsize = io_size(st, o)?;
            Ok(())
        }
        "timeo" => {
            let ds = o.number_in(1..=i32::MAX as u32)?;
            st.timeo_ds = ds.min(MAX_TIMEO_DS);
            if ds > MAX_TIMEO_DS {
                let line = format!("timeo={ds} lowered to {MAX_TIMEO_DS} (Linux caps the TCP/RDMA timeout at 600 s)");
                st.notice("timeo", line);
            } else {
                st.clear_notice("timeo");
            }
            Ok(())
        }
        "retrans" => {
            st.retrans = o.number_in(0..=i32::MAX as u32)?;
            Ok(())
        }
        "hard" | "soft" => {
            o.flag()?;
            st.hard = o.key == "hard";
            st.clear_notice("hard");
            Ok(())
        }
        "softerr" => {
            o.flag()?;
            st.hard = false;
            let line = "mount option 'softerr' acts as 'soft': nfsbench's client fails a call after retrans \
                        timeouts either way, and a benchmark does not tell ETIMEDOUT from EIO";
            st.notice("hard", line.into());
            Ok(())
        }
        "ro" | "rw" => {
            o.flag()?;
            st.read_only = o.key == "ro";
            Ok(())
        }
        "sec" => sec(o),
        _ => noop::apply(st, o),
    }
}

/// A port number; `0` means "ask the port mapper" (`None`).
pub(crate) fn port(o: &Opt<'_>) -> Result<Option<u16>, OptionsError> {
    let p = o.number_in(0..=u32::from(u16::MAX))?;
    Ok(u16::try_from(p).ok().filter(|&p| p != 0))
}

fn io_size(st: &mut State, o: &Opt<'_>) -> Result<u32, OptionsError> {
    let requested = o.number()?;
    let size = if requested == 0 { MAX_IO_SIZE } else { kernel_io_size(requested) };
    let key = o.key;
    let line = match requested {
        _ if size == requested => {
            st.clear_notice(key);
            return Ok(size);
        }
        0 => format!("{key}=0 leaves the size to the client: nfsbench uses {size}"),
        r if r < 1024 => format!("{key}={r} raised to {size} (Linux's rule for sizes below 1024)"),
        r if r < PAGE_SIZE => {
            format!("{key}={r} rounded down to {size} (Linux's rule for sizes below one 4096-byte page)")
        }
        r if r > MAX_IO_SIZE => format!("{key}={r} lowered to {size} (the Linux maximum)"),
        r => format!("{key}={r} rounded down to {size} (a multiple of the 4096-byte page, as Linux does)"),
    };
    st.notice(key, line);
    Ok(size)
}

fn sec(o: &Opt<'_>) -> Result<(), OptionsError> {
    let mut any = false;
    // fs/nfs/fs_context.c: sec= is a ':'-separated list of flavors; empty entries are skipped.
    for flavor in o.value()?.split(':').filter(|f| !f.is_empty()) {
        any = true;
        match flavor {
            "sys" => {}
            "none" | "null" => return Err(o.unsupported("nfsbench's client sends AUTH_SYS credentials only")),
            "krb5" | "krb5i" | "krb5p" | "lkey" | "lkeyi" | "lkeyp" | "spkm3" | "spkm3i" | "spkm3p" => {
                return Err(o.unsupported(format!("nfsbench's client has no RPCSEC_GSS ({flavor}); use sec=sys")))
            }
            _ => return Err(o.bad(format!("'{flavor}' is not a security flavor"))),
        }
    }
    if any {
        Ok(())
    } else {
        Err(o.bad("no security flavor given; use sec=sys"))
    }
}
