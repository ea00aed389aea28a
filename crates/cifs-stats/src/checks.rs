//! Asked against negotiated: a mount.cifs option string beside the [`Connection`] DebugData shows
//! and the mount's line of /proc/self/mounts, one [`OptionCheck`] per asked option — the same
//! [`Verdict`]s as NFS mounts get from `mountstats::check_options`.
//!
//! What the connection settled (dialect, SMB Direct, channels) is read from DebugData; everything
//! else from the mount line as fs/smb/client/cifsfs.c `cifs_show_options` prints it. Which options it
//! always prints, which only when set and how it spells them are in the tables below; the rules that
//! need more (`vers`, `rdma`, `rsize`/`wsize`, `multichannel`/`max_channels`, `sign`, credentials,
//! ids, modes, `addr`, `actimeo`) are in `checks/negotiated.rs` and `checks/printed.rs`, each naming
//! its source. Numbers compare as the kernel reads them (`fsparam_u32`: base 0, so `0755` is octal).
//! A password is never shown: the check says `***`.

mod negotiated;
mod printed;

use mountstats::{OptionCheck, Verdict};

use crate::debugdata::Connection;
use crate::optstr::{asked_options, base0, Asked, MountLine};

/// Printed by `cifs_show_options` for every mount: absent means Differs.
/// (`vers`, `rsize`, `wsize`, `uid`, `gid` and `addr` are too, and have rules of their own.)
const ALWAYS_PRINTED: [&str; 4] = ["cache", "bsize", "echo_interval", "closetimeo"];

/// Printed by `cifs_show_options` only when set (or not at their default, see [`OMITTED_AT_DEFAULT`]).
const PRINTED_WHEN_SET: [&str; 4] = ["iocharset", "srcaddr", "snapshot", "handletimeout"];

/// Left out at their default by `cifs_show_options`: key → default. `max_credits` is printed when not
/// SMB2_MAX_CREDITS_AVAILABLE (32000), `rasize`/`esize`/`snapshot`/`handletimeout` when nonzero.
const OMITTED_AT_DEFAULT: [(&str, &str); 5] =
    [("max_credits", "32000"), ("rasize", "0"), ("esize", "0"), ("snapshot", "0"), ("handletimeout", "0")];

/// Flags as `cifs_show_options` prints them: asked word → (printed word, whether it is then present).
/// Negated forms are fs_context.c's `fsparam_flag_no` (`nohard` is `hard` negated, so `soft`).
const FLAGS: [(&str, &str, bool); 58] = [
    ("seal", "seal", true),
    ("signloosely", "signloosely", true),
    ("nocase", "nocase", true),
    ("nodelete", "nodelete", true),
    ("nosparse", "nosparse", true),
    ("locallease", "locallease", true),
    ("hard", "hard", true),
    ("nohard", "soft", true),
    ("soft", "soft", true),
    ("nosoft", "hard", true),
    ("persistenthandles", "persistenthandles", true),
    ("nopersistenthandles", "persistenthandles", false),
    ("resilienthandles", "resilienthandles", true),
    ("noresilienthandles", "resilienthandles", false),
    ("nodfs", "nodfs", true),
    ("posixpaths", "posixpaths", true),
    ("noposixpaths", "posixpaths", false),
    ("setuids", "setuids", true),
    ("nosetuids", "setuids", false),
    ("idsfromsid", "idsfromsid", true),
    ("serverino", "serverino", true),
    ("noserverino", "serverino", false),
    ("rwpidforward", "rwpidforward", true),
    ("forcemand", "forcemand", true),
    ("nouser_xattr", "nouser_xattr", true),
    ("user_xattr", "nouser_xattr", false),
    ("mapchars", "mapchars", true),
    ("nomapchars", "mapchars", false),
    ("mapposix", "mapposix", true),
    ("nomapposix", "mapposix", false),
    ("sfu", "sfu", true),
    ("nosfu", "sfu", false),
    ("nobrl", "nobrl", true),
    ("brl", "nobrl", false),
    ("nohandlecache", "nohandlecache", true),
    ("handlecache", "nohandlecache", false),
    ("modefromsid", "modefromsid", true),
    ("cifsacl", "cifsacl", true),
    ("dynperm", "dynperm", true),
    ("nodynperm", "dynperm", false),
    ("acl", "acl", true),
    ("noacl", "acl", false),
    ("mfsymlinks", "mfsymlinks", true),
    ("fsc", "fsc", true),
    ("nostrictsync", "nostrictsync", true),
    ("strictsync", "nostrictsync", false),
    ("noperm", "noperm", true),
    ("perm", "noperm", false),
    ("tcpnodelay", "tcpnodelay", true),
    ("notcpnodelay", "tcpnodelay", false),
    ("noautotune", "noautotune", true),
    ("noblocksend", "noblocksend", true),
    ("nolease", "nolease", true),
    ("multiuser", "multiuser", true),
    ("witness", "witness", true),
    ("forceuid", "forceuid", true),
    ("forcegid", "forcegid", true),
    ("nounix", "nounix", true),
];

/// Flags of the VFS, printed by it in the same /proc/self/mounts field (fs/proc_namespace.c).
const VFS_FLAGS: [&str; 8] = ["ro", "rw", "noatime", "nodiratime", "relatime", "nosuid", "nodev", "noexec"];

/// Why some options are never in the mount line.
const NOT_SHOWN_WHY: [(&str, &str); 17] = [
    ("port", "cifs_show_options does not print port="),
    ("netbiosname", "cifs_show_options does not print netbiosname="),
    ("servern", "cifs_show_options does not print servern="),
    ("prefixpath", "the path is part of the mount source, not of the options"),
    ("unc", "the share is the mount source, not an option"),
    ("source", "the share is the mount source, not an option"),
    ("nconnect", "Linux 6.1's cifs has no nconnect (it refuses the mount: Unknown parameter)"),
    ("noac", "deprecated and not printed"),
    ("nosharesock", "not in the mount line (DebugData's Dialect line says nosharesock)"),
    ("domainauto", "not printed"),
    ("sloppy", "mount.cifs's own option"),
    ("_netdev", "mount(8)'s own option"),
    ("auto", "mount(8)'s own option"),
    ("noauto", "mount(8)'s own option"),
    ("nofail", "mount(8)'s own option"),
    ("defaults", "mount(8)'s own option"),
    ("user", "mount(8)'s own option (fstab: users may mount)"),
];

/// Checks every option of `asked` (a mount.cifs `-o` string) against `connection` (from
/// [`crate::DebugData::for_share`]) and `mount_opts` (the options field of the mount's
/// /proc/self/mounts line, or the whole line).
pub fn check_options(asked: &str, connection: &Connection, mount_opts: &str) -> Vec<OptionCheck> {
    let line = MountLine::parse(mount_opts);
    let asked = asked_options(asked);
    let ctx = Ctx { conn: connection, line: &line, max_channels: asked.max_channels };
    asked.options.iter().map(|a| check(a, &ctx)).collect()
}

/// What the checks compare against.
struct Ctx<'a> {
    conn: &'a Connection,
    line: &'a MountLine,
    /// The channel count the asked options add up to.
    max_channels: u64,
}

fn check(asked: &Asked, n: &Ctx<'_>) -> OptionCheck {
    let mut c = OptionCheck {
        key: asked.key.clone(),
        asked: asked.written.clone(),
        negotiated: None,
        verdict: Verdict::NotShown,
        note: None,
    };
    match (asked.key.as_str(), asked.value.as_deref()) {
        ("vers", Some(v)) => negotiated::vers(&mut c, v, n),
        ("rdma", None) => negotiated::rdma(&mut c, n),
        ("rsize" | "wsize", Some(v)) => negotiated::io_size(&mut c, v, n),
        ("multichannel" | "nomultichannel", None) | ("max_channels", Some(_)) => negotiated::channels(&mut c, n),
        ("sign", None) => negotiated::sign(&mut c, n),
        ("password", _) => c.note = Some("the kernel never shows the password".into()),
        ("credentials", _) => {
            c.note = Some("mount.cifs reads username, password and domain from this file: those are checked".into());
        }
        ("username", Some(v)) => printed::username(&mut c, v, n),
        ("domain", Some(v)) => printed::domain(&mut c, v, n),
        ("uid" | "gid" | "backupuid" | "backupgid" | "cruid", Some(v)) => printed::id(&mut c, v, n),
        ("file_mode" | "dir_mode", Some(v)) => printed::mode(&mut c, v, n),
        ("addr", Some(v)) => printed::addr(&mut c, v, n),
        ("actimeo" | "acregmax" | "acdirmax", Some(v)) => printed::attr_timeout(&mut c, v, n),
        ("sec", Some(v)) => valued(&mut c, "sec", if v == "nontlm" { "ntlmv2" } else { v }, n),
        (key, Some(v)) => valued(&mut c, key, v, n),
        (word, None) => flag(&mut c, word, n),
    }
    c
}

fn set(c: &mut OptionCheck, negotiated: Option<String>, same: bool) {
    c.negotiated = negotiated;
    c.verdict = if same { Verdict::Same } else { Verdict::Differs };
}

/// Equal as the kernel reads numbers (base 0) when both are numbers, else as text.
fn same_value(a: &str, b: &str) -> bool {
    match (base0(a), base0(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn valued(c: &mut OptionCheck, key: &str, asked: &str, n: &Ctx<'_>) {
    if let Some(got) = n.line.get(key) {
        set(c, Some(got.to_string()), same_value(asked, got));
    } else if let Some((_, default)) = OMITTED_AT_DEFAULT.iter().find(|(k, _)| *k == key) {
        set(c, Some(default.to_string()), same_value(asked, default));
        c.note = Some(format!("the kernel omits {key}={default}"));
    } else if ALWAYS_PRINTED.contains(&key) {
        set(c, None, false);
        c.note = Some(format!("the kernel always prints {key}= but this line has none"));
    } else if PRINTED_WHEN_SET.contains(&key) || (key == "sec" && asked != "none") {
        set(c, None, false);
        c.note = Some(format!("the kernel prints {key}= when it is set, and did not"));
    } else {
        c.note = not_shown_why(key);
    }
}

fn flag(c: &mut OptionCheck, word: &str, n: &Ctx<'_>) {
    if let Some((_, printed, present)) = FLAGS.iter().find(|(w, _, _)| *w == word) {
        let is_present = n.line.has(printed);
        set(c, Some(if is_present { printed.to_string() } else { format!("no {printed}") }), is_present == *present);
    } else if word == "unix" {
        // `posix` for SMB3.1.1 POSIX extensions, `unix` for the CIFS ones, else `nounix`.
        let got = ["posix", "unix", "nounix"].into_iter().find(|w| n.line.has(w));
        set(c, got.map(str::to_string), got.is_some_and(|g| g != "nounix"));
    } else if VFS_FLAGS.contains(&word) {
        let is_present = n.line.has(word);
        set(c, Some(if is_present { word.to_string() } else { format!("no {word}") }), is_present);
    } else if n.line.has(word) {
        set(c, Some(word.to_string()), true);
    } else {
        c.note = not_shown_why(word);
    }
}

fn not_shown_why(key: &str) -> Option<String> {
    let why = NOT_SHOWN_WHY.iter().find(|(k, _)| *k == key).map(|(_, w)| *w);
    Some(why.unwrap_or("not checked").to_string())
}
