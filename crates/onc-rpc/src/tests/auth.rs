use xdr::{XdrEncode, XdrError};

use super::words;
use crate::*;

fn encoded_parms(machinename: &[u8], gids: &[u32]) -> Vec<u8> {
    let mut bytes = words(&[1]);
    bytes.extend(words(&[machinename.len() as u32]));
    bytes.extend(machinename);
    bytes.extend(vec![0; xdr::padding(machinename.len())]);
    bytes.extend(words(&[1000, 1000, gids.len() as u32]));
    bytes.extend(words(gids));
    bytes
}

fn sys_auth(body: &[u8]) -> OpaqueAuth<'_> {
    OpaqueAuth { flavor: AuthFlavor::AUTH_SYS, body }
}

#[test]
fn auth_sys_round_trips_at_its_limits() {
    let name = [b'n'; 255];
    let gids: Vec<u32> = (0..16).collect();
    let parms = AuthSysParms::new(1, &name, 1000, 1000, &gids).unwrap();
    let body = parms.encode_body();
    assert_eq!(body, encoded_parms(&name, &gids));
    assert_eq!(body.len(), parms.encoded_len());
    assert!(body.len() <= MAX_AUTH_BYTES);
    let decoded = AuthSysParms::from_opaque_auth(&sys_auth(&body)).unwrap();
    assert_eq!(decoded, parms);
    assert_eq!(decoded.gids(), gids.as_slice());
    assert_eq!(decoded.to_xdr_bytes(), body);
}

#[test]
fn auth_sys_with_seventeen_gids_is_rejected() {
    let gids: Vec<u32> = (0..17).collect();
    let body = encoded_parms(b"host", &gids);
    let err = AuthSysParms::from_opaque_auth(&sys_auth(&body)).unwrap_err();
    assert!(
        matches!(err, RpcError::Xdr(XdrError::LengthOverLimit { what: "authsys_parms gids", len: 17, max: 16, .. })),
        "{err:?}"
    );
    let err = AuthSysParms::new(1, b"host", 0, 0, &gids).unwrap_err();
    assert_eq!(err, RpcError::OverLimit { what: "AUTH_SYS gids", len: 17, max: 16 });
}

#[test]
fn auth_sys_with_a_256_byte_machinename_is_rejected() {
    let name = [b'n'; 256];
    let body = encoded_parms(&name, &[]);
    let err = AuthSysParms::from_opaque_auth(&sys_auth(&body)).unwrap_err();
    assert!(
        matches!(
            err,
            RpcError::Xdr(XdrError::LengthOverLimit { what: "authsys_parms machinename", len: 256, max: 255, .. })
        ),
        "{err:?}"
    );
    let err = AuthSysParms::new(1, &name, 0, 0, &[]).unwrap_err();
    assert_eq!(err, RpcError::OverLimit { what: "AUTH_SYS machinename", len: 256, max: 255 });
}

#[test]
fn auth_sys_body_with_trailing_bytes_is_rejected() {
    let mut body = encoded_parms(b"host", &[1]);
    body.extend(words(&[0]));
    let err = AuthSysParms::from_opaque_auth(&sys_auth(&body)).unwrap_err();
    assert_eq!(err, RpcError::Xdr(XdrError::TrailingBytes { count: 4 }));
}

#[test]
fn auth_sys_decoder_refuses_a_credential_of_another_flavor() {
    let body = encoded_parms(b"host", &[]);
    let auth = OpaqueAuth { flavor: AuthFlavor::AUTH_DH, body: &body };
    let err = AuthSysParms::from_opaque_auth(&auth).unwrap_err();
    assert_eq!(err, RpcError::WrongAuthFlavor { expected: AuthFlavor::AUTH_SYS, found: AuthFlavor::AUTH_DH });
}

#[test]
fn auth_sys_encodes_into_a_credential_that_decodes_back() {
    let parms = AuthSysParms::new(42, b"bench", 0, 0, &[0, 10]).unwrap();
    let mut buf = Vec::new();
    let cred = parms.to_opaque_auth(&mut buf);
    assert_eq!(cred.flavor, AuthFlavor::AUTH_SYS);
    assert_eq!(AuthSysParms::from_opaque_auth(&cred).unwrap(), parms);
    assert!(format!("{parms:?}").contains("\"bench\""));
}

#[test]
fn opaque_auth_refuses_a_body_over_400_bytes() {
    assert!(OpaqueAuth::new(AuthFlavor::RPCSEC_GSS, &[0; 400]).is_ok());
    let err = OpaqueAuth::new(AuthFlavor::RPCSEC_GSS, &[0; 401]).unwrap_err();
    assert_eq!(err, RpcError::OverLimit { what: "opaque_auth body", len: 401, max: 400 });
}

#[test]
fn opaque_auth_passes_unknown_flavors_through() {
    let bytes = words(&[390_003, 4, 0xfeed_f00d]);
    let auth: OpaqueAuth = xdr::decode_exact(&bytes).unwrap();
    assert_eq!(auth.flavor, AuthFlavor(390_003));
    assert_eq!(auth.flavor.name(), None);
    assert_eq!(auth.encoded_len(), bytes.len());
    assert_eq!(auth.to_xdr_bytes(), bytes);
    assert_eq!(AuthFlavor::RPCSEC_GSS.name(), Some("RPCSEC_GSS"));
    assert_eq!(AuthFlavor::AUTH_SHORT.0, 2);
    assert_eq!(AuthFlavor::AUTH_DH.0, 3);
}
