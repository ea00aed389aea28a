//! READ (RFC 1813 §3.3.6), the hot path: one handle check, attributes before (permission) and after
//! (post_op_attr), and what the backend serves becomes the reply's payload as it is: slices of the
//! `mem:` backend's pages (no copy at all), or the buffer the `dir:` backend read into (never copied
//! again).

use nfs3_proto::{Fattr3, NfsErr3, NfsStat3, ReadArgs, ReadRes, ReadResFail};
use xdr::XdrEncode;

use super::call::{require_regular, Call};
use crate::access::may_read_data;
use crate::rpc::success_writer;
use crate::{Reply, Served};

/// post_op_attr (4 + 84) + count + eof + data length.
const READ_RESULT_INLINE: usize = 4 + 88 + 12;

pub(crate) fn run(cx: &Call<'_>, args: &ReadArgs) -> Reply {
    match read(cx, args) {
        Ok((attrs, eof, data)) => encode_ok(cx, attrs, eof, data),
        Err((e, file_attributes)) => cx.reply(&ReadRes::Fail(e, ReadResFail { file_attributes })),
    }
}

type ReadFail = (NfsErr3, Option<Fattr3>);

fn read(cx: &Call<'_>, args: &ReadArgs) -> Result<(Option<Fattr3>, bool, Served), ReadFail> {
    let obj = cx.resolve(&args.file).map_err(|e| (e, None))?;
    let attrs = obj.getattr().map_err(|e| (e, None))?;
    require_regular(&attrs).map_err(|e| (e, Some(attrs)))?;
    if !may_read_data(&attrs, &obj.cred) {
        return Err((NfsErr3::Acces, Some(attrs)));
    }
    // RFC 1813 §3.3.6: the server may return fewer bytes than asked; never more than rtmax.
    let count = args.count.min(cx.max_io());
    let (mut served, eof) = obj.backend().read(obj.file, args.offset, count).map_err(|e| (e, obj.post_op()))?;
    served.data.truncate(count as usize);
    served.copied = served.copied.min(served.data.len());
    Ok((obj.post_op(), eof, served))
}

/// READ3resok by hand: the data is the reply's one payload, spliced in after its length word.
fn encode_ok(cx: &Call<'_>, attrs: Option<Fattr3>, eof: bool, served: Served) -> Reply {
    let len = served.data.len() as u32;
    cx.set_status(NfsStat3::Ok.as_u32());
    let mut w = success_writer(cx.xid, READ_RESULT_INLINE);
    w.put_u32(NfsStat3::Ok.as_u32());
    attrs.encode(&mut w);
    w.put_u32(len);
    w.put_bool(eof);
    w.put_u32(len);
    let inline = w.into_vec();
    let at = inline.len();
    let mut reply = Reply::from_inline(inline);
    reply.push_served(at, served);
    reply
}
