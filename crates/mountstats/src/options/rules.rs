//! How each asked option compares with `opts:`. What the kernel prints, and when it leaves an option
//! out, follows fs/nfs/super.c `nfs_show_mount_options` (called with showdefaults=1 for mountstats).

use super::asked::Asked;
use super::{OptionCheck, Verdict};
use crate::mount::Mount;

/// Options `nfs_show_mount_options` prints for every mount (showdefaults=1): absent means Differs.
const ALWAYS_PRINTED: [&str; 13] = [
    "vers",
    "rsize",
    "wsize",
    "namlen",
    "acregmin",
    "acregmax",
    "acdirmin",
    "acdirmax",
    "proto",
    "timeo",
    "retrans",
    "sec",
    "local_lock",
];

/// Printed for NFSv2/v3 only (`nfs_show_mountd_options`); NFSv4 has no MOUNT protocol.
const MOUNT_PROTOCOL: [&str; 5] = ["mountaddr", "mountvers", "mountport", "mountproto", "mounthost"];

/// Flags as the kernel prints them: asked word → (printed word, whether it is then present).
const FLAGS: [(&str, &str, bool); 35] = [
    ("soft", "soft", true),
    ("hard", "hard", true),
    ("softerr", "softerr", true),
    ("softreval", "softreval", true),
    ("nosoftreval", "softreval", false),
    ("posix", "posix", true),
    ("noposix", "posix", false),
    ("nocto", "nocto", true),
    ("cto", "nocto", false),
    ("noac", "noac", true),
    ("ac", "noac", false),
    ("nolock", "nolock", true),
    ("lock", "nolock", false),
    ("noacl", "noacl", true),
    ("acl", "noacl", false),
    ("nordirplus", "nordirplus", true),
    ("rdirplus", "nordirplus", false),
    ("nosharecache", "nosharecache", true),
    ("sharecache", "nosharecache", false),
    ("noresvport", "noresvport", true),
    ("resvport", "noresvport", false),
    ("sync", "sync", true),
    ("async", "sync", false),
    ("noatime", "noatime", true),
    ("atime", "noatime", false),
    ("nodiratime", "nodiratime", true),
    ("diratime", "nodiratime", false),
    ("ro", "ro", true),
    ("rw", "rw", true),
    ("fsc", "fsc", true),
    ("nofsc", "fsc", false),
    ("migration", "migration", true),
    ("nomigration", "migration", false),
    ("noalignwrite", "noalignwrite", true),
    ("alignwrite", "noalignwrite", false),
];

/// Options the kernel leaves out at their default: key → the default (`nfs_show_mount_options`).
const OMITTED_AT_DEFAULT: [(&str, &str); 4] =
    [("lookupcache", "all"), ("max_connect", "1"), ("write", "lazy"), ("xprtsec", "none")];

/// Why some options are never in mountstats.
const NOT_SHOWN_WHY: [(&str, &str); 11] = [
    ("remoteports", "mount.nfs and the kernel do not print remoteports= in mountstats"),
    ("addr", "the server address is in /proc/mounts, not in mountstats opts"),
    ("intr", "ignored by the kernel since 2.6.25 and not printed"),
    ("nointr", "ignored by the kernel since 2.6.25 and not printed"),
    ("bg", "mount.nfs's own option (retry in the background)"),
    ("fg", "mount.nfs's own option"),
    ("retry", "mount.nfs's own option (how long to retry the mount)"),
    ("sloppy", "mount.nfs's own option"),
    ("trunkdiscovery", "not printed in mountstats"),
    ("nosuid", "a VFS flag, in /proc/mounts"),
    ("noexec", "a VFS flag, in /proc/mounts"),
];

/// What a mount negotiated, read once for all checks.
pub(super) struct Negotiated<'a> {
    mount: &'a Mount,
    v4: bool,
    transports: usize,
}

impl<'a> Negotiated<'a> {
    pub(super) fn of(mount: &'a Mount) -> Negotiated<'a> {
        let v4 = match mount.option("vers") {
            Some(v) => v.starts_with('4'),
            None => mount.fstype == "nfs4",
        };
        Negotiated { mount, v4, transports: mount.transports().len() }
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.mount.option(key)
    }
}

pub(super) fn check(asked: &Asked, n: &Negotiated<'_>) -> OptionCheck {
    let mut c = OptionCheck {
        key: asked.key.clone(),
        asked: asked.written.clone(),
        negotiated: None,
        verdict: Verdict::NotShown,
        note: None,
    };
    if !n.mount.is_nfs() {
        c.note = Some(format!("{} is not an NFS mount", n.mount.mountpoint));
        return c;
    }
    let value = asked.value.as_deref();
    match (asked.key.as_str(), value) {
        ("vers", Some(v)) => version(&mut c, v, n),
        ("proto", Some(v)) => proto(&mut c, v, n),
        ("nconnect", Some(v)) => nconnect(&mut c, v, n),
        ("port", Some(v)) => port(&mut c, v, n),
        ("actimeo", Some(v)) => actimeo(&mut c, v, n),
        ("sec", Some(v)) => sec(&mut c, v, n),
        (key, Some(_)) if n.v4 && MOUNT_PROTOCOL.contains(&key) => {
            c.note = Some("NFSv4 uses no MOUNT protocol: the kernel prints no mount* option for it".into());
        }
        (key, Some(v)) => valued(&mut c, key, v, n),
        (word, None) => flag(&mut c, word, n),
    }
    c
}

fn set(c: &mut OptionCheck, negotiated: Option<String>, same: bool) {
    c.negotiated = negotiated;
    c.verdict = if same { Verdict::Same } else { Verdict::Differs };
}

/// `vers=4` lets the client choose the minor version (fs/nfs/fs_context.c: no minorversion means
/// the highest the client and server share): the kernel prints the one it settled on.
fn version(c: &mut OptionCheck, asked: &str, n: &Negotiated<'_>) {
    let Some(got) = n.get("vers") else {
        set(c, None, false);
        return;
    };
    let (am, ai) = split_version(asked);
    let (gm, gi) = split_version(got);
    let same = am == gm && ai == gi;
    set(c, Some(got.to_string()), same);
    if !same && am == 4 && ai.is_none() && gm == 4 {
        c.note = Some(format!("vers=4 lets the client choose the minor version: it negotiated {got}"));
    }
}

/// `4.1` → (4, Some(1)); `3` → (3, None).
fn split_version(v: &str) -> (u64, Option<u64>) {
    match v.split_once('.') {
        Some((major, minor)) => (major.parse().unwrap_or(u64::MAX), minor.parse().ok()),
        None => (v.parse().unwrap_or(u64::MAX), None),
    }
}

/// The kernel prints the netid (`rpc_peeraddr2str(.., RPC_DISPLAY_NETID)`): `tcp6`/`rdma6` over IPv6.
fn proto(c: &mut OptionCheck, asked: &str, n: &Negotiated<'_>) {
    let got = n.get("proto");
    let family_free = |p: &str| p.strip_suffix('6').unwrap_or(p).to_string();
    let same = got.is_some_and(|g| family_free(g) == family_free(asked));
    set(c, got.map(str::to_string), same);
}

/// `nconnect=N`: printed when the client has more than one connection per server (`cl_nconnect > 0`),
/// and each connection is one `xprt:` line; both must say N.
fn nconnect(c: &mut OptionCheck, asked: &str, n: &Negotiated<'_>) {
    let printed: u64 = n.get("nconnect").and_then(|v| v.parse().ok()).unwrap_or(1);
    let transports = n.transports as u64;
    let plural = if transports == 1 { "" } else { "s" };
    let negotiated = Some(format!("{printed} ({transports} transport{plural})"));
    match asked.parse::<u64>() {
        Ok(want) => {
            let same = printed == want.max(1) && transports == want.max(1);
            set(c, negotiated, same);
            if !same && printed == 1 && transports == 1 {
                c.note = Some("the kernel opened one connection: nconnect was ignored".into());
            }
        }
        Err(_) => set(c, negotiated, false),
    }
}

/// The kernel prints port= for NFSv4 only when it is not 2049, for v2/v3 only when nonzero (0 means
/// "ask rpcbind").
fn port(c: &mut OptionCheck, asked: &str, n: &Negotiated<'_>) {
    let default = if n.v4 { "2049" } else { "0" };
    match n.get("port") {
        Some(got) => set(c, Some(got.to_string()), same_value(asked, got)),
        None => {
            set(c, Some(default.to_string()), same_value(asked, default));
            c.note = Some(format!("the kernel omits port={default} for this version"));
        }
    }
}

/// `actimeo=N` sets acregmin, acregmax, acdirmin and acdirmax to N.
fn actimeo(c: &mut OptionCheck, asked: &str, n: &Negotiated<'_>) {
    let keys = ["acregmin", "acregmax", "acdirmin", "acdirmax"];
    let got: Vec<String> = keys.iter().map(|k| format!("{k}={}", n.get(k).unwrap_or("?"))).collect();
    let same = keys.iter().all(|k| n.get(k).is_some_and(|g| same_value(asked, g)));
    set(c, Some(got.join(",")), same);
}

/// `sec=krb5:krb5i` lists flavours the client may choose from: Same when it chose one of them.
fn sec(c: &mut OptionCheck, asked: &str, n: &Negotiated<'_>) {
    let got = n.get("sec");
    set(c, got.map(str::to_string), got.is_some_and(|g| asked.split(':').any(|a| a == g)));
}

fn valued(c: &mut OptionCheck, key: &str, asked: &str, n: &Negotiated<'_>) {
    let asked = normalise_value(key, asked);
    if let Some(got) = n.get(key) {
        let got = normalise_value(key, got);
        let same = same_value(&asked, &got);
        if !same && matches!(key, "rsize" | "wsize") {
            c.note = Some(size_note(key, &asked, &got));
        }
        set(c, Some(got), same);
    } else if let Some((_, default)) = OMITTED_AT_DEFAULT.iter().find(|(k, _)| *k == key) {
        set(c, Some(default.to_string()), same_value(&asked, default));
        c.note = Some(format!("the kernel omits {key}={default}"));
    } else if ALWAYS_PRINTED.contains(&key) || (!n.v4 && MOUNT_PROTOCOL.contains(&key) && key != "mounthost") {
        set(c, None, false);
        c.note = Some(format!("the kernel always prints {key}= but did not"));
    } else {
        c.note = not_shown_why(key);
    }
}

fn flag(c: &mut OptionCheck, word: &str, n: &Negotiated<'_>) {
    if let Some((_, printed, present)) = FLAGS.iter().find(|(w, _, _)| *w == word) {
        let is_present = n.get(printed).is_some();
        let shown = if is_present { printed.to_string() } else { format!("no {printed}") };
        set(c, Some(shown), is_present == *present);
    } else if n.get(word).is_some() {
        set(c, Some(word.to_string()), true);
    } else {
        c.note = not_shown_why(word);
    }
}

/// `lookupcache=positive` is printed as `pos`.
fn normalise_value(key: &str, value: &str) -> String {
    match (key, value) {
        ("lookupcache", "positive") => "pos".into(),
        _ => value.to_string(),
    }
}

/// Equal as numbers when both are numbers, else as text.
fn same_value(a: &str, b: &str) -> bool {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The kernel caps rsize/wsize at the server's maximum (FSINFO rtmax/wtmax, or the transport's)
/// and rounds them down (fs/nfs/client.c `nfs_server_set_fsinfo`, `nfs_io_size`).
fn size_note(key: &str, asked: &str, got: &str) -> String {
    match (asked.parse::<u64>(), got.parse::<u64>()) {
        (Ok(a), Ok(g)) if g < a => {
            format!("{key} lowered from {a} to {g}: the server's maximum or the kernel's rounding")
        }
        (Ok(_), Ok(_)) => format!("{key} raised to {got}: the kernel rounds sizes to whole pages"),
        _ => format!("{key}={asked} is not a plain number (the kernel reads it as one)"),
    }
}

fn not_shown_why(key: &str) -> Option<String> {
    let why = NOT_SHOWN_WHY.iter().find(|(k, _)| *k == key).map(|(_, w)| *w);
    Some(why.unwrap_or("the kernel does not print this option in mountstats").to_string())
}
