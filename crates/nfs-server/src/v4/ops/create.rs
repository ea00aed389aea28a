//! CREATE (RFC 8881 §18.4): directories, symbolic links (the link text may have come as an RPC-over-RDMA
//! read chunk: the transport reassembled the call), sockets, FIFOs and devices — as the backend allows.
//! Regular files are OPEN's (NF4REG and the named-attribute types → BADTYPE). The new object becomes the
//! current file handle; owner and mode follow the NFSv3 rules for new nodes.

use nfs3_proto::{Ftype3, SpecData3};
use nfs4_proto::{CreateArgs, CreateResOk, CreateType4, Nfs4Result, NfsErr4, NfsResOp};

use super::dirop::Changing;
use super::names;
use crate::backend::{CreateMode, NewNode};
use crate::dispatch::dirop::DirChange;
use crate::v4::attrs::decode_settable;
use crate::v4::context::Cx;
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

/// Longest link text accepted (Linux's PATH_MAX; knfsd's limit as well).
const LINK_MAX_LEN: usize = 4096;

pub(crate) fn run(cx: &mut Cx<'_>, args: &CreateArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let dir_fh = cx.current()?;
    let name = args.objname.as_bytes();
    let (node, ftype, default_mode) = match args.objtype {
        CreateType4::Dir => (NewNode::Directory, Ftype3::Dir, 0o755),
        CreateType4::Link(text) => {
            if text.is_empty() {
                return Err(NfsErr4::Inval);
            }
            if text.len() > LINK_MAX_LEN {
                return Err(NfsErr4::NameTooLong);
            }
            (NewNode::Symlink { target: text }, Ftype3::Lnk, 0o777)
        }
        CreateType4::Block(d) => (special(Ftype3::Blk, d.specdata1, d.specdata2), Ftype3::Blk, 0o644),
        CreateType4::Char(d) => (special(Ftype3::Chr, d.specdata1, d.specdata2), Ftype3::Chr, 0o644),
        CreateType4::Socket => (special(Ftype3::Sock, 0, 0), Ftype3::Sock, 0o644),
        CreateType4::Fifo => (special(Ftype3::Fifo, 0, 0), Ftype3::Fifo, 0o644),
        CreateType4::Other(_) => return Err(NfsErr4::BadType),
    };
    let changing = Changing::open(cx, dir_fh)?;
    names::check(name)?;
    let given = decode_settable(&args.createattrs, cx.minor)?;
    let change = DirChange { dir: changing.dir, before: changing.before };
    let attrs = change.initial_attrs(&given.sattr, ftype, default_mode);
    let dir = changing.dir;
    let file = dir.backend().create(dir.file, name, node, CreateMode::Guarded, &attrs).map_err(from_v3)?;
    let cinfo = changing.cinfo();
    cx.set_current(Fh::File { export: dir.export.index, file });
    out.put(&NfsResOp::Create(Nfs4Result::Ok(CreateResOk { cinfo, attrset: given.mask })));
    Ok(())
}

fn special(ftype: Ftype3, major: u32, minor: u32) -> NewNode<'static> {
    NewNode::Special { ftype, rdev: SpecData3 { specdata1: major, specdata2: minor } }
}
