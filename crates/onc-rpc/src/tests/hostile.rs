//! Hostile input: truncations, bit flips and random bytes through every decoder. Nothing may panic,
//! and whatever decodes must re-encode to a value that decodes the same.

use xdr::{decode_exact, XdrEncode};

use super::{words, Rng};
use crate::portmap::*;
use crate::rpcbind::*;
use crate::*;

/// How many of [`valid_messages`] (the first ones) are RPC messages; the rest are bare XDR types.
const RPC_MESSAGES: usize = 6;

fn valid_messages() -> Vec<Vec<u8>> {
    let cred_body = AuthSysParms::new(3, b"hostile-host", 1, 2, &[3, 4, 5]).unwrap().encode_body();
    let cred = OpaqueAuth::new(AuthFlavor::AUTH_SYS, &cred_body).unwrap();
    let verf = OpaqueAuth::new(AuthFlavor(9), b"v").unwrap();
    let mut out = vec![
        RpcMessage::call(1, CallHeader::new(NFS_PROGRAM, 3, 7, cred, OpaqueAuth::NONE)).to_xdr_bytes(),
        RpcMessage::call(2, CallHeader::new(MOUNT_PROGRAM, 3, 1, OpaqueAuth::NONE, verf)).to_xdr_bytes(),
        RpcMessage::reply(3, ReplyBody::accepted(AcceptStat::ProgMismatch { low: 2, high: 3 })).to_xdr_bytes(),
        RpcMessage::reply(4, ReplyBody::rpc_mismatch()).to_xdr_bytes(),
        RpcMessage::reply(5, ReplyBody::auth_error(AuthStat::RpcsecGssCtxProblem)).to_xdr_bytes(),
    ];
    let mut success = RpcMessage::reply(6, ReplyBody::success(verf)).to_xdr_bytes();
    success.extend(words(&[0, 1, 2]));
    out.push(success);
    out.push(cred_body.clone());
    out.push(PmapList(vec![Mapping { prog: 1, vers: 2, prot: 6, port: 4 }; 2]).to_xdr_bytes());
    out.push(CallArgs { prog: 1, vers: 2, proc: 3, args: b"abcde" }.to_xdr_bytes());
    let rpcb = Rpcb { prog: 100_003, vers: 3, netid: b"tcp", addr: b"127.0.0.1.8.1", owner: b"0" };
    out.push(RpcbList(vec![rpcb, rpcb]).to_xdr_bytes());
    let entry = RpcbEntry { maddr: b"::1.8.1", netid: b"tcp6", semantics: 3, protofmly: b"inet6", proto: b"tcp" };
    out.push(RpcbEntryList(vec![entry]).to_xdr_bytes());
    out
}

/// Decodes `$bytes` as a whole `$t`; what decodes must re-encode to as many bytes (equal bytes but for
/// padding, which the decoder does not inspect) and decode again to the same value.
macro_rules! check {
    ($t:ty, $bytes:expr) => {
        if let Ok(v) = decode_exact::<$t>($bytes) {
            let encoded = v.to_xdr_bytes();
            assert_eq!(encoded.len(), $bytes.len(), "{v:?}");
            assert_eq!(decode_exact::<$t>(&encoded), Ok(v));
        }
    };
}

/// Runs `bytes` through every decoder. Byte-exact re-encoding of zero-padded input is checked by the
/// round-trip tests of each type; here any bytes may sit in padding.
fn decode_everything(bytes: &[u8]) {
    if let Ok((msg, rest)) = RpcMessage::decode(bytes) {
        let encoded = msg.to_xdr_bytes();
        assert_eq!(encoded.len(), bytes.len() - rest.len());
        assert_eq!(RpcMessage::decode(&encoded).map(|(m, _)| m), Ok(msg));
        if let Some(call) = msg.as_call() {
            if let Ok(parms) = AuthSysParms::from_opaque_auth(&call.cred) {
                assert_eq!(AuthSysParms::from_opaque_auth(&call.cred.with_body(&parms.encode_body())), Ok(parms));
            }
        }
    }
    check!(AuthSysParms, bytes);
    check!(OpaqueAuth, bytes);
    check!(Mapping, bytes);
    check!(PmapList, bytes);
    check!(CallArgs, bytes);
    check!(CallResult, bytes);
    check!(Rpcb, bytes);
    check!(RpcbList, bytes);
    check!(RpcbEntryList, bytes);
    check!(RpcbRmtCallArgs, bytes);
    check!(RpcbRmtCallRes, bytes);
    check!(NetBuf, bytes);
    let _ = uaddr::parse_uaddr(bytes);
}

trait WithBody<'a> {
    fn with_body(&self, body: &'a [u8]) -> OpaqueAuth<'a>;
}

impl<'a> WithBody<'a> for OpaqueAuth<'_> {
    fn with_body(&self, body: &'a [u8]) -> OpaqueAuth<'a> {
        OpaqueAuth { flavor: self.flavor, body }
    }
}

#[test]
fn truncations_of_valid_messages_never_panic_any_decoder() {
    for msg in valid_messages() {
        for cut in 0..=msg.len() {
            decode_everything(&msg[..cut]);
        }
    }
}

#[test]
fn every_prefix_of_a_zero_padded_message_that_decodes_re_encodes_byte_for_byte() {
    for msg in valid_messages().iter().take(RPC_MESSAGES) {
        for cut in 0..=msg.len() {
            let prefix = &msg[..cut];
            if let Ok((header, rest)) = RpcMessage::decode(prefix) {
                assert_eq!(header.to_xdr_bytes(), prefix[..prefix.len() - rest.len()]);
            }
        }
    }
}

#[test]
fn bit_flips_of_valid_messages_never_panic() {
    for msg in valid_messages() {
        for bit in 0..msg.len() * 8 {
            let mut flipped = msg.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            decode_everything(&flipped);
        }
    }
}

#[test]
fn random_bytes_never_panic_any_decoder() {
    let mut rng = Rng::new(0x5eed);
    for _ in 0..5000 {
        let len = rng.below(96);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        decode_everything(&bytes);
    }
}

#[test]
fn record_decoder_survives_random_streams_within_its_limits() {
    let mut rng = Rng::new(42);
    let limits = RecordLimits { max_record: 4096, max_fragments: 8 };
    for round in 0..500 {
        let mut decoder = RecordDecoder::new(limits);
        let len = rng.below(2048);
        let mut stream: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if round % 2 == 0 {
            // Keep some headers plausible so that records actually complete.
            let records: Vec<Vec<u8>> = (0..4).map(|i| vec![i as u8; rng.below(300)]).collect();
            stream = records.iter().flat_map(|r| frame_record(r, 1 + rng.below(200))).chain(stream).collect();
        }
        let mut at = 0;
        while at < stream.len() {
            let end = (at + 1 + rng.below(97)).min(stream.len());
            let pushed = decoder.push(&stream[at..end]);
            while let Some(record) = decoder.pop() {
                assert!(record.len() <= limits.max_record);
                decode_everything(&record);
                decoder.recycle(record);
            }
            if pushed.is_err() {
                assert!(decoder.push(&[0]).is_err(), "errors are sticky");
                break;
            }
            assert!(decoder.partial_len() <= limits.max_record);
            at = end;
        }
        let _ = decoder.finish();
    }
}
