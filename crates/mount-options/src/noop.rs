//! Mount options nfsbench accepts but that change nothing in its client (each leaves a notice saying
//! why), mount options it knows and refuses by name, and the verdict on everything else: unknown.

use crate::error::OptionsError;
use crate::options::{Opt, State};

/// The value an option without effect must still have, so a typo is caught as the kernel would.
#[derive(Debug, Clone, Copy)]
enum Value {
    /// `name` only.
    Flag,
    /// `name` or `noname`.
    Negatable,
    /// `name=N`, a decimal u32.
    Number,
    /// `name=WORD`, one of these words.
    Words(&'static [&'static str]),
    /// `name=ADDR`, an IP address.
    Address,
    /// `name`, `noname` or `name=TAG` with a non-empty tag (only `fsc`).
    FlagOrTag,
}

const ATTR: &str = "nfsbench's client keeps no attribute cache";
const LOCKS: &str = "nfsbench's client takes no locks (no NLM, no local locks)";
const MOUNT_ONCE: &str = "nfsbench mounts once, in the foreground, when the run starts";
const VFS: &str = "it is a flag of the local mount, and nfsbench mounts nothing into the local file tree";
const BOOT: &str = "only /etc/fstab and boot-time mounting use it";

/// (name, value, why it has no effect).
const NO_EFFECT: &[(&str, Value, &str)] = &[
    ("ac", Value::Negatable, ATTR),
    ("actimeo", Value::Number, ATTR),
    ("acregmin", Value::Number, ATTR),
    ("acregmax", Value::Number, ATTR),
    ("acdirmin", Value::Number, ATTR),
    ("acdirmax", Value::Number, ATTR),
    ("lookupcache", Value::Words(&["all", "none", "pos", "positive"]), "nfsbench's client keeps no lookup cache"),
    ("cto", Value::Negatable, "nfsbench's client caches no data, so there is nothing to revalidate at open"),
    ("fsc", Value::FlagOrTag, "nfsbench's client has no FS-Cache"),
    ("lock", Value::Negatable, LOCKS),
    ("local_lock", Value::Words(&["all", "flock", "posix", "none"]), LOCKS),
    ("intr", Value::Negatable, "Linux has ignored it since 2.6.25, and so does nfsbench"),
    ("bg", Value::Flag, MOUNT_ONCE),
    ("fg", Value::Flag, MOUNT_ONCE),
    ("retry", Value::Number, MOUNT_ONCE),
    ("sharecache", Value::Negatable, "nfsbench's client shares no cache between mounts"),
    ("resvport", Value::Negatable, "nfsbench's client connects from an ordinary (unprivileged) port"),
    ("namlen", Value::Number, "nfsbench's client sets no name length limit of its own"),
    (
        "clientaddr",
        Value::Address,
        "only NFSv4.0 callbacks use it; NFSv4.1 and NFSv4.2 call back over the client's own connection",
    ),
    ("acl", Value::Negatable, "nfsbench's client never uses the NFSACL side protocol"),
    ("rdirplus", Value::Negatable, "nfsbench's client reads no directories"),
    ("defaults", Value::Flag, "it only stands for mount(8)'s defaults"),
    ("atime", Value::Flag, VFS),
    ("noatime", Value::Flag, VFS),
    ("relatime", Value::Flag, VFS),
    ("norelatime", Value::Flag, VFS),
    ("strictatime", Value::Flag, VFS),
    ("lazytime", Value::Flag, VFS),
    ("nolazytime", Value::Flag, VFS),
    ("diratime", Value::Flag, VFS),
    ("nodiratime", Value::Flag, VFS),
    ("suid", Value::Flag, VFS),
    ("nosuid", Value::Flag, VFS),
    ("dev", Value::Flag, VFS),
    ("nodev", Value::Flag, VFS),
    ("exec", Value::Flag, VFS),
    ("noexec", Value::Flag, VFS),
    ("auto", Value::Flag, BOOT),
    ("noauto", Value::Flag, BOOT),
    ("nofail", Value::Flag, BOOT),
    ("_netdev", Value::Flag, BOOT),
    (
        "sync",
        Value::Flag,
        "nfsbench's client has no page cache to write through; the job's sync/direct/fsync options decide \
         how writes reach the server",
    ),
    ("async", Value::Flag, "nfsbench's client has no page cache; every write goes to the server as the job issues it"),
];

/// Options Linux knows that nfsbench refuses, with the reason (value or `no` prefix irrelevant).
const REFUSED: &[(&str, &str)] = &[
    ("migration", "nfsbench's client does not follow a file system that migrates to another server"),
    (
        "trunkdiscovery",
        "nfsbench's client discovers no server addresses (fs_locations); name them with remoteports= and max_connect=",
    ),
    ("write", "nfsbench's client has no page cache whose write-back it could tune"),
    ("mounthost", "nfsbench sends MOUNT to the NFS server's address (or addr=)"),
    ("mountaddr", "nfsbench sends MOUNT to the NFS server's address (or addr=)"),
    ("bsize", "it only sets the block size a kernel mount reports to stat()"),
    ("posix", "nfsbench's client asks no POSIX pathconf questions of the MOUNT server"),
    ("softreval", "nfsbench's client keeps no cache to fall back to"),
    ("sloppy", "nfsbench refuses every option it cannot honour, on purpose"),
    ("source", "give the server as the target, HOST:/EXPORT"),
    ("context", "SELinux labels belong to a kernel mount"),
    ("fscontext", "SELinux labels belong to a kernel mount"),
    ("defcontext", "SELinux labels belong to a kernel mount"),
    ("rootcontext", "SELinux labels belong to a kernel mount"),
];

/// Options not applied by `options::apply`: accepted with a notice, refused by name, or unknown.
pub(crate) fn apply(st: &mut State, o: &Opt<'_>) -> Result<(), OptionsError> {
    if o.key == "xprtsec" {
        return match o.value()? {
            "none" => {
                st.notice(o.key, format!("{} '{}' has no effect: nfsbench's client never uses TLS", o.origin, o.raw));
                Ok(())
            }
            "tls" | "mtls" => Err(o.unsupported("nfsbench's client has no RPC-with-TLS")),
            _ => Err(o.bad("xprtsec is none, tls or mtls")),
        };
    }
    let exact = NO_EFFECT.iter().find(|(name, _, _)| *name == o.key);
    let negated = || {
        let base = o.key.strip_prefix("no")?;
        NO_EFFECT.iter().find(|(name, value, _)| *name == base && matches!(value, Value::Negatable | Value::FlagOrTag))
    };
    if let Some(&(_, value, why)) = exact {
        check(o, value)?;
        st.notice(o.key, format!("{} '{}' has no effect: {why}", o.origin, o.raw));
        return Ok(());
    }
    if let Some(&(_, _, why)) = negated() {
        o.flag()?;
        st.notice(o.key, format!("{} '{}' has no effect: {why}", o.origin, o.raw));
        return Ok(());
    }
    let base = o.key.strip_prefix("no").unwrap_or(o.key);
    if let Some((_, why)) = REFUSED.iter().find(|(name, _)| *name == o.key || *name == base) {
        return Err(o.unsupported(*why));
    }
    Err(OptionsError::Unknown { origin: o.origin, option: o.raw.into() })
}

fn check(o: &Opt<'_>, value: Value) -> Result<(), OptionsError> {
    match value {
        Value::Flag | Value::Negatable => o.flag(),
        Value::Number => o.number().map(drop),
        Value::Words(words) => {
            let v = o.value()?;
            if words.contains(&v) {
                Ok(())
            } else {
                Err(o.bad(format!("{} is one of {}", o.key, words.join(", "))))
            }
        }
        Value::Address => crate::addrs::parse_ip(o, o.value()?).map(drop),
        Value::FlagOrTag => match o.value {
            None => Ok(()),
            Some(tag) if !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_graphic()) => Ok(()),
            Some(_) => Err(o.bad("an FS-Cache tag is a non-empty word without spaces")),
        },
    }
}
