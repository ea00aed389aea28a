//! What READDIR (RFC 1813 §3.3.16) and READDIRPLUS (§3.3.17) share: opening the directory (type, read
//! permission, cookie verifier), the cookie space, and walking entries against a byte budget computed
//! from the exact XDR sizes.
//!
//! Cookies: "." is 1, ".." is 2, and a backend entry with cookie `c` is `c + 2` on the wire, so the
//! client's cookie always says where to resume (0: from the start; backend cookies are nonzero and
//! below `u64::MAX - 1`).

use nfs3_proto::{CookieVerf3, Fattr3, FileHandle3, NfsErr3, PostOpAttr};

use super::call::{require_dir, Call, Obj};
use crate::access::{permits, MAY_READ};
use crate::backend::FileId;
use crate::handle::HANDLE_LEN;

pub(crate) const DOT_COOKIE: u64 = 1;
pub(crate) const DOTDOT_COOKIE: u64 = 2;
const COOKIE_BIAS: u64 = 2;

/// The fixed part of READDIR3resok and READDIRPLUS3resok: post_op_attr with attributes (4 + 84),
/// cookieverf (8), the list's final FALSE (4) and eof (4).
pub(crate) const RESOK_FIXED: usize = 4 + 84 + 8 + 4 + 4;

/// Bytes of one `entry3` with the TRUE that links it in: fileid, name (length, bytes, padding), cookie.
pub(crate) fn entry3_size(name_len: usize) -> usize {
    4 + 8 + 4 + name_len + xdr::padding(name_len) + 8
}

/// Bytes of one `entryplus3` with attributes and one of our handles.
pub(crate) fn entryplus3_size(name_len: usize) -> usize {
    entry3_size(name_len) + (4 + 84) + (4 + 4 + HANDLE_LEN)
}

/// A directory opened for listing.
pub(crate) struct OpenDir<'s> {
    pub dir: Obj<'s>,
    pub attrs: Fattr3,
    pub verifier: CookieVerf3,
}

/// One listed entry, with the cookie the client sees.
pub(crate) struct Listed {
    pub name: Vec<u8>,
    pub file: FileId,
    pub cookie: u64,
}

pub(crate) struct Listing {
    pub entries: Vec<Listed>,
    pub eof: bool,
}

/// Resolves and checks a directory to list: NOTDIR, ACCES without read permission, and BAD_COOKIE when
/// the client resumes (cookie ≠ 0) with a verifier that is neither zero nor the current one.
pub(crate) fn open<'s>(
    cx: &Call<'s>,
    fh: &FileHandle3,
    cookie: u64,
    cookieverf: CookieVerf3,
) -> Result<OpenDir<'s>, (NfsErr3, PostOpAttr)> {
    let dir = cx.resolve(fh).map_err(|e| (e, None))?;
    let attrs = dir.getattr().map_err(|e| (e, None))?;
    let fail = |e| (e, Some(attrs));
    require_dir(&attrs).map_err(fail)?;
    if !permits(&attrs, &dir.cred, MAY_READ) {
        return Err(fail(NfsErr3::Acces));
    }
    let verifier = CookieVerf3(dir.backend().cookie_verifier(dir.file).map_err(fail)?.to_be_bytes());
    // RFC 1813 §3.3.16: a verifier that no longer matches means the cookies are invalid.
    if cookie != 0 && cookieverf != CookieVerf3::default() && cookieverf != verifier {
        return Err(fail(NfsErr3::BadCookie));
    }
    Ok(OpenDir { dir, attrs, verifier })
}

/// Lists entries after `cookie`, as long as `take(name_len)` accepts them; `batch` is how many entries
/// to ask the backend for at a time.
pub(crate) fn list(
    open: &OpenDir<'_>,
    cookie: u64,
    batch: usize,
    mut take: impl FnMut(usize) -> bool,
) -> Result<Listing, NfsErr3> {
    let dir = &open.dir;
    let mut entries = Vec::new();
    let partial = |entries| Ok(Listing { entries, eof: false });
    if cookie == 0 {
        if !take(1) {
            return partial(entries);
        }
        entries.push(Listed { name: b".".to_vec(), file: dir.file, cookie: DOT_COOKIE });
    }
    if cookie <= DOT_COOKIE {
        let parent = dir.parent_of(dir.file)?;
        if !take(2) {
            return partial(entries);
        }
        entries.push(Listed { name: b"..".to_vec(), file: parent, cookie: DOTDOT_COOKIE });
    }
    let mut resume = cookie.saturating_sub(COOKIE_BIAS);
    loop {
        let page = dir.backend().readdir(dir.file, resume, batch.max(1))?;
        let got = page.entries.len();
        for e in page.entries {
            let wire_cookie = e.cookie.checked_add(COOKIE_BIAS).ok_or(NfsErr3::ServerFault)?;
            if !take(e.name.len()) {
                return partial(entries);
            }
            resume = e.cookie;
            entries.push(Listed { name: e.name, file: e.file, cookie: wire_cookie });
        }
        if page.eof {
            return Ok(Listing { entries, eof: true });
        }
        if got == 0 {
            // A backend that neither advances nor ends: stop rather than spin.
            return if entries.is_empty() { Err(NfsErr3::ServerFault) } else { partial(entries) };
        }
    }
}

/// How many entries to ask the backend for, for a budget of `bytes` and entries of at least `min` bytes.
pub(crate) fn batch_for(bytes: usize, min: usize) -> usize {
    (bytes / min.max(1)).clamp(8, 1024)
}
