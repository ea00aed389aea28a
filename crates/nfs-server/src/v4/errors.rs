//! From the layers below to `nfsstat4` (RFC 8881 §15.1): a backend's `nfsstat3` (the values NFSv3 and
//! NFSv4 share keep their numbers), the state machine's [`StateError`] (named after the value it becomes),
//! and the export refusals.

use nfs3_proto::NfsErr3;
use nfs4_proto::NfsErr4;

use super::state::StateError;
use crate::exports::Refusal;

/// The NFSv4 status of a backend or handle error. Values NFSv4 dropped are mapped as knfsd's
/// nfserrno does: NODEV → NXIO, REMOTE → IO, NOT_SYNC → INVAL, JUKEBOX → DELAY.
pub(crate) fn from_v3(e: NfsErr3) -> NfsErr4 {
    match e {
        NfsErr3::Perm => NfsErr4::Perm,
        NfsErr3::NoEnt => NfsErr4::NoEnt,
        NfsErr3::Io | NfsErr3::Remote => NfsErr4::Io,
        NfsErr3::Nxio | NfsErr3::NoDev => NfsErr4::Nxio,
        NfsErr3::Acces => NfsErr4::Access,
        NfsErr3::Exist => NfsErr4::Exist,
        NfsErr3::Xdev => NfsErr4::Xdev,
        NfsErr3::NotDir => NfsErr4::NotDir,
        NfsErr3::IsDir => NfsErr4::IsDir,
        NfsErr3::Inval | NfsErr3::NotSync => NfsErr4::Inval,
        NfsErr3::FBig => NfsErr4::FBig,
        NfsErr3::NoSpc => NfsErr4::NoSpc,
        NfsErr3::Rofs => NfsErr4::Rofs,
        NfsErr3::Mlink => NfsErr4::Mlink,
        NfsErr3::NameTooLong => NfsErr4::NameTooLong,
        NfsErr3::NotEmpty => NfsErr4::NotEmpty,
        NfsErr3::Dquot => NfsErr4::Dquot,
        NfsErr3::Stale => NfsErr4::Stale,
        NfsErr3::BadHandle => NfsErr4::BadHandle,
        NfsErr3::BadCookie => NfsErr4::BadCookie,
        NfsErr3::NotSupp => NfsErr4::NotSupp,
        NfsErr3::TooSmall => NfsErr4::TooSmall,
        NfsErr3::ServerFault => NfsErr4::ServerFault,
        NfsErr3::BadType => NfsErr4::BadType,
        NfsErr3::Jukebox => NfsErr4::Delay,
    }
}

/// The NFSv4 status of a state error: the variant of the same name.
pub(crate) fn from_state(e: &StateError) -> NfsErr4 {
    match e {
        StateError::StaleClientId => NfsErr4::StaleClientId,
        StateError::ClidInUse => NfsErr4::ClidInUse,
        StateError::ClientIdBusy => NfsErr4::ClientIdBusy,
        StateError::Perm => NfsErr4::Perm,
        StateError::NotSame => NfsErr4::NotSame,
        StateError::NoEnt => NfsErr4::NoEnt,
        StateError::BadSession => NfsErr4::BadSession,
        StateError::SeqMisordered => NfsErr4::SeqMisordered,
        StateError::BadSlot => NfsErr4::BadSlot,
        StateError::Delay => NfsErr4::Delay,
        StateError::RetryUncachedRep => NfsErr4::RetryUncachedRep,
        StateError::RepTooBigToCache => NfsErr4::RepTooBigToCache,
        StateError::TooSmall => NfsErr4::TooSmall,
        StateError::EncrAlgUnsupp => NfsErr4::EncrAlgUnsupp,
        StateError::BadStateId => NfsErr4::BadStateId,
        StateError::OldStateId => NfsErr4::OldStateId,
        StateError::ShareDenied => NfsErr4::ShareDenied,
        StateError::Denied { .. } => NfsErr4::Denied,
        StateError::Locked => NfsErr4::Locked,
        StateError::OpenMode => NfsErr4::OpenMode,
        StateError::LocksHeld => NfsErr4::LocksHeld,
        StateError::Grace => NfsErr4::Grace,
        StateError::NoGrace => NfsErr4::NoGrace,
        StateError::CompleteAlready => NfsErr4::CompleteAlready,
        StateError::Resource(_) => NfsErr4::Resource,
        StateError::Inval(_) => NfsErr4::Inval,
    }
}

/// An export's refusal of the client, as knfsd answers NFSv4: ACCESS for an unlisted address, PERM for an
/// insecure port.
pub(crate) fn from_refusal(r: Refusal) -> NfsErr4 {
    match r {
        Refusal::NotAllowed => NfsErr4::Access,
        Refusal::InsecurePort => NfsErr4::Perm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_values_keep_their_numbers() {
        for e in NfsErr3::ALL {
            let v4 = from_v3(*e);
            if NfsErr4::from_u32(e.as_u32()).is_some() {
                assert_eq!(v4.as_u32(), e.as_u32(), "{e:?}");
            }
        }
        assert_eq!(from_v3(NfsErr3::Jukebox), NfsErr4::Delay);
    }

    #[test]
    fn state_errors_become_the_status_they_are_named_after() {
        let e = StateError::Resource("stateids");
        assert_eq!(from_state(&e), NfsErr4::Resource);
        assert!(e.to_string().starts_with(from_state(&e).name()), "{e}");
        assert!(StateError::ShareDenied.to_string().starts_with(from_state(&StateError::ShareDenied).name()));
    }
}
