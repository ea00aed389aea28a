//! READDIRPLUS (RFC 1813 §3.3.17): entries with attributes and handles. `maxcount` bounds the whole
//! READDIRPLUS3resok; `dircount` bounds the entry3 part (fileid, name, cookie) but never keeps out the
//! first entry. An entry that vanishes while listed goes out without attributes and handle.

use nfs3_proto::{
    DirListPlus3, EntryPlus3, NfsErr3, PostOpAttr, ReaddirplusArgs, ReaddirplusRes, ReaddirplusResFail,
    ReaddirplusResOk,
};

use super::call::Call;
use super::dirlist::{batch_for, entry3_size, entryplus3_size, list, open, Listing, OpenDir, RESOK_FIXED};
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &ReaddirplusArgs) -> Reply {
    match readdirplus(cx, args) {
        Ok((open, listing)) => {
            let entries = listing
                .entries
                .iter()
                .map(|e| {
                    let attrs = open.dir.with_file(e.file).post_op();
                    EntryPlus3 {
                        fileid: attrs.map_or(e.file.id, |a| a.fileid),
                        name: &e.name,
                        cookie: e.cookie,
                        name_attributes: attrs,
                        name_handle: attrs.map(|_| cx.handle_of(open.dir.export, e.file)),
                    }
                })
                .collect();
            let res = ReaddirplusRes::Ok(ReaddirplusResOk {
                dir_attributes: Some(open.attrs),
                cookieverf: open.verifier,
                reply: DirListPlus3 { entries, eof: listing.eof },
            });
            cx.reply_sized(&res, args.maxcount.min(cx.max_io()) as usize)
        }
        Err((e, dir_attributes)) => cx.reply(&ReaddirplusRes::Fail(e, ReaddirplusResFail { dir_attributes })),
    }
}

fn readdirplus<'s>(cx: &Call<'s>, args: &ReaddirplusArgs) -> Result<(OpenDir<'s>, Listing), (NfsErr3, PostOpAttr)> {
    let open = open(cx, &args.dir, args.cookie, args.cookieverf)?;
    let fail = |e| (e, Some(open.attrs));
    let maxcount = args.maxcount.min(cx.max_io()) as usize;
    let mut left = maxcount.checked_sub(RESOK_FIXED).ok_or_else(|| fail(NfsErr3::TooSmall))?;
    let mut dir_left = args.dircount as usize;
    let mut first = true;
    let batch = batch_for(left, entryplus3_size(8));
    let take = |name_len| {
        let (size, dir_size) = (entryplus3_size(name_len), entry3_size(name_len));
        if size > left || (dir_size > dir_left && !first) {
            return false;
        }
        left -= size;
        dir_left = dir_left.saturating_sub(dir_size);
        first = false;
        true
    };
    let listing = list(&open, args.cookie, batch, take).map_err(fail)?;
    if listing.entries.is_empty() && !listing.eof {
        return Err(fail(NfsErr3::TooSmall));
    }
    Ok((open, listing))
}
