//! libnfs URL parameters (`nfs://HOST/EXPORT?version=3&nconnect=4`), as listed in libnfs's README and
//! `nfs_set_context_args` (lib/libnfs.c). Parameters that mean the same as a mount option go through the
//! mount-option code; libnfs-only knobs are notices when they change nothing for nfsbench and refused by
//! name when nfsbench cannot honour them.

use crate::error::{OptionsError, Origin};
use crate::options::{self, Opt, State};

/// Applies one URL parameter (already percent-decoded).
pub(crate) fn apply(st: &mut State, key: &str, value: Option<&str>) -> Result<(), OptionsError> {
    let raw = match value {
        Some(v) => format!("{key}={v}"),
        None => key.to_owned(),
    };
    let o = Opt { origin: Origin::UrlParameter, raw: &raw, key, value };
    match key {
        "version" => match o.value()? {
            "3" => st.version.vers(&o, "3"),
            // libnfs's NFSv4 is NFSv4.0 (SETCLIENTID, no sessions).
            "4" => Err(o.unsupported(
                "libnfs's version=4 is NFSv4.0, which has no sessions; nfsbench speaks NFSv4.1 and NFSv4.2: drop \
                 version=4 and give -o vers=4.1 or -o vers=4.2",
            )),
            _ => Err(o.bad("version is 3 or 4")),
        },
        "nfsport" => {
            st.port = Some(options::port(&o)?);
            Ok(())
        }
        "mountport" => {
            st.mountport = options::port(&o)?;
            Ok(())
        }
        "uid" => {
            st.uid = Some(o.number()?);
            Ok(())
        }
        "gid" => {
            st.gid = Some(o.number()?);
            Ok(())
        }
        "readonly" => {
            o.flag()?;
            st.read_only = true;
            Ok(())
        }
        "nconnect" | "rsize" | "wsize" | "timeo" | "retrans" | "sec" | "xprtsec" => options::apply(st, &o),
        "dircache" => {
            zero_or_one(&o)?;
            no_effect(st, &o, "nfsbench's client keeps no directory cache")
        }
        "readdir-buffer" => {
            // `count` or `dircount,maxcount`.
            for part in o.value()?.split(',') {
                if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || part.parse::<u32>().is_err() {
                    return Err(o.bad("readdir-buffer is COUNT or DIRCOUNT,MAXCOUNT"));
                }
            }
            no_effect(st, &o, "nfsbench's client reads no directories")
        }
        "debug" => {
            o.number()?;
            no_effect(st, &o, "it only sets libnfs's log level; nfsbench has no libnfs log")
        }
        "autoreconnect" => match o.value()? {
            "-1" => no_effect(st, &o, "nfsbench's client always reconnects; hard/soft and timeo/retrans bound a call"),
            v if v.parse::<i32>().is_ok_and(|n| n >= 0) => {
                Err(o.unsupported("nfsbench's client always reconnects (libnfs's autoreconnect=-1)"))
            }
            _ => Err(o.bad("autoreconnect is -1, 0 or a retry count")),
        },
        "auto-traverse-mounts" => {
            if zero_or_one(&o)? {
                Err(o.unsupported("nfsbench's client does not cross into nested exports; mount the nested export"))
            } else {
                no_effect(st, &o, "nfsbench's client never crosses into nested exports")
            }
        }
        "readahead" | "pagecache" => {
            let what = if key == "readahead" { "does no read-ahead" } else { "keeps no page cache" };
            if o.number()? == 0 {
                no_effect(st, &o, &format!("nfsbench's client {what}"))
            } else {
                Err(o.unsupported(format!("nfsbench's client {what}: each job I/O is one NFS call")))
            }
        }
        "tcp-syncnt" => Err(o.unsupported("nfsbench's client leaves TCP SYN retries to the operating system")),
        "if" => Err(o.unsupported("nfsbench's client does not bind to an interface; the routing table decides")),
        _ => Err(OptionsError::Unknown { origin: o.origin, option: raw.clone() }),
    }
}

/// A libnfs boolean, `0` or `1`.
fn zero_or_one(o: &Opt<'_>) -> Result<bool, OptionsError> {
    match o.value()? {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(o.bad(format!("{} is 0 or 1", o.key))),
    }
}

fn no_effect(st: &mut State, o: &Opt<'_>, why: &str) -> Result<(), OptionsError> {
    st.notice(o.key, format!("{} '{}' has no effect: {why}", o.origin, o.raw));
    Ok(())
}
