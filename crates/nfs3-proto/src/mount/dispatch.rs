//! Whole-message MOUNT v3 bodies: [`MountCall`] (arguments) and [`MountReply`] (results).

use super::types::{DirPath, Exports, MountList, MountRes3};
use super::MountProc;

dispatch_enum! {
    /// The arguments of any MOUNT v3 call (RFC 1813 §5.2, Appendix I). MNT and UMNT take a `dirpath`;
    /// the others take `void`.
    pub enum MountCall<'a> by MountProc {
        void { Null, Dump, Umntall, Export }
        Mnt(DirPath<'a>),
        Umnt(DirPath<'a>),
    }
}

dispatch_enum! {
    /// The result of any MOUNT v3 call (RFC 1813 §5.2, Appendix I). NULL, UMNT and UMNTALL return `void`.
    pub enum MountReply<'a> by MountProc {
        void { Null, Umnt, Umntall }
        Mnt(MountRes3),
        Dump(MountList<'a>),
        Export(Exports<'a>),
    }
}
