//! The rules for options the mount line prints in a form of its own: credentials, ids, modes, the
//! server address, attribute timeouts (fs/smb/client/cifsfs.c `cifs_show_options`).

use std::net::IpAddr;

use mountstats::OptionCheck;

use super::{same_value, set, Ctx};
use crate::optstr::base0;

/// `username=`: printed unless the mount is multiuser. mount.cifs moves a `DOMAIN/user` or
/// `DOMAIN\user` domain into `domain=` (mount.cifs(8)), so the user part is compared.
pub(super) fn username(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    if n.line.has("multiuser") {
        c.note = Some("a multiuser mount prints no username=".into());
        return;
    }
    let user = asked.rsplit(['/', '\\']).next().unwrap_or(asked);
    match n.line.get("username") {
        Some(got) => set(c, Some(got.to_string()), got == user),
        None => {
            set(c, None, user.is_empty());
            c.note = Some("the kernel prints username= for the session's user, and did not".into());
        }
    }
}

/// `domain=`: printed when the session has a non-empty domain; Windows domains ignore case.
pub(super) fn domain(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    match n.line.get("domain") {
        Some(got) => set(c, Some(got.to_string()), got.eq_ignore_ascii_case(asked)),
        None => {
            set(c, None, asked.is_empty());
            c.note = Some("the kernel prints domain= when the session has one".into());
        }
    }
}

/// `uid=`, `gid=` (always printed), `backupuid=`/`backupgid=` (printed when given) and `cruid=`
/// (printed with sec=krb5): numbers; mount.cifs turns a user or group name into its id first.
pub(super) fn id(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    let key = c.key.clone();
    let got = n.line.get(&key);
    if base0(asked).is_none() {
        c.negotiated = got.map(str::to_string);
        c.note = Some(format!("mount.cifs turns the name {asked:?} into an id before the kernel sees it"));
        return;
    }
    match got {
        Some(got) => set(c, Some(got.to_string()), same_value(asked, got)),
        None => {
            set(c, None, false);
            c.note = Some(match key.as_str() {
                "uid" | "gid" => format!("the kernel always prints {key}= but this line has none"),
                "cruid" => "the kernel prints cruid= only with sec=krb5".into(),
                _ => format!("the kernel prints {key}= when it is set, and did not"),
            });
        }
    }
}

/// `file_mode=`/`dir_mode=`: printed as `0%ho` when the share has no Unix/POSIX extensions. The
/// kernel reads the asked value with base 0, so `755` without the leading 0 is decimal.
pub(super) fn mode(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    let key = c.key.clone();
    let Some(got) = n.line.get(&key) else {
        c.note = Some(format!("the kernel prints {key}= only without Unix/POSIX extensions"));
        return;
    };
    let same = same_value(asked, got);
    set(c, Some(got.to_string()), same);
    let octal_meant = u64::from_str_radix(asked, 8).ok();
    if !same && !asked.starts_with('0') && octal_meant.is_some() && octal_meant == base0(got) {
        c.note = Some(format!("the kernel reads {key}={asked} as decimal: write 0{asked}"));
    }
}

/// `addr=` (`ip=`): printed as `%pI4` or the full `%pI6` (with `%scope`): compared as addresses.
pub(super) fn addr(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    let Some(got) = n.line.get("addr") else {
        set(c, None, false);
        c.note = Some("the kernel always prints addr= but this line has none".into());
        return;
    };
    let ip = |s: &str| s.split('%').next().and_then(|a| a.trim_matches(['[', ']']).parse::<IpAddr>().ok());
    let same = match (ip(asked), ip(got)) {
        (Some(a), Some(g)) => a == g,
        _ => asked == got,
    };
    set(c, Some(got.to_string()), same);
}

/// `actimeo=`, `acregmax=`, `acdirmax=`: the kernel prints `actimeo=` when acregmax equals acdirmax,
/// else both (cifs_show_options), all in seconds.
pub(super) fn attr_timeout(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    let key = c.key.clone();
    let actimeo = n.line.get("actimeo");
    let shown = |k: &str| n.line.get(k).map(|v| format!("{k}={v}"));
    if key != "actimeo" {
        if let Some(got) = n.line.get(&key) {
            set(c, Some(got.to_string()), same_value(asked, got));
        } else if let Some(got) = actimeo {
            set(c, Some(format!("actimeo={got}")), same_value(asked, got));
            c.note = Some("printed as actimeo= (acregmax equals acdirmax)".into());
        } else {
            set(c, None, false);
            c.note = Some(format!("the kernel always prints actimeo= or {key}= but this line has neither"));
        }
        return;
    }
    if let Some(got) = actimeo {
        set(c, Some(got.to_string()), same_value(asked, got));
        return;
    }
    let (reg, dir) = (n.line.get("acregmax"), n.line.get("acdirmax"));
    let both = [shown("acregmax"), shown("acdirmax")].into_iter().flatten().collect::<Vec<_>>().join(",");
    let same = reg.is_some_and(|r| same_value(asked, r)) && dir.is_some_and(|d| same_value(asked, d));
    set(c, (!both.is_empty()).then_some(both), same);
    c.note = Some("acregmax and acdirmax differ: actimeo was overridden or ignored".into());
}
