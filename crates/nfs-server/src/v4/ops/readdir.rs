//! READDIR (RFC 8881 §18.23): a page of entries with the attributes asked for each, of an export's
//! directory or of a pseudo directory.
//!
//! - Cookies: 0 starts; 1 and 2 are reserved (BAD_COOKIE, as knfsd) — NFSv4 lists no "." or "..". An
//!   export directory's entry with backend cookie `c` is `c + 2` on the wire (backend cookies are
//!   nonzero), a pseudo directory's `i`-th entry is `i + 3`. A cookie verifier other than zero or the
//!   directory's current one is NOT_SAME (§18.23.3).
//! - Size: `maxcount` bounds READDIR4resok, as does the room left in the session's ca_maxresponsesize;
//!   `dircount` bounds the names and cookies once an entry is in. Entries are added while their exact
//!   encoded size fits; none fitting is TOOSMALL.
//! - An entry whose attributes cannot be read gets `rdattr_error` alone when it was asked for
//!   (§5.8.1.12); otherwise the READDIR fails with that error.

use nfs3_proto::Fattr3;
use nfs4_proto::{
    Bitmap4, Component4, DirList4, Entry4, Nfs4Result, NfsErr4, NfsResOp, RawFattr4, ReaddirArgs, ReaddirResOk,
    Verifier4,
};

use crate::access::{permits, MAY_READ};
use crate::v4::attrs::{self, rdattr_error};
use crate::v4::context::{require_dir, Cx};
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

/// READDIR4resok around the entries: the verifier, the list's final FALSE and eof.
const RESOK_FIXED: usize = 8 + 4 + 4;
/// Wire cookies below this are not entries.
const FIRST_COOKIE: u64 = 3;
/// Backend cookies are shifted by this on the wire.
const COOKIE_BIAS: u64 = 2;

/// One listed entry before encoding.
struct Listed {
    name: Vec<u8>,
    cookie: u64,
}

/// The page being filled, against its byte budgets.
struct Page {
    entries: Vec<(Vec<u8>, u64, RawFattr4<'static>)>,
    left: usize,
    dir_left: usize,
}

impl Page {
    /// Adds `entry` with attributes `attrs` if it fits; false when the page is full.
    fn add(&mut self, entry: Listed, attrs: RawFattr4<'static>) -> bool {
        let name_len = 4 + entry.name.len() + xdr::padding(entry.name.len());
        let attr_len =
            4 + 4 * attrs.attrmask.words().len() + 4 + attrs.attr_vals.len() + xdr::padding(attrs.attr_vals.len());
        let size = 4 + 8 + name_len + attr_len;
        let dir_size = 8 + name_len;
        let first = self.entries.is_empty();
        if size > self.left || (!first && dir_size > self.dir_left) {
            return false;
        }
        self.left -= size;
        self.dir_left = self.dir_left.saturating_sub(dir_size);
        self.entries.push((entry.name, entry.cookie, attrs));
        true
    }
}

pub(crate) fn run(cx: &mut Cx<'_>, args: &ReaddirArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let fh = cx.current()?;
    if args.cookie == 1 || args.cookie == 2 {
        return Err(NfsErr4::BadCookie);
    }
    let verifier = match fh {
        Fh::Pseudo(_) => Verifier4::default(),
        Fh::File { export, file } => {
            let dir = cx.obj(export, file)?;
            let attrs = dir.getattr().map_err(from_v3)?;
            require_dir(&attrs)?;
            if !permits(&attrs, &dir.cred, MAY_READ) {
                return Err(NfsErr4::Access);
            }
            Verifier4(dir.backend().cookie_verifier(file).map_err(from_v3)?.to_be_bytes())
        }
    };
    if let Fh::Pseudo(_) = fh {
        require_dir(&cx.current_attrs()?)?;
    }
    // RFC 8881 §18.23.3: a verifier that no longer matches means the cookies are invalid.
    if args.cookie != 0 && args.cookieverf != Verifier4::default() && args.cookieverf != verifier {
        return Err(NfsErr4::NotSame);
    }
    let budget = (args.maxcount as usize).min(cx.room);
    let left = budget.checked_sub(RESOK_FIXED).ok_or(NfsErr4::TooSmall)?;
    let dir_left = if args.dircount == 0 { usize::MAX } else { args.dircount as usize };
    let mut page = Page { entries: Vec::new(), left, dir_left };
    let eof = match fh {
        Fh::Pseudo(node) => fill_pseudo(cx, node, args, &mut page)?,
        Fh::File { export, file } => fill_export(cx, export, file, args, &mut page)?,
    };
    if page.entries.is_empty() && !eof {
        return Err(NfsErr4::TooSmall);
    }
    let entries = page
        .entries
        .iter()
        .map(|(name, cookie, attrs)| Entry4 { cookie: *cookie, name: Component4(name), attrs: attrs.clone() })
        .collect();
    out.put(&NfsResOp::Readdir(Nfs4Result::Ok(ReaddirResOk {
        cookieverf: verifier,
        reply: DirList4 { entries, eof },
    })));
    Ok(())
}

/// The attributes of one entry, or its `rdattr_error`.
fn entry_attrs(cx: &Cx<'_>, fh: Fh, requested: &Bitmap4) -> Result<RawFattr4<'static>, NfsErr4> {
    let read = |fh: Fh| -> Result<Fattr3, NfsErr4> {
        match fh {
            Fh::Pseudo(node) => Ok(cx.svc.pseudo.attrs(node)),
            Fh::File { export, file } => cx.obj(export, file)?.getattr().map_err(from_v3),
        }
    };
    match read(fh).and_then(|a| attrs::encode(cx, fh, &a, requested)) {
        Ok(raw) => Ok(raw),
        Err(e) => rdattr_error(requested, e).ok_or(e),
    }
}

/// Fills `page` from pseudo node `node`; true at the end of the listing.
fn fill_pseudo(cx: &Cx<'_>, node: usize, args: &ReaddirArgs, page: &mut Page) -> Result<bool, NfsErr4> {
    let skip = args.cookie.saturating_sub(COOKIE_BIAS) as usize;
    let children: Vec<(Vec<u8>, crate::v4::pseudo::Child)> = cx
        .svc
        .pseudo
        .entries(node, &cx.server.exports, cx.conn.peer)
        .map(|(name, child)| (name.to_vec(), child))
        .collect();
    for (i, (name, child)) in children.into_iter().enumerate().skip(skip) {
        let fh = Fh::of_child(cx.server, child);
        let attrs = entry_attrs(cx, fh, &args.attr_request)?;
        if !page.add(Listed { name, cookie: i as u64 + FIRST_COOKIE }, attrs) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Fills `page` from directory `dir` of export `export`; true at the end of the listing.
fn fill_export(
    cx: &Cx<'_>,
    export: u16,
    dir: crate::backend::FileId,
    args: &ReaddirArgs,
    page: &mut Page,
) -> Result<bool, NfsErr4> {
    let obj = cx.obj(export, dir)?;
    let mut resume = args.cookie.saturating_sub(COOKIE_BIAS);
    loop {
        let listing = obj.backend().readdir(dir, resume, 64).map_err(from_v3)?;
        let got = listing.entries.len();
        for e in listing.entries {
            let cookie = e.cookie.checked_add(COOKIE_BIAS).ok_or(NfsErr4::ServerFault)?;
            let fh = Fh::File { export, file: e.file };
            let attrs = entry_attrs(cx, fh, &args.attr_request)?;
            if !page.add(Listed { name: e.name, cookie }, attrs) {
                return Ok(false);
            }
            resume = e.cookie;
        }
        if listing.eof {
            return Ok(true);
        }
        if got == 0 {
            // A backend that neither advances nor ends: stop rather than spin.
            return if page.entries.is_empty() { Err(NfsErr4::ServerFault) } else { Ok(false) };
        }
    }
}
