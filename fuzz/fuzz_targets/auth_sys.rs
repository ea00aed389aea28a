#![no_main]
//! The body of an AUTH_SYS credential (RFC 5531 Appendix A).
use libfuzzer_sys::fuzz_target;
use nfsbench_fuzz::assert_round_trip;
use onc_rpc::AuthSysParms;
use xdr::{decode_exact, XdrEncode};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = decode_exact::<AuthSysParms>(data) else { return };
    assert_round_trip!(value, |v| v.to_xdr_bytes(), |b| decode_exact::<AuthSysParms>(b).ok());
});
