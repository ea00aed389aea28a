//! READ (RFC 1813 §3.3.6), the hot path: one handle check, attributes before (permission) and after
//! (post_op_attr), and the backend reads straight into the buffer that becomes the reply's payload, so
//! the data is never copied again.

use nfs3_proto::{Fattr3, NfsErr3, NfsStat3, ReadArgs, ReadRes, ReadResFail};
use xdr::XdrEncode;

use super::call::{require_regular, Call};
use crate::access::may_read_data;
use crate::rpc::success_writer;
use crate::Reply;

/// post_op_attr (4 + 84) + count + eof + data length.
const READ_RESULT_INLINE: usize = 4 + 88 + 12;

pub(crate) fn run(cx: &Call<'_>, args: &ReadArgs) -> Reply {
    match read(cx, args) {
        Ok((attrs, eof, data)) => encode_ok(cx, attrs, eof, data),
        Err((e, file_attributes)) => cx.reply(&ReadRes::Fail(e, ReadResFail { file_attributes })),
    }
}

type ReadFail = (NfsErr3, Option<Fattr3>);

fn read(cx: &Call<'_>, args: &ReadArgs) -> Result<(Option<Fattr3>, bool, Vec<u8>), ReadFail> {
    let obj = cx.resolve(&args.file).map_err(|e| (e, None))?;
    let attrs = obj.getattr().map_err(|e| (e, None))?;
    require_regular(&attrs).map_err(|e| (e, Some(attrs)))?;
    if !may_read_data(&attrs, &obj.cred) {
        return Err((NfsErr3::Acces, Some(attrs)));
    }
    // RFC 1813 §3.3.6: the server may return fewer bytes than asked; never more than rtmax.
    let count = args.count.min(cx.max_io());
    // Sized for what the file holds, so the backend's fill needs one allocation and no regrowth.
    let expected = attrs.size.saturating_sub(args.offset).min(u64::from(count));
    let mut data = Vec::with_capacity(expected as usize);
    let eof = obj.backend().read(obj.file, args.offset, count, &mut data).map_err(|e| (e, obj.post_op()))?;
    data.truncate(count as usize);
    Ok((obj.post_op(), eof, data))
}

/// READ3resok by hand: the data is the reply's one payload, spliced in after its length word.
fn encode_ok(cx: &Call<'_>, attrs: Option<Fattr3>, eof: bool, data: Vec<u8>) -> Reply {
    cx.set_status(NfsStat3::Ok.as_u32());
    let mut w = success_writer(cx.xid, READ_RESULT_INLINE);
    w.put_u32(NfsStat3::Ok.as_u32());
    attrs.encode(&mut w);
    w.put_u32(data.len() as u32);
    w.put_bool(eof);
    w.put_u32(data.len() as u32);
    let inline = w.into_vec();
    let at = inline.len();
    Reply::with_payload(inline, at, data)
}
