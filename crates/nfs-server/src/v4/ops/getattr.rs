//! GETATTR (RFC 8881 §18.7), VERIFY (§18.31) and NVERIFY (§18.15). GETATTR answers the supported
//! attributes asked for and leaves the others out; asking for a write-only one is INVAL (as knfsd's
//! NFSD_WRITEONLY_ATTRS check). VERIFY compares the client's values
//! with this server's encoding of the same attributes, byte for byte (§18.31.3); an attribute this server
//! does not support is ATTRNOTSUPP, `rdattr_error` or a write-only attribute is INVAL.

use nfs4_proto::attr::{FATTR4_MODE_UMASK, FATTR4_RDATTR_ERROR, FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET};
use nfs4_proto::{GetattrArgs, GetattrResOk, Nfs4Result, NfsErr4, NfsResOp, RawFattr4, Void};

use crate::v4::attrs;
use crate::v4::context::Cx;
use crate::v4::results::Results;

/// Attributes that can be set but not read.
const WRITE_ONLY: [u32; 3] = [FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET, FATTR4_MODE_UMASK];

pub(crate) fn getattr(cx: &mut Cx<'_>, args: &GetattrArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let fh = cx.current()?;
    if WRITE_ONLY.iter().any(|b| args.attr_request.is_set(*b)) {
        return Err(NfsErr4::Inval);
    }
    let values = cx.current_attrs()?;
    let obj_attributes = attrs::encode(cx, fh, &values, &args.attr_request)?;
    out.put(&NfsResOp::Getattr(Nfs4Result::Ok(GetattrResOk { obj_attributes })));
    Ok(())
}

/// VERIFY (`negate` false) or NVERIFY (`negate` true).
pub(crate) fn verify(cx: &mut Cx<'_>, given: &RawFattr4<'_>, negate: bool, out: &mut Results) -> Result<(), NfsErr4> {
    let fh = cx.current()?;
    given.decode_attrs().map_err(|e| e.status())?;
    let mask = given.attrmask;
    if !mask.difference(&attrs::supported(cx.minor)).is_empty() {
        return Err(NfsErr4::AttrNotSupp);
    }
    if mask.is_set(FATTR4_RDATTR_ERROR) || WRITE_ONLY.iter().any(|b| mask.is_set(*b)) {
        return Err(NfsErr4::Inval);
    }
    let values = cx.current_attrs()?;
    let ours = attrs::encode(cx, fh, &values, &mask)?;
    let same = ours.attrmask == mask && ours.attr_vals == given.attr_vals;
    match (same, negate) {
        (true, false) => out.put(&NfsResOp::Verify(Nfs4Result::Ok(Void))),
        (false, true) => out.put(&NfsResOp::Nverify(Nfs4Result::Ok(Void))),
        (false, false) => return Err(NfsErr4::NotSame),
        (true, true) => return Err(NfsErr4::Same),
    }
    Ok(())
}
