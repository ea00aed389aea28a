//! READDIR (RFC 1813 §3.3.16): names and file ids. `count` bounds the whole READDIR3resok; entries are
//! added while their exact encoded size fits, and TOOSMALL answers a count that fits none.

use nfs3_proto::{DirList3, Entry3, NfsErr3, PostOpAttr, ReaddirArgs, ReaddirRes, ReaddirResFail, ReaddirResOk};

use super::call::Call;
use super::dirlist::{batch_for, entry3_size, list, open, Listing, OpenDir, RESOK_FIXED};
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &ReaddirArgs) -> Reply {
    match readdir(cx, args) {
        Ok((open, listing)) => {
            let entries =
                listing.entries.iter().map(|e| Entry3 { fileid: e.file.id, name: &e.name, cookie: e.cookie }).collect();
            let res = ReaddirRes::Ok(ReaddirResOk {
                dir_attributes: Some(open.attrs),
                cookieverf: open.verifier,
                reply: DirList3 { entries, eof: listing.eof },
            });
            cx.reply_sized(&res, args.count.min(cx.max_io()) as usize)
        }
        Err((e, dir_attributes)) => cx.reply(&ReaddirRes::Fail(e, ReaddirResFail { dir_attributes })),
    }
}

fn readdir<'s>(cx: &Call<'s>, args: &ReaddirArgs) -> Result<(OpenDir<'s>, Listing), (NfsErr3, PostOpAttr)> {
    let open = open(cx, &args.dir, args.cookie, args.cookieverf)?;
    let fail = |e| (e, Some(open.attrs));
    let count = args.count.min(cx.max_io()) as usize;
    let mut left = count.checked_sub(RESOK_FIXED).ok_or_else(|| fail(NfsErr3::TooSmall))?;
    let batch = batch_for(left, entry3_size(8));
    let take = |name_len| {
        let size = entry3_size(name_len);
        let fits = size <= left;
        if fits {
            left -= size;
        }
        fits
    };
    let listing = list(&open, args.cookie, batch, take).map_err(fail)?;
    if listing.entries.is_empty() && !listing.eof {
        return Err(fail(NfsErr3::TooSmall));
    }
    Ok((open, listing))
}
