//! OPEN (RFC 8881 §18.16): the file-system part here (look up or create the file, check it is a regular
//! file the caller may open as asked), then the open stateid and the share reservation from the state
//! machine. The opened file becomes the current file handle and its stateid the current stateid.
//!
//! - Claims: CLAIM_NULL (a name in the current directory), CLAIM_FH (the current file: the Linux 4.1 client
//!   opens by handle), CLAIM_PREVIOUS (reclaim after a restart, during grace). CLAIM_DELEGATE_CUR and
//!   CLAIM_DELEG_CUR_FH name a delegation stateid, and no delegation is ever granted here: BAD_STATEID;
//!   CLAIM_DELEGATE_PREV and CLAIM_DELEG_PREV_FH are NOTSUPP (as knfsd).
//! - Creation only with CLAIM_NULL (INVAL otherwise, as knfsd). UNCHECKED4 reuses an existing regular file
//!   (truncating it when the size attribute is 0 or given), GUARDED4 fails with EXIST, EXCLUSIVE4 and
//!   EXCLUSIVE4_1 keep the verifier where the backend keeps NFSv3's (the `dir:` backend in the times, as
//!   knfsd): `attrset` then names time_access and time_modify so the client sets the real times after
//!   (§18.16.4), and EXCLUSIVE4_1's attributes must be in `suppattr_exclcreat` (INVAL otherwise).
//! - A new OPEN during the grace period is refused with GRACE before anything is created.
//! - No delegation: OPEN_DELEGATE_NONE, or NONE_EXT with the reason when the client stated a want
//!   (WND4_NOT_WANTED, WND4_CANCELLED, or WND4_NOT_SUPP_FTYPE for a wish that is never granted here).

use nfs3_proto::{CreateVerf3, Fattr3, Ftype3, NfsErr3, Sattr3};
use nfs4_proto::attr::{FATTR4_SIZE, FATTR4_TIME_ACCESS, FATTR4_TIME_MODIFY};
use nfs4_proto::*;

use super::names;
use crate::access::{may_modify_dir, may_read_data, may_write_data, permits, MAY_EXEC};
use crate::backend::{CreateMode, FileId, NewNode};
use crate::dispatch::call::Obj;
use crate::dispatch::dirop::DirChange;
use crate::v4::attrs::{change, decode_settable, exclcreat};
use crate::v4::context::{require_dir, require_regular, wire_stateid, Cx};
use crate::v4::errors::{from_state, from_v3};
use crate::v4::fh::Fh;
use crate::v4::results::Results;
use crate::v4::state::{self, FileKey, OpenClaim};

/// Mode of a file created without one.
const DEFAULT_FILE_MODE: u32 = 0o644;
/// RFC 8881 §18.16.1: the bits of `share_access` besides the access itself.
const WANT_MASK: u32 = OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
const WANT_FLAGS: u32 =
    OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL | OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED;

/// The file OPEN settled on.
struct Opened {
    file: Fh,
    cinfo: ChangeInfo4,
    attrset: Bitmap4,
}

pub(crate) fn run(cx: &mut Cx<'_>, args: &OpenArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let access = args.share_access & !(WANT_MASK | WANT_FLAGS);
    let want = args.share_access & WANT_MASK;
    if want > OPEN4_SHARE_ACCESS_WANT_CANCEL {
        return Err(NfsErr4::Inval);
    }
    let creating = matches!(args.openhow, OpenFlag4::Create(_));
    // RFC 8881 §18.16.3 (knfsd): only CLAIM_NULL creates.
    if creating && !matches!(args.claim, OpenClaim4::Null(_)) {
        return Err(NfsErr4::Inval);
    }
    let client = cx.clientid()?;
    let reclaim = matches!(args.claim, OpenClaim4::Previous(_));
    // RFC 8881 §8.4.2: no new state while clients reclaim; said before anything is created.
    if !reclaim && cx.state().in_grace(cx.now) {
        return Err(NfsErr4::Grace);
    }
    let opened = match &args.claim {
        OpenClaim4::Null(name) => by_name(cx, name.as_bytes(), &args.openhow, access, args.share_deny)?,
        OpenClaim4::Fh | OpenClaim4::Previous(_) => {
            let file = cx.current()?;
            let obj = cx.current_obj(NfsErr4::IsDir)?;
            let attrs = obj.getattr().map_err(from_v3)?;
            require_regular(&attrs)?;
            check_open(&obj, &attrs, access, args.share_deny)?;
            Opened { file, cinfo: ChangeInfo4::default(), attrset: Bitmap4::EMPTY }
        }
        OpenClaim4::DelegateCur { .. } | OpenClaim4::DelegCurFh(_) => return Err(NfsErr4::BadStateId),
        OpenClaim4::DelegatePrev(_) | OpenClaim4::DelegPrevFh => return Err(NfsErr4::NotSupp),
    };
    let Fh::File { export, file } = opened.file else { return Err(NfsErr4::IsDir) };
    let request = state::OpenArgs {
        clientid: client,
        owner: args.owner.owner.as_bytes(),
        file: FileKey { export, file },
        access,
        deny: args.share_deny,
        claim: if reclaim { OpenClaim::Previous } else { OpenClaim::New },
    };
    let ok = cx.state().open(&request, cx.now).map_err(|e| from_state(&e))?;
    let stateid = wire_stateid(&ok.stateid);
    cx.set_current(opened.file);
    cx.current_stateid = Some(stateid);
    out.put(&NfsResOp::Open(Nfs4Result::Ok(OpenResOk {
        stateid,
        cinfo: opened.cinfo,
        rflags: OPEN4_RESULT_LOCKTYPE_POSIX,
        attrset: opened.attrset,
        delegation: no_delegation(want),
    })));
    Ok(())
}

/// RFC 8881 §18.16.3: OPEN_DELEGATE_NONE, or NONE_EXT saying why when the client stated a want.
fn no_delegation(want: u32) -> OpenDelegation4<'static> {
    let why = match want {
        OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE => return OpenDelegation4::None,
        OPEN4_SHARE_ACCESS_WANT_NO_DELEG => WhyNoDelegation4::NotWanted,
        OPEN4_SHARE_ACCESS_WANT_CANCEL => WhyNoDelegation4::Cancelled,
        _ => WhyNoDelegation4::NotSuppFtype,
    };
    OpenDelegation4::NoneExt(OpenNoneDelegation4::Other(why))
}

/// knfsd's do_open_permission: read access needs read (or execute) permission, write access and a deny
/// of reads need write permission; the owner always passes (owner override). A read-only export refuses
/// write access with ROFS.
fn check_open(obj: &Obj<'_>, attrs: &Fattr3, access: u32, deny: u32) -> Result<(), NfsErr4> {
    let wants_write = access & OPEN4_SHARE_ACCESS_WRITE != 0 || deny & OPEN4_SHARE_DENY_READ != 0;
    if access & OPEN4_SHARE_ACCESS_WRITE != 0 && obj.export.read_only {
        return Err(NfsErr4::Rofs);
    }
    if access & OPEN4_SHARE_ACCESS_READ != 0 && !may_read_data(attrs, &obj.cred) {
        return Err(NfsErr4::Access);
    }
    if wants_write && !may_write_data(attrs, &obj.cred) {
        return Err(NfsErr4::Access);
    }
    Ok(())
}

/// CLAIM_NULL: `name` in the current directory, created as `how` says.
fn by_name(cx: &Cx<'_>, name: &[u8], how: &OpenFlag4<'_>, access: u32, deny: u32) -> Result<Opened, NfsErr4> {
    let (export, dir_file) = match cx.current()? {
        Fh::Pseudo(node) => {
            names::check(name)?;
            if matches!(how, OpenFlag4::Create(_)) {
                return Err(NfsErr4::Rofs);
            }
            // Every name in a pseudo directory is a directory.
            return match cx.svc.pseudo.lookup(node, name, &cx.server.exports, cx.conn.peer) {
                Some(_) => Err(NfsErr4::IsDir),
                None => Err(NfsErr4::NoEnt),
            };
        }
        Fh::File { export, file } => (export, file),
    };
    let dir = cx.obj(export, dir_file)?;
    let before = dir.getattr().map_err(from_v3)?;
    require_dir(&before)?;
    names::check(name)?;
    if !permits(&before, &dir.cred, MAY_EXEC) {
        return Err(NfsErr4::Access);
    }
    let (file, created, attrset) = match how {
        OpenFlag4::NoCreate => (dir.backend().lookup(dir_file, name).map_err(from_v3)?, false, Bitmap4::EMPTY),
        OpenFlag4::Create(how) => create(cx, &dir, &before, name, how)?,
    };
    let target = dir.with_file(file);
    let attrs = target.getattr().map_err(from_v3)?;
    require_regular(&attrs)?;
    // The creator may open what it made whatever the mode says (knfsd's NFSD_MAY_OWNER_OVERRIDE).
    if !created {
        check_open(&target, &attrs, access, deny)?;
    }
    let after = if created { dir.getattr().map_err(from_v3)? } else { before };
    let cinfo = ChangeInfo4 { atomic: !created, before: change(&before), after: change(&after) };
    Ok(Opened { file: Fh::File { export, file }, cinfo, attrset })
}

/// Creates `name` as `how` asks: the file, whether this OPEN made it, and the attributes set.
fn create(
    cx: &Cx<'_>,
    dir: &Obj<'_>,
    before: &Fattr3,
    name: &[u8],
    how: &CreateHow4<'_>,
) -> Result<(FileId, bool, Bitmap4), NfsErr4> {
    dir.require_writable().map_err(from_v3)?;
    if !may_modify_dir(before, &dir.cred) {
        return Err(NfsErr4::Access);
    }
    let change = DirChange { dir: *dir, before: *before };
    let backend = dir.backend();
    let make = |node: NewNode<'_>, mode: CreateMode, attrs: &Sattr3| {
        backend.create(dir.file, name, node, mode, attrs).map_err(from_v3)
    };
    // knfsd: the attributes that held the verifier, for the client to set right (RFC 8881 §18.16.4).
    let verifier_times = Bitmap4::from_bits([FATTR4_TIME_ACCESS, FATTR4_TIME_MODIFY]);
    match how {
        CreateHow4::Guarded(raw) => {
            let given = decode_settable(raw, cx.minor)?;
            let attrs = change.initial_attrs(&given.sattr, Ftype3::Reg, DEFAULT_FILE_MODE);
            Ok((make(NewNode::File { exclusive: None }, CreateMode::Guarded, &attrs)?, true, given.mask))
        }
        CreateHow4::Unchecked(raw) => {
            let given = decode_settable(raw, cx.minor)?;
            match backend.lookup(dir.file, name) {
                Ok(existing) => {
                    reuse(dir, existing, &given.sattr)?;
                    let size_only =
                        if given.sattr.size.is_some() { Bitmap4::from_bits([FATTR4_SIZE]) } else { Bitmap4::EMPTY };
                    Ok((existing, false, size_only))
                }
                Err(NfsErr3::NoEnt) => {
                    let attrs = change.initial_attrs(&given.sattr, Ftype3::Reg, DEFAULT_FILE_MODE);
                    Ok((make(NewNode::File { exclusive: None }, CreateMode::Unchecked, &attrs)?, true, given.mask))
                }
                Err(e) => Err(from_v3(e)),
            }
        }
        CreateHow4::Exclusive(verf) => {
            let attrs = change.initial_attrs(&Sattr3::default(), Ftype3::Reg, DEFAULT_FILE_MODE);
            let node = NewNode::File { exclusive: Some(CreateVerf3(verf.0)) };
            Ok((make(node, CreateMode::Exclusive, &attrs)?, true, verifier_times))
        }
        CreateHow4::Exclusive41 { verf, attrs: raw } => {
            let given = decode_settable(raw, cx.minor)?;
            // RFC 8881 §18.16.3: only attributes of suppattr_exclcreat go with EXCLUSIVE4_1.
            if !given.mask.difference(&exclcreat(cx.minor)).is_empty() {
                return Err(NfsErr4::Inval);
            }
            let attrs = change.initial_attrs(&given.sattr, Ftype3::Reg, DEFAULT_FILE_MODE);
            let node = NewNode::File { exclusive: Some(CreateVerf3(verf.0)) };
            let file = make(node, CreateMode::Exclusive, &attrs)?;
            let mut attrset = given.mask;
            for bit in verifier_times.iter() {
                attrset.set(bit);
            }
            Ok((file, true, attrset))
        }
    }
}

/// UNCHECKED4 over an existing name: a regular file, truncated or extended to the size asked (with the
/// NFSv3 rules for who may); anything else exists already.
fn reuse(dir: &Obj<'_>, existing: FileId, sattr: &Sattr3) -> Result<(), NfsErr4> {
    let obj = dir.with_file(existing);
    let attrs = obj.getattr().map_err(from_v3)?;
    if attrs.ftype != Ftype3::Reg {
        return Err(if attrs.ftype == Ftype3::Dir { NfsErr4::IsDir } else { NfsErr4::Exist });
    }
    if let Some(size) = sattr.size {
        let resize = Sattr3 { size: Some(size), ..Sattr3::default() };
        let applied = crate::access::check_setattr(&attrs, &resize, &obj.cred).map_err(from_v3)?;
        obj.backend().setattr(existing, &applied).map_err(from_v3)?;
    }
    Ok(())
}
