//! NFSv4.1 and NFSv4.2: how the version is written, its ports, the MOUNT options it ignores, trunking.

use std::net::{IpAddr, Ipv4Addr};

use super::{error, spec};
use crate::{MountSpec, NfsVersion, OptionsError, Proto};

fn ip(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 0, last))
}

#[test]
fn every_spelling_of_nfsv4_1_and_4_2_gives_that_minor_version() {
    for options in
        ["vers=4.1", "nfsvers=4.1", "v4.1", "vers=4,minorversion=1", "minorversion=1,vers=4", "minorversion=1,v4"]
    {
        assert_eq!(spec(options).vers, NfsVersion::V4_1, "{options}");
    }
    for options in ["vers=4.2", "nfsvers=4.2", "v4.2", "vers=4,minorversion=2", "vers=4.1,minorversion=2"] {
        assert_eq!(spec(options).vers, NfsVersion::V4_2, "{options}");
    }
}

#[test]
fn vers_4_alone_negotiates_4_2_then_4_1_as_linux_does() {
    for options in ["vers=4", "nfsvers=4", "v4"] {
        let s = spec(options);
        assert_eq!(s.vers, NfsVersion::V4, "{options}");
        assert_eq!(s.vers.minor_versions(), [2, 1]);
    }
    assert_eq!(NfsVersion::V4_1.minor_versions(), [1]);
    assert_eq!(NfsVersion::V4_2.minor_versions(), [2]);
    assert!(NfsVersion::V3.minor_versions().is_empty());
}

#[test]
fn the_last_version_wins_but_a_bare_vers_4_keeps_the_minor_version_as_in_the_kernel() {
    assert_eq!(spec("vers=4.1,vers=3").vers, NfsVersion::V3);
    assert_eq!(spec("vers=3,vers=4.2").vers, NfsVersion::V4_2);
    assert_eq!(spec("vers=4.1,vers=4").vers, NfsVersion::V4_1);
    assert_eq!(spec("vers=4.2,minorversion=1").vers, NfsVersion::V4_1);
}

#[test]
fn nfsv4_goes_to_port_2049_or_20049_without_the_port_mapper() {
    assert_eq!(spec("vers=4.1").port, Some(2049));
    assert_eq!(spec("vers=4.1,proto=rdma").port, Some(20049));
    assert_eq!(spec("vers=4.2,port=0").port, Some(2049), "port=0 means the well-known port for v4");
    assert_eq!(spec("vers=4.2,rdma,port=0").port, Some(20049));
    assert_eq!(spec("vers=4.1,port=3049").port, Some(3049));
    assert_eq!(spec("port=3049,vers=4.1,rdma").port, Some(3049));
    assert_eq!(spec("vers=3").port, None, "v3 still asks the port mapper");
}

#[test]
fn mount_side_options_are_accepted_on_nfsv4_with_a_notice_that_it_uses_no_mount() {
    let s = spec("mountport=20048,vers=4.1,mountproto=udp,mountvers=2");
    assert_eq!((s.mountport, s.mountproto), (None, Proto::Tcp));
    assert_eq!(s.notices.len(), 3, "{:?}", s.notices);
    for (notice, named) in s.notices.iter().zip(["'mountport=20048'", "'mountproto=udp'", "'mountvers=2'"]) {
        assert!(notice.contains(named) && notice.contains("NFSv4 uses no MOUNT protocol"), "{notice}");
    }
    let (e, _) = error("mountproto=rdma,vers=4.1");
    assert!(matches!(e, OptionsError::BadValue { .. }), "a malformed value is still refused: {e:?}");
}

#[test]
fn max_connect_trunks_an_nfsv4_session_over_that_many_remoteports() {
    let s = spec("vers=4.1,max_connect=3,remoteports=10.0.0.1-10.0.0.4");
    assert_eq!(s.max_connect, Some(3));
    assert_eq!(s.connection_addrs().unwrap(), [ip(1), ip(2), ip(3)], "one connection to each address");
    let s = spec("vers=4.1,nconnect=4,max_connect=2,remoteports=10.0.0.1-10.0.0.4");
    assert_eq!(s.connection_addrs().unwrap(), [ip(1), ip(2), ip(1), ip(2)]);
    assert!(s.notices.iter().any(|n| n.contains("max_connect=2: only the first 2 are used")), "{:?}", s.notices);
    let s = spec("vers=4.2,nconnect=4,remoteports=10.0.0.1-10.0.0.4");
    assert_eq!(s.connection_addrs().unwrap(), [ip(1), ip(2), ip(3), ip(4)], "without max_connect as v3 spreads");
}

#[test]
fn max_connect_without_other_addresses_or_on_nfsv3_says_it_has_no_effect() {
    let s = MountSpec::parse("127.0.0.1:/export", Some("vers=4.1,max_connect=4")).unwrap();
    assert_eq!(s.connection_addrs().unwrap().len(), 1);
    assert!(s.notices.iter().any(|n| n.contains("no other address of the server is named")), "{:?}", s.notices);
    let s = spec("vers=3,max_connect=2,remoteports=10.0.0.1-10.0.0.2");
    assert_eq!(s.connection_addrs().unwrap(), [ip(1)]);
    assert!(s.notices.iter().any(|n| n.contains("session trunking is NFSv4.1's")), "{:?}", s.notices);
}

#[test]
fn the_option_string_of_an_nfsv4_mount_names_no_mount_options_and_parses_back() {
    let s = spec("vers=4.1,nconnect=2,max_connect=2,remoteports=10.0.0.1-10.0.0.2");
    assert_eq!(
        s.option_string(),
        "vers=4.1,proto=tcp,port=2049,nconnect=2,max_connect=2,rsize=1048576,wsize=1048576,timeo=600,retrans=2,\
         hard,rw,sec=sys,remoteports=10.0.0.1-10.0.0.2"
    );
    for options in ["vers=4", "vers=4.2,rdma,nconnect=4", "v4.1,mountport=20048,port=0", "vers=3,max_connect=3"] {
        let first = MountSpec::parse("server:/export", Some(options)).unwrap();
        let again = MountSpec::parse("server:/export", Some(&first.option_string())).unwrap();
        assert_eq!(
            (again.vers, again.port, again.max_connect),
            (first.vers, first.port, first.max_connect),
            "{options}"
        );
        assert_eq!(again.option_string(), first.option_string(), "{options}");
    }
}
