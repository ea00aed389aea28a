//! The current and saved file handles (RFC 8881 §16.2.3.1.1): PUTFH (§18.19), PUTROOTFH (§18.21),
//! PUTPUBFH (§18.20, the same root: this server has no separate public file handle), GETFH (§18.8),
//! SAVEFH (§18.28) and RESTOREFH (§18.27), which save and restore the current stateid with the handle
//! (§16.2.3.1.2).

use nfs4_proto::{GetfhResOk, Nfs4Result, NfsErr4, NfsResOp, OpNum4, PutfhArgs, Void};

use crate::v4::context::Cx;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

pub(crate) fn putfh(cx: &mut Cx<'_>, args: &PutfhArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let fh = Fh::decode(cx.server, &args.object)?;
    if let Fh::File { export, file } = fh {
        // The export's access rules hold for every use of its handles.
        cx.obj(export, file)?;
    }
    cx.set_current(fh);
    out.put_ok(OpNum4::Putfh);
    Ok(())
}

pub(crate) fn putrootfh(cx: &mut Cx<'_>, out: &mut Results, public: bool) -> Result<(), NfsErr4> {
    cx.set_current(Fh::of_child(cx.server, cx.svc.pseudo.root()));
    out.put(&if public { NfsResOp::Putpubfh(Nfs4Result::Ok(Void)) } else { NfsResOp::Putrootfh(Nfs4Result::Ok(Void)) });
    Ok(())
}

pub(crate) fn getfh(cx: &mut Cx<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let object = cx.current()?.encode(cx.server);
    out.put(&NfsResOp::Getfh(Nfs4Result::Ok(GetfhResOk { object })));
    Ok(())
}

pub(crate) fn savefh(cx: &mut Cx<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    cx.saved = Some(cx.current()?);
    cx.saved_stateid = cx.current_stateid;
    out.put_ok(OpNum4::Savefh);
    Ok(())
}

pub(crate) fn restorefh(cx: &mut Cx<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    // RFC 8881 §18.27.3: no saved file handle → NFS4ERR_RESTOREFH.
    cx.current = Some(cx.saved.ok_or(NfsErr4::RestoreFh)?);
    cx.current_stateid = cx.saved_stateid;
    out.put_ok(OpNum4::Restorefh);
    Ok(())
}
