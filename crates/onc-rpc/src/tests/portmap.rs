use xdr::{decode_exact, XdrEncode, XdrWriter};

use super::words;
use crate::portmap::*;
use crate::*;

#[test]
fn mapping_has_the_rfc_layout() {
    let m = Mapping { prog: NFS_PROGRAM, vers: 3, prot: IPPROTO_TCP, port: 2049 };
    let bytes = m.to_xdr_bytes();
    assert_eq!(bytes, words(&[100_003, 3, 6, 2049]));
    assert_eq!(decode_exact::<Mapping>(&bytes).unwrap(), m);
}

#[test]
fn getport_call_from_a_client_decodes_to_a_mapping() {
    // RFC 1833 §3.1: PMAPPROC_GETPORT(mapping) = 3 of program 100000 version 2, AUTH_NONE.
    let mut bytes = words(&[0x0102_0304, 0, 2, 100_000, 2, 3, 0, 0, 0, 0]);
    bytes.extend(words(&[100_005, 3, 17, 0]));
    let (msg, args) = RpcMessage::decode(&bytes).unwrap();
    let call = msg.as_call().unwrap();
    assert_eq!((call.prog, call.vers), (PMAP_PROGRAM, PMAP_VERSION));
    assert_eq!(PmapProcedure::from_u32(call.proc), Some(PmapProcedure::GetPort));
    let m: Mapping = decode_exact(args).unwrap();
    assert_eq!(m, Mapping { prog: MOUNT_PROGRAM, vers: 3, prot: IPPROTO_UDP, port: 0 });

    // The reply: SUCCESS, then the port as an unsigned int.
    let reply = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE));
    let mut w = XdrWriter::new();
    reply.encode_header(&mut w);
    w.put_u32(20048);
    assert_eq!(w.to_vec(), words(&[0x0102_0304, 1, 0, 0, 0, 0, 20048]));
}

#[test]
fn pmaplist_is_an_xdr_linked_list() {
    let list = PmapList(vec![
        Mapping { prog: PMAP_PROGRAM, vers: 2, prot: IPPROTO_TCP, port: 111 },
        Mapping { prog: NFS_PROGRAM, vers: 3, prot: IPPROTO_TCP, port: 2049 },
    ]);
    let bytes = list.to_xdr_bytes();
    assert_eq!(bytes, words(&[1, 100_000, 2, 6, 111, 1, 100_003, 3, 6, 2049, 0]));
    assert_eq!(decode_exact::<PmapList>(&bytes).unwrap(), list);
    assert_eq!(PmapList::default().to_xdr_bytes(), words(&[0]));
}

#[test]
fn callit_arguments_and_result_round_trip() {
    let args = CallArgs { prog: NFS_PROGRAM, vers: 3, proc: 0, args: b"xyz" };
    let bytes = args.to_xdr_bytes();
    assert_eq!(bytes, [words(&[100_003, 3, 0, 3]), b"xyz\0".to_vec()].concat());
    assert_eq!(decode_exact::<CallArgs>(&bytes).unwrap(), args);
    let res = CallResult { port: 2049, res: b"" };
    assert_eq!(res.to_xdr_bytes(), words(&[2049, 0]));
    assert_eq!(decode_exact::<CallResult>(&res.to_xdr_bytes()).unwrap(), res);
}

#[test]
fn pmap_procedure_numbers_follow_rfc_1833() {
    assert_eq!(PmapProcedure::from_u32(0), Some(PmapProcedure::Null));
    assert_eq!(PmapProcedure::from_u32(5), Some(PmapProcedure::CallIt));
    assert_eq!(PmapProcedure::from_u32(6), None);
    assert_eq!(PmapProcedure::Dump as u32, 4);
}
