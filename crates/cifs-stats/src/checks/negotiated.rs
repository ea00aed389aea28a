//! The rules for what the connection settled with the server: dialect, transport, I/O size, channels,
//! signing.

use mountstats::OptionCheck;

use super::{same_value, set, Ctx};
use crate::optstr::base0;

/// The most channels fs_context.c accepts (fs/smb/client/cifsglob.h CIFS_MAX_CHANNELS).
const MAX_CHANNELS: u64 = 16;

/// What `vers=` asks, as fs/smb/client/fs_context.c `cifs_smb_version_tokens` reads it.
enum Vers {
    /// One dialect, named as [`crate::dialect_name`] names it.
    Exact(&'static str),
    /// `vers=3` (Smb_3any, smb3any_values): SMB 3.0 up to 3.1.1, the server picks.
    Any3,
    /// `vers=default` (Smb_default, smbdefault_values): SMB 2.1 up to 3.1.1, the server picks.
    Default,
}

fn asked_vers(v: &str) -> Option<Vers> {
    Some(match v {
        "1.0" => Vers::Exact("1.0"),
        "2.0" => Vers::Exact("2.0"),
        "2.1" => Vers::Exact("2.1"),
        "3.0" => Vers::Exact("3.0"),
        "3.02" | "3.0.2" => Vers::Exact("3.02"),
        "3.1.1" | "3.11" => Vers::Exact("3.1.1"),
        "3" => Vers::Any3,
        "default" => Vers::Default,
        _ => return None,
    })
}

/// `vers=` against DebugData's `Dialect 0x...` (or, without one, the mount line's `vers=`, which
/// cifs_show_options prints from the negotiated dialect's values).
pub(super) fn vers(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    let got = n.conn.dialect.as_deref().or_else(|| n.line.get("vers"));
    let Some(got) = got else {
        c.note = Some("neither DebugData nor the mount line shows the dialect".into());
        return;
    };
    let is_3x = got.starts_with("3.");
    match asked_vers(asked) {
        Some(Vers::Exact(want)) => {
            set(c, Some(got.to_string()), got == want);
            if got != want {
                c.note = Some(format!("vers={asked} allows only {want}: is this connection the mount's?"));
            }
        }
        Some(Vers::Any3) => {
            set(c, Some(got.to_string()), is_3x);
            c.note = Some(format!("vers=3 lets the server pick SMB 3.0 to 3.1.1: it picked {got}"));
        }
        Some(Vers::Default) => {
            // smbdefault_values offers SMB 2.1 too.
            set(c, Some(got.to_string()), is_3x || got == "2.1");
            c.note = Some(format!("vers=default lets the server pick SMB 2.1 to 3.1.1: it picked {got}"));
        }
        None => {
            set(c, Some(got.to_string()), false);
            c.note = Some(format!("the kernel knows no vers={asked}"));
        }
    }
}

/// `rdma`: Same only when DebugData shows the connection's SMBDirect parameters (cifs_debug.c prints
/// them for `server->rdma` connections with a live `smbd_conn`).
pub(super) fn rdma(c: &mut OptionCheck, n: &Ctx<'_>) {
    match (&n.conn.smbd, n.conn.rdma) {
        (Some(smbd), _) => set(c, Some(format!("SMB Direct (protocol {:#x})", smbd.protocol_version)), true),
        (None, true) => {
            set(c, Some("SMB Direct, transport not available".into()), false);
            c.note = Some("the SMB Direct transport is down (DebugData: SMBDirect transport not available)".into());
        }
        (None, false) => {
            set(c, Some("tcp".into()), false);
            c.note = Some("the mount is on TCP".into());
        }
    }
}

/// `rsize=`/`wsize=` against the mount line, which prints the size in use: the asked one capped at the
/// server's MaxReadSize/MaxWriteSize and, over SMB Direct, at max_readwrite_size (unsigned) or
/// max_fragmented_recv/send_size less the headers (signed) (fs/smb/client/smb2ops.c
/// `smb3_negotiate_rsize`/`smb3_negotiate_wsize`).
pub(super) fn io_size(c: &mut OptionCheck, asked: &str, n: &Ctx<'_>) {
    let key = c.key.clone();
    let Some(got) = n.line.get(&key) else {
        set(c, None, false);
        c.note = Some(format!("the kernel always prints {key}= but this line has none"));
        return;
    };
    set(c, Some(got.to_string()), same_value(asked, got));
    let (Some(a), Some(g)) = (base0(asked), base0(got)) else { return };
    if a == g {
        return;
    }
    let cap = n.conn.smbd.as_ref().map(|s| u64::from(s.max_readwrite_size));
    c.note = Some(if a == 0 {
        format!("{key}=0 asks for the default: the kernel chose {g}")
    } else if g < a && cap == Some(g) {
        format!("SMB Direct caps {key} at max_readwrite_size ({g}): lowered from {a}")
    } else if g < a && n.conn.rdma {
        format!("lowered from {a} to {g}: the server's maximum or SMB Direct's fragment size")
    } else if g < a {
        format!("lowered from {a} to {g}: the server's maximum I/O size")
    } else {
        format!("the kernel set {g}, not {a}")
    });
}

/// `multichannel`, `nomultichannel` and `max_channels=N` against the channels DebugData counts (1 +
/// `Extra Channels`). They add up, in order, to one count (fs_context.c: `multichannel` means at
/// least 2, `max_channels=N` N); every such option is checked against it. The mount line shows
/// `multichannel,max_channels=N` from the session's chan_max, which is what was asked, not what came up.
pub(super) fn channels(c: &mut OptionCheck, n: &Ctx<'_>) {
    let want = n.max_channels;
    let got = u64::from(n.conn.channels);
    let noun = if got == 1 { "channel" } else { "channels" };
    let negotiated = match n.line.get("max_channels") {
        Some(m) => format!("{got} {noun} (mount line: max_channels={m})"),
        None => format!("{got} {noun}"),
    };
    set(c, Some(negotiated), got == want);
    if !(1..=MAX_CHANNELS).contains(&want) {
        c.note = Some(format!("the kernel takes max_channels from 1 to {MAX_CHANNELS}"));
    } else if got < want && !n.conn.dialect.as_deref().unwrap_or("3.").starts_with("3.") {
        c.note = Some(format!("only {got} of {want} channels: multichannel needs SMB 3.0 or later"));
    } else if got < want {
        c.note = Some(format!(
            "only {got} of {want} channels came up: the server opened no more (it offered no further usable \
             interface, or binding one failed: see dmesg)"
        ));
    }
}

/// `sign`: cifs_show_options shows signing only as the `i` of `sec=ntlmsspi` (`cifs_show_security`,
/// which prints nothing when no sec= was asked).
pub(super) fn sign(c: &mut OptionCheck, n: &Ctx<'_>) {
    match n.line.get("sec") {
        Some(sec) => set(c, Some(format!("sec={sec}")), sec.ends_with('i')),
        None => c.note = Some("signing shows only as sec=...i, and this mount line has no sec=".into()),
    }
}
