//! Channel attributes (RFC 8881 §18.36.3): what CREATE_SESSION grants for the fore and back channels, and
//! which callback security the server will use.

use super::config::ChannelLimits;
use super::error::StateError;

/// `channel_attrs4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChannelAttrs {
    pub headerpadsize: u32,
    pub maxrequestsize: u32,
    pub maxresponsesize: u32,
    pub maxresponsesize_cached: u32,
    pub maxoperations: u32,
    pub maxrequests: u32,
    pub rdma_ird: Option<u32>,
}

/// Smallest fore-channel request and reply: an RPC header with AUTH_NONE and a COMPOUND holding SEQUENCE
/// (as knfsd's check_forechannel_attrs, NFSD_MIN_REQ_HDR_SEQ_SZ / NFSD_MIN_RESP_HDR_SEQ_SZ).
const MIN_FORE_SIZE: u32 = 64;
/// Smallest back-channel request: room for a CB_COMPOUND of CB_SEQUENCE and a recall with a file handle.
const MIN_BACK_REQUEST: u32 = 256;
const MIN_BACK_RESPONSE: u32 = 64;
/// SEQUENCE and one more operation (knfsd refuses fewer than 2 as TOOSMALL).
const MIN_OPERATIONS: u32 = 2;

/// The fore channel granted for `asked`: every size the smaller of the client's and the server's, no
/// header padding, at least one slot (RFC 8881 §18.36.3). The slot count may shrink further when the
/// reply-cache budget is short (`create_session.rs`).
pub(super) fn negotiate_fore(asked: &ChannelAttrs, limits: &ChannelLimits) -> Result<ChannelAttrs, StateError> {
    if asked.maxrequestsize < MIN_FORE_SIZE || asked.maxresponsesize < MIN_FORE_SIZE {
        return Err(StateError::TooSmall);
    }
    if asked.maxoperations < MIN_OPERATIONS {
        return Err(StateError::TooSmall);
    }
    let maxresponsesize = asked.maxresponsesize.min(limits.max_response_size);
    Ok(ChannelAttrs {
        // RFC 8881 §18.36.3: the server may answer 0, and we do not need padding.
        headerpadsize: 0,
        maxrequestsize: asked.maxrequestsize.min(limits.max_request_size),
        maxresponsesize,
        maxresponsesize_cached: asked.maxresponsesize_cached.min(limits.max_response_size_cached).min(maxresponsesize),
        maxoperations: asked.maxoperations.min(limits.max_operations),
        maxrequests: asked.maxrequests.min(limits.max_requests).max(1),
        rdma_ird: None,
    })
}

/// The back channel granted for `asked`: the client is the replier there, so its sizes stand; the server
/// uses at most `max_requests` slots and no padding.
pub(super) fn negotiate_back(asked: &ChannelAttrs, max_requests: u32) -> Result<ChannelAttrs, StateError> {
    if asked.maxrequestsize < MIN_BACK_REQUEST || asked.maxresponsesize < MIN_BACK_RESPONSE {
        return Err(StateError::TooSmall);
    }
    if asked.maxoperations < MIN_OPERATIONS {
        return Err(StateError::TooSmall);
    }
    Ok(ChannelAttrs {
        headerpadsize: 0,
        maxrequests: asked.maxrequests.min(max_requests).max(1),
        rdma_ird: None,
        ..*asked
    })
}

/// One entry of csa_sec_parms / BACKCHANNEL_CTL's security list (RFC 8881 §18.36.1 `callback_sec_parms4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallbackSecurity {
    /// AUTH_NONE.
    None,
    /// AUTH_SYS with the identity callbacks should carry.
    Sys { uid: u32, gid: u32 },
    /// Any other flavor (RPCSEC_GSS): not usable here.
    Other(u32),
}

/// The first flavor of `offered` the server can use for callbacks (AUTH_NONE or AUTH_SYS); none →
/// NFS4ERR_ENCR_ALG_UNSUPP (as knfsd's nfsd4_check_cb_sec).
pub(super) fn choose_callback_security(offered: &[CallbackSecurity]) -> Result<CallbackSecurity, StateError> {
    offered.iter().copied().find(|s| !matches!(s, CallbackSecurity::Other(_))).ok_or(StateError::EncrAlgUnsupp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked() -> ChannelAttrs {
        ChannelAttrs {
            headerpadsize: 512,
            maxrequestsize: 16 << 20,
            maxresponsesize: 16 << 20,
            maxresponsesize_cached: 1 << 20,
            maxoperations: 1000,
            maxrequests: 100_000,
            rdma_ird: Some(4),
        }
    }

    #[test]
    fn fore_channel_requests_are_clamped_to_the_server_limits() {
        let limits = ChannelLimits::default();
        let got = negotiate_fore(&asked(), &limits).expect("fits");
        assert_eq!(got.headerpadsize, 0);
        assert_eq!(got.maxrequestsize, limits.max_request_size);
        assert_eq!(got.maxresponsesize, limits.max_response_size);
        assert_eq!(got.maxresponsesize_cached, limits.max_response_size_cached);
        assert_eq!(got.maxoperations, limits.max_operations);
        assert_eq!(got.maxrequests, limits.max_requests);
        assert_eq!(got.rdma_ird, None);
    }

    #[test]
    fn smaller_requests_are_kept_and_zero_slots_become_one() {
        let small = ChannelAttrs { maxresponsesize: 2000, maxresponsesize_cached: 3000, maxrequests: 0, ..asked() };
        let got = negotiate_fore(&small, &ChannelLimits::default()).expect("fits");
        assert_eq!(got.maxresponsesize, 2000);
        assert_eq!(got.maxresponsesize_cached, 2000, "the cached size never exceeds the response size");
        assert_eq!(got.maxrequests, 1);
    }

    #[test]
    fn channels_too_small_for_a_sequence_are_refused() {
        let tiny = ChannelAttrs { maxrequestsize: 10, ..asked() };
        assert_eq!(negotiate_fore(&tiny, &ChannelLimits::default()), Err(StateError::TooSmall));
        let one_op = ChannelAttrs { maxoperations: 1, ..asked() };
        assert_eq!(negotiate_fore(&one_op, &ChannelLimits::default()), Err(StateError::TooSmall));
        let tiny_back = ChannelAttrs { maxrequestsize: 100, ..asked() };
        assert_eq!(negotiate_back(&tiny_back, 16), Err(StateError::TooSmall));
    }

    #[test]
    fn the_back_channel_keeps_the_clients_sizes_and_caps_its_slots() {
        let got = negotiate_back(&asked(), 16).expect("fits");
        assert_eq!((got.maxrequestsize, got.maxresponsesize_cached), (16 << 20, 1 << 20));
        assert_eq!((got.maxrequests, got.headerpadsize, got.rdma_ird), (16, 0, None));
    }

    #[test]
    fn callback_security_takes_the_first_usable_flavor() {
        let offered = [CallbackSecurity::Other(6), CallbackSecurity::Sys { uid: 0, gid: 0 }, CallbackSecurity::None];
        assert_eq!(choose_callback_security(&offered), Ok(CallbackSecurity::Sys { uid: 0, gid: 0 }));
        assert_eq!(choose_callback_security(&[CallbackSecurity::Other(6)]), Err(StateError::EncrAlgUnsupp));
        assert_eq!(choose_callback_security(&[]), Err(StateError::EncrAlgUnsupp));
    }
}
