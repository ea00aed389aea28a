use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use xdr::{decode_exact, XdrEncode};

use super::words;
use crate::rpcbind::*;
use crate::uaddr::*;
use crate::*;

fn padded(s: &[u8]) -> Vec<u8> {
    let mut v = words(&[s.len() as u32]);
    v.extend(s);
    v.extend(vec![0; xdr::padding(s.len())]);
    v
}

#[test]
fn rpcb_has_the_rfc_layout_and_round_trips() {
    let rpcb = Rpcb { prog: NFS_PROGRAM, vers: 3, netid: b"tcp", addr: b"127.0.0.1.8.1", owner: b"" };
    let bytes = rpcb.to_xdr_bytes();
    let expected = [words(&[100_003, 3]), padded(b"tcp"), padded(b"127.0.0.1.8.1"), padded(b"")].concat();
    assert_eq!(bytes, expected);
    assert_eq!(decode_exact::<Rpcb>(&bytes).unwrap(), rpcb);
}

#[test]
fn getaddr_call_decodes_and_is_answered_with_a_universal_address() {
    // RFC 1833 §2.1: RPCBPROC_GETADDR(rpcb) = 3 of version 4; the answer is a string.
    let mut bytes = words(&[77, 0, 2, 100_000, 4, 3, 0, 0, 0, 0]);
    bytes.extend([words(&[100_003, 3]), padded(b"tcp6"), padded(b""), padded(b"")].concat());
    let (msg, args) = RpcMessage::decode(&bytes).unwrap();
    let call = msg.as_call().unwrap();
    assert_eq!(RpcbProcedure::from_u32(call.vers, call.proc), Some(RpcbProcedure::GetAddr));
    let query: Rpcb = decode_exact(args).unwrap();
    assert_eq!((query.prog, query.vers, query.netid), (NFS_PROGRAM, 3, NETID_TCP6));

    let uaddr = format_uaddr(SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 2049));
    let answer = RpcbString(uaddr.as_bytes());
    assert_eq!(answer.to_xdr_bytes(), padded(b"::1.8.1"));
    assert_eq!(decode_exact::<RpcbString>(&answer.to_xdr_bytes()).unwrap(), answer);
}

#[test]
fn dump_and_getaddrlist_results_are_xdr_linked_lists() {
    let a = Rpcb { prog: 100_000, vers: 4, netid: b"tcp", addr: b"0.0.0.0.0.111", owner: b"superuser" };
    let b = Rpcb { prog: 100_003, vers: 3, netid: b"tcp6", addr: b"::.8.1", owner: b"0" };
    let list = RpcbList(vec![a, b]);
    let bytes = list.to_xdr_bytes();
    assert_eq!(bytes, [words(&[1]), a.to_xdr_bytes(), words(&[1]), b.to_xdr_bytes(), words(&[0])].concat());
    assert_eq!(decode_exact::<RpcbList>(&bytes).unwrap(), list);

    let entry = RpcbEntry {
        maddr: b"127.0.0.1.8.1",
        netid: b"tcp",
        semantics: NC_TPI_COTS_ORD,
        protofmly: b"inet",
        proto: b"tcp",
    };
    let entry_bytes = entry.to_xdr_bytes();
    let expected = [padded(b"127.0.0.1.8.1"), padded(b"tcp"), words(&[3]), padded(b"inet"), padded(b"tcp")].concat();
    assert_eq!(entry_bytes, expected);
    let entries = RpcbEntryList(vec![entry]);
    assert_eq!(decode_exact::<RpcbEntryList>(&entries.to_xdr_bytes()).unwrap(), entries);
    assert_eq!(RpcbEntryList::default().to_xdr_bytes(), words(&[0]));
}

#[test]
fn remote_call_and_netbuf_types_round_trip() {
    let args = RpcbRmtCallArgs { prog: 100_003, vers: 3, proc: 0, args: b"" };
    assert_eq!(decode_exact::<RpcbRmtCallArgs>(&args.to_xdr_bytes()).unwrap(), args);
    let res = RpcbRmtCallRes { addr: b"127.0.0.1.8.1", results: b"\x01\x02" };
    assert_eq!(decode_exact::<RpcbRmtCallRes>(&res.to_xdr_bytes()).unwrap(), res);
    let netbuf = NetBuf { maxlen: 16, buf: &[0, 2, 8, 1, 127, 0, 0, 1] };
    assert_eq!(netbuf.to_xdr_bytes(), [words(&[16, 8]), vec![0, 2, 8, 1, 127, 0, 0, 1]].concat());
    assert_eq!(decode_exact::<NetBuf>(&netbuf.to_xdr_bytes()).unwrap(), netbuf);
}

#[test]
fn rpcbind_procedures_beyond_eight_exist_only_in_version_4() {
    assert_eq!(RpcbProcedure::from_u32(3, 8), Some(RpcbProcedure::Taddr2Uaddr));
    assert_eq!(RpcbProcedure::from_u32(3, 9), None);
    assert_eq!(RpcbProcedure::from_u32(4, 9), Some(RpcbProcedure::GetVersAddr));
    assert_eq!(RpcbProcedure::from_u32(4, 11), Some(RpcbProcedure::GetAddrList));
    assert_eq!(RpcbProcedure::from_u32(4, 13), None);
    assert_eq!(RpcbProcedure::from_u32(2, 3), None, "version 2 is the port mapper");
}

#[test]
fn universal_address_of_port_2049_ends_in_8_1() {
    let v4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 2049);
    assert_eq!(format_uaddr(v4), "127.0.0.1.8.1");
    assert_eq!(parse_uaddr(b"127.0.0.1.8.1").unwrap(), v4);
    assert_eq!(tcp_netid(&v4), b"tcp");
    assert_eq!(udp_netid(&v4), b"udp");
    assert_eq!(parse_uaddr(b"0.0.0.0.0.111").unwrap(), "0.0.0.0:111".parse().unwrap());
}

#[test]
fn universal_addresses_of_ipv6_round_trip_in_any_text_form() {
    let cases = [
        ("::1.8.1", "[::1]:2049"),
        ("::.0.111", "[::]:111"),
        ("fe80::1:2.78.33", "[fe80::1:2]:20001"),
        ("0:0:0:0:0:0:0:1.8.1", "[::1]:2049"),
        ("::ffff:127.0.0.1.8.1", "[::ffff:127.0.0.1]:2049"),
    ];
    for (uaddr, addr) in cases {
        let parsed = parse_uaddr(uaddr.as_bytes()).unwrap();
        let expected: SocketAddr = addr.parse().unwrap();
        assert_eq!(parsed, expected, "{uaddr}");
        assert_eq!(parse_uaddr(format_uaddr(parsed).as_bytes()).unwrap(), parsed);
        assert_eq!(tcp_netid(&parsed), b"tcp6");
    }
    assert_eq!(format_uaddr("[fe80::1:2]:20001".parse().unwrap()), "fe80::1:2.78.33");
}

#[test]
fn malformed_universal_addresses_are_rejected() {
    let bad: [&[u8]; 11] = [
        b"",
        b"127.0.0.1",
        b"127.0.0.1.8",
        b"127.0.0.1.256.1",
        b"127.0.0.1.+8.1",
        b"127.0.0.1.8.",
        b"127.0.0.1. 8.1",
        b"127.0.0.1.0008.1",
        b"::1%eth0.8.1",
        b"localhost.8.1",
        b"\xff\xfe.8.1",
    ];
    for uaddr in bad {
        assert_eq!(parse_uaddr(uaddr), Err(RpcError::BadUniversalAddress), "{:?}", String::from_utf8_lossy(uaddr));
    }
}
