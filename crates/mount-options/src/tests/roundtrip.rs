use std::net::{IpAddr, Ipv4Addr};

use crate::{MountSpec, OptionsError};

fn without_notices(mut spec: MountSpec) -> MountSpec {
    spec.notices.clear();
    spec
}

fn round_trip(target: &str, options: Option<&str>) {
    let first = MountSpec::parse(target, options).unwrap();
    let printed = first.option_string();
    let again = MountSpec::parse(target, Some(&printed)).unwrap();
    assert_eq!(without_notices(again.clone()), without_notices(first.clone()), "{printed}");
    assert_eq!(again.option_string(), printed, "the canonical string is a fixed point");
    if first.notices.is_empty() {
        assert_eq!(again, first, "with nothing to notice the specs are equal outright");
    }
}

#[test]
fn the_option_string_of_the_issue_example_is_canonical() {
    let s = MountSpec::parse(
        "127.0.0.1:/export",
        Some("vers=3,proto=tcp,port=2049,nconnect=16,rsize=1048576,wsize=1048576,timeo=600,retrans=2,remoteports=127.0.0.1-127.0.0.4"),
    )
    .unwrap();
    assert_eq!(
        s.option_string(),
        "vers=3,proto=tcp,port=2049,mountport=0,mountproto=tcp,nconnect=16,rsize=1048576,wsize=1048576,timeo=600,\
         retrans=2,hard,rw,sec=sys,remoteports=127.0.0.1-127.0.0.4"
    );
}

#[test]
fn parsing_the_option_string_again_gives_the_same_spec() {
    round_trip("server:/export", None);
    round_trip("server:/export", Some("vers=3,proto=tcp,port=2049,nconnect=16,remoteports=127.0.0.1-127.0.0.4"));
    round_trip("server:/export", Some("rdma,nconnect=3,soft,ro,timeo=15,retrans=0,mountport=20048"));
    round_trip("server:/export", Some("rdma,port=0"));
    round_trip("server:/export", Some("rsize=1000000,wsize=3000,timeo=9000,noac,nolock,softerr"));
    round_trip("server:/export", Some("remoteports=10.0.0.1~10.0.0.2~::1~10.0.0.9~10.0.0.3,nconnect=5"));
    round_trip("server:/export", Some("addr=192.0.2.1"));
    round_trip("[::1]:/export", Some("nconnect=2"));
    round_trip("nfs://h:2049/export?uid=7&gid=8&nconnect=4&dircache=0", None);
}

#[test]
fn connections_spread_round_robin_over_remoteports() {
    let s = MountSpec::parse("server:/export", Some("nconnect=6,remoteports=127.0.0.1-127.0.0.4")).unwrap();
    let last: Vec<u8> = s
        .connection_addrs()
        .unwrap()
        .iter()
        .map(|ip| match ip {
            IpAddr::V4(v4) => v4.octets()[3],
            IpAddr::V6(_) => 0,
        })
        .collect();
    assert_eq!(last, vec![1, 2, 3, 4, 1, 2]);
    assert_eq!(s.server_addr().unwrap(), IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)));
}

#[test]
fn without_remoteports_every_connection_goes_to_the_server() {
    let s = MountSpec::parse("127.0.0.9:/export", Some("nconnect=3")).unwrap();
    assert_eq!(s.connection_addrs().unwrap(), vec![IpAddr::V4(Ipv4Addr::new(127, 0, 0, 9)); 3]);
    let named = MountSpec::parse("localhost:/export", Some("nconnect=2")).unwrap();
    let addrs = named.connection_addrs().unwrap();
    assert_eq!(addrs.len(), 2);
    assert!(addrs[0].is_loopback() && addrs[0] == addrs[1], "{addrs:?}");
}

#[test]
fn an_unresolvable_server_is_an_error_naming_it() {
    let s = MountSpec::parse("no-such-host.invalid:/export", None).unwrap();
    match s.connection_addrs() {
        Err(e @ OptionsError::Resolve { .. }) => assert!(e.to_string().contains("'no-such-host.invalid'"), "{e}"),
        other => panic!("expected a resolve error, got {other:?}"),
    }
}

// Found by the fuzz target `mount_options` (fuzz/fuzz_targets/mount_options.rs): `-o port=0` overrides
// the port a URL gives (authority or `nfsport=`), leaving `port: None`, but `option_string()` prints
// nothing for `None` over TCP, so parsing the string again with the same URL brings the URL's port back.
// `mountport=0` against a URL's `mountport=` is the same. Fails until option_string() keeps the zero.
#[test]
fn port_zero_in_the_options_over_a_url_port_survives_the_round_trip() {
    round_trip("nfs://h:2049/export", Some("port=0"));
    round_trip("nfs://h/export?nfsport=2049", Some("port=0"));
}

#[test]
fn mountport_zero_in_the_options_over_a_url_mountport_survives_the_round_trip() {
    round_trip("nfs://h/export?mountport=20048", Some("mountport=0"));
}
