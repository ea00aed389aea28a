//! Call encoding: xids, the AUTH_SYS credential (RFC 5531 Appendix A) built once per client, and the
//! RPC call header (RFC 5531 §9) in front of each procedure's arguments.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use onc_rpc::auth_sys::MAX_MACHINE_NAME;
use onc_rpc::{AuthFlavor, AuthSysParms, OpaqueAuth, RpcMessage, CALL_START_LEN, RPC_VERSION};
use xdr::XdrWriter;

/// Where the Linux kernel keeps the host name (the same one `uname -n` prints).
const HOSTNAME_FILE: &str = "/proc/sys/kernel/hostname";

/// Encodes calls for one client: one xid counter for all its connections, one credential.
#[derive(Debug)]
pub(crate) struct CallEncoder {
    next_xid: AtomicU32,
    /// The credential and verifier as every call header ends (RFC 5531 §9), encoded once.
    auth: Vec<u8>,
}

impl CallEncoder {
    /// An encoder sending AUTH_SYS `uid`/`gid` from this machine's host name.
    pub(crate) fn new(uid: u32, gid: u32) -> Self {
        let name = machine_name();
        let stamp = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32);
        // The name is bounded to 255 bytes and one group is sent, so `new` cannot fail; fall back to
        // an empty name rather than panic if that ever changes.
        let cred_body = AuthSysParms::new(stamp, &name, uid, gid, &[gid])
            .or_else(|_| AuthSysParms::new(stamp, b"", uid, gid, &[]))
            .map(|parms| parms.encode_body())
            .unwrap_or_default();
        Self::with_credential(cred_body)
    }

    /// AUTH_NONE, for the port mapper.
    pub(crate) fn anonymous() -> Self {
        Self::with_credential(Vec::new())
    }

    /// `cred_body`: the encoded `authsys_parms`, or empty for AUTH_NONE.
    fn with_credential(cred_body: Vec<u8>) -> Self {
        let cred = if cred_body.is_empty() {
            OpaqueAuth::NONE
        } else {
            OpaqueAuth { flavor: AuthFlavor::AUTH_SYS, body: &cred_body }
        };
        let mut w = XdrWriter::new();
        cred.encode_into(&mut w);
        OpaqueAuth::NONE.encode_into(&mut w);
        CallEncoder { next_xid: AtomicU32::new(random_u32()), auth: w.into_vec() }
    }

    /// A new xid and the call message: header, then whatever `args` writes (inline only: a payload
    /// added with `put_payload` would be flattened in, i.e. copied). `args_len` sizes the buffer.
    pub(crate) fn encode<'a>(
        &self,
        prog: u32,
        vers: u32,
        proc: u32,
        args_len: usize,
        args: impl FnOnce(&mut XdrWriter<'a>),
    ) -> (u32, Vec<u8>) {
        let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
        let mut w = XdrWriter::with_capacity(CALL_START_LEN + self.auth.len() + args_len);
        RpcMessage::encode_call_start(&mut w, xid, RPC_VERSION, prog, vers, proc);
        w.put_raw(&self.auth);
        args(&mut w);
        (xid, w.into_vec())
    }
}

/// This host's name, at most 255 bytes (RFC 5531 Appendix A: `string machinename<255>`).
pub(crate) fn machine_name() -> Vec<u8> {
    let mut name = std::fs::read(HOSTNAME_FILE).unwrap_or_else(|_| b"nfsbench".to_vec());
    while name.last().is_some_and(|b| b.is_ascii_whitespace()) {
        name.pop();
    }
    name.truncate(MAX_MACHINE_NAME);
    name
}

/// A per-process random number (std's hasher keys are seeded from the OS), so xids do not repeat
/// across runs and fool the server's duplicate request cache.
fn random_u32() -> u32 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.finish() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_carry_consecutive_xids_and_the_auth_sys_identity() {
        let enc = CallEncoder::new(1000, 100);
        let (x1, call) = enc.encode(100003, 3, 1, 4, |w| w.put_u32(7));
        let (x2, _) = enc.encode(100003, 3, 1, 4, |w| w.put_u32(7));
        assert_eq!(x2, x1.wrapping_add(1));
        let (msg, args) = RpcMessage::decode(&call).expect("decodes");
        assert_eq!(msg.xid, x1);
        assert_eq!(args, &7u32.to_be_bytes());
        let header = msg.as_call().expect("a call");
        assert_eq!((header.prog, header.vers, header.proc), (100003, 3, 1));
        let who = AuthSysParms::from_opaque_auth(&header.cred).expect("AUTH_SYS");
        assert_eq!((who.uid(), who.gid()), (1000, 100));
        assert!(who.machinename().len() <= MAX_MACHINE_NAME);
    }

    #[test]
    fn port_mapper_calls_use_auth_none() {
        let (_, call) = CallEncoder::anonymous().encode(100000, 2, 3, 0, |_| {});
        let (msg, _) = RpcMessage::decode(&call).expect("decodes");
        assert_eq!(msg.as_call().expect("a call").cred, OpaqueAuth::NONE);
    }
}
