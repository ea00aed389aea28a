//! The port mapper on our own port: GETPORT (v2), GETADDR / GETVERSADDR (v3, v4), DUMP.

use onc_rpc::portmap::{Mapping, PmapList, IPPROTO_TCP, IPPROTO_UDP};
use onc_rpc::rpcbind::{Rpcb, RpcbList, RpcbString};
use onc_rpc::{MOUNT_PROGRAM, NLM_PROGRAM, PMAP_PROGRAM};
use xdr::decode_exact;

use super::*;

fn getport(c: &Client<'_>, prog: u32, vers: u32, prot: u32) -> u32 {
    let reply = c.call_raw(PMAP_PROGRAM, 2, 3, &encode(&Mapping { prog, vers, prot, port: 0 }));
    decode_exact::<u32>(results(&reply)).unwrap_or_else(|e| panic!("GETPORT result: {e}"))
}

fn getaddr(c: &Client<'_>, vers: u32, proc: u32, prog: u32, prog_vers: u32, netid: &[u8]) -> String {
    let query = Rpcb { prog, vers: prog_vers, netid, addr: b"", owner: b"" };
    let reply = c.call_raw(PMAP_PROGRAM, vers, proc, &encode(&query));
    let addr = decode_exact::<RpcbString<'_>>(results(&reply)).unwrap_or_else(|e| panic!("GETADDR result: {e}"));
    String::from_utf8_lossy(addr.0).into_owned()
}

#[test]
fn getport_answers_our_port_for_nfs_v3_and_v4_and_mount_v3_over_tcp_only() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(getport(&client, NFS_PROGRAM, 3, IPPROTO_TCP), u32::from(PORT));
    assert_eq!(getport(&client, MOUNT_PROGRAM, 3, IPPROTO_TCP), u32::from(PORT));
    assert_eq!(getport(&client, NFS_PROGRAM, 3, IPPROTO_UDP), 0, "no UDP");
    assert_eq!(getport(&client, NFS_PROGRAM, 4, IPPROTO_TCP), u32::from(PORT), "NFSv4 on the same port");
    assert_eq!(getport(&client, MOUNT_PROGRAM, 1, IPPROTO_TCP), 0);
    assert_eq!(getport(&client, NLM_PROGRAM, 4, IPPROTO_TCP), 0, "no lock manager");
}

#[test]
fn pmap_dump_lists_our_tcp_mappings() {
    let server = server();
    let client = Client::new(&server);
    let reply = client.call_raw(PMAP_PROGRAM, 2, 4, &[]);
    let list = decode_exact::<PmapList>(results(&reply)).unwrap_or_else(|e| panic!("DUMP result: {e}"));
    let port = u32::from(PORT);
    assert!(list.0.contains(&Mapping { prog: NFS_PROGRAM, vers: 3, prot: IPPROTO_TCP, port }));
    assert!(list.0.contains(&Mapping { prog: MOUNT_PROGRAM, vers: 3, prot: IPPROTO_TCP, port }));
    assert!(list.0.iter().all(|m| m.prot == IPPROTO_TCP && m.port == port));
}

#[test]
fn pmap_set_is_refused_with_false() {
    let server = server();
    let client = Client::new(&server);
    let set = Mapping { prog: 123, vers: 1, prot: IPPROTO_TCP, port: 99 };
    let reply = client.call_raw(PMAP_PROGRAM, 2, 1, &encode(&set));
    assert_eq!(decode_exact::<bool>(results(&reply)), Ok(false));
    assert_eq!(getport(&client, 123, 1, IPPROTO_TCP), 0);
}

#[test]
fn getaddr_answers_the_universal_address_of_the_connection_and_our_port() {
    let server = server();
    let client = Client::new(&server);
    // 20049 = 78 * 256 + 81.
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"tcp"), "127.0.0.1.78.81");
    assert_eq!(getaddr(&client, 3, 3, MOUNT_PROGRAM, 3, b"tcp"), "127.0.0.1.78.81");
    assert_eq!(getaddr(&client, 4, 9, NFS_PROGRAM, 3, b"tcp"), "127.0.0.1.78.81", "GETVERSADDR");
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b""), "127.0.0.1.78.81", "empty netid: this transport");
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"tcp6"), "::ffff:127.0.0.1.78.81");
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"udp"), "");
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"rdma"), "", "no RDMA listener configured");
    assert_eq!(getaddr(&client, 4, 3, NLM_PROGRAM, 4, b"tcp"), "");
}

#[test]
fn v4_getaddr_ignores_the_version_but_getversaddr_and_v3_do_not() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 2, b"tcp"), "127.0.0.1.78.81");
    assert_eq!(getaddr(&client, 4, 9, NFS_PROGRAM, 2, b"tcp"), "");
    assert_eq!(getaddr(&client, 3, 3, NFS_PROGRAM, 2, b"tcp"), "");
}

#[test]
fn getaddr_over_ipv6_uses_the_local_ipv6_address() {
    let server = server();
    let mut client = Client::new(&server).from("[::1]:800");
    client.conn.local = addr("[::1]:20049");
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"tcp6"), "::1.78.81");
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"tcp"), "", "no IPv4 address on this connection");
}

#[test]
fn rdma_netids_answer_the_rdma_port_when_configured() {
    let config = ServerConfig {
        exports: vec![export("/export", mem())],
        max_io_size: MAX_IO,
        drc_entries: 16,
        tcp_port: PORT,
        rdma_port: Some(20050),
    };
    let server = Server::new(config).unwrap_or_else(|e| panic!("{e}"));
    let client = Client::new(&server);
    assert_eq!(getaddr(&client, 4, 3, NFS_PROGRAM, 3, b"rdma"), "127.0.0.1.78.82");
}

#[test]
fn rpcbind_dump_lists_every_served_program() {
    let server = server();
    let client = Client::new(&server);
    let reply = client.call_raw(PMAP_PROGRAM, 4, 4, &[]);
    let list = decode_exact::<RpcbList<'_>>(results(&reply)).unwrap_or_else(|e| panic!("DUMP result: {e}"));
    assert!(list.0.iter().any(|r| r.prog == NFS_PROGRAM && r.vers == 3 && r.netid == b"tcp"));
    assert!(list.0.iter().all(|r| r.addr == b"127.0.0.1.78.81"));
}

#[test]
fn unsupported_rpcbind_procedures_are_proc_unavail() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(accept_stat(&client.call_raw(PMAP_PROGRAM, 3, 9, &[])), AcceptStat::ProcUnavail, "v3 has no 9");
    assert_eq!(accept_stat(&client.call_raw(PMAP_PROGRAM, 4, 11, &[])), AcceptStat::ProcUnavail);
    assert_eq!(accept_stat(&client.call_raw(PMAP_PROGRAM, 2, 3, &[0; 3])), AcceptStat::GarbageArgs);
}
