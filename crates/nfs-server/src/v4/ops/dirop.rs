//! What CREATE, REMOVE, RENAME and LINK share: a directory about to change, checked (an export's
//! directory — the pseudo file system is read-only —, a writable export, write and search permission),
//! its `change` before, and the `change_info4` after (RFC 8881 §3.3.6). `atomic` is false: the two
//! readings are not taken under one lock with the change, so the client must not trust them to bracket it.

use nfs3_proto::Fattr3;
use nfs4_proto::{ChangeInfo4, NfsErr4};

use crate::access::{may_modify_dir, may_unlink_from};
use crate::dispatch::call::Obj;
use crate::v4::attrs::change;
use crate::v4::context::{require_dir, Cx};
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;

const S_ISVTX: u32 = 0o1000;

/// A directory that passed the checks for a change.
pub(crate) struct Changing<'s> {
    pub dir: Obj<'s>,
    pub before: Fattr3,
}

impl<'s> Changing<'s> {
    /// Checks `fh` for a change of its entries.
    pub(crate) fn open(cx: &Cx<'s>, fh: Fh) -> Result<Self, NfsErr4> {
        let Fh::File { export, file } = fh else { return Err(NfsErr4::Rofs) };
        let dir = cx.obj(export, file)?;
        let before = dir.getattr().map_err(from_v3)?;
        require_dir(&before)?;
        dir.require_writable().map_err(from_v3)?;
        if !may_modify_dir(&before, &dir.cred) {
            return Err(NfsErr4::Access);
        }
        Ok(Changing { dir, before })
    }

    /// The directory's `change_info4` now.
    pub(crate) fn cinfo(&self) -> ChangeInfo4 {
        let after = self.dir.getattr().map_or(0, |a| change(&a));
        ChangeInfo4 { atomic: false, before: change(&self.before), after }
    }

    /// The sticky-directory rule for removing or replacing `name` (ACCESS when the caller owns neither
    /// the entry nor the directory); a missing entry passes, the backend answers NOENT.
    pub(crate) fn check_sticky(&self, name: &[u8]) -> Result<(), NfsErr4> {
        let cred = &self.dir.cred;
        if self.before.mode & S_ISVTX == 0 || cred.is_root() || cred.uid == self.before.uid {
            return Ok(());
        }
        let Ok(victim) = self.dir.backend().lookup(self.dir.file, name) else { return Ok(()) };
        let attrs = self.dir.with_file(victim).getattr().map_err(from_v3)?;
        if may_unlink_from(&self.before, &attrs, cred) {
            Ok(())
        } else {
            Err(NfsErr4::Access)
        }
    }
}
