use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use super::spec;
use crate::{kernel_io_size, MountSpec, NfsVersion, Proto};

fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

#[test]
fn the_mount_line_from_the_issue_parses_to_what_it_says() {
    let s = spec("vers=3,proto=tcp,port=2049,nconnect=16,rsize=1048576,wsize=1048576,timeo=600,retrans=2,remoteports=127.0.0.1-127.0.0.4");
    assert_eq!(s.server, "server");
    assert_eq!(s.export, "/export");
    assert_eq!(s.vers, NfsVersion::V3);
    assert_eq!(s.proto, Proto::Tcp);
    assert_eq!(s.port, Some(2049));
    assert_eq!(s.nconnect, 16);
    assert_eq!(s.rsize, 1_048_576);
    assert_eq!(s.wsize, 1_048_576);
    assert_eq!(s.timeo, Duration::from_secs(60));
    assert_eq!(s.retrans, 2);
    assert_eq!(s.remoteports, vec![v4(127, 0, 0, 1), v4(127, 0, 0, 2), v4(127, 0, 0, 3), v4(127, 0, 0, 4)]);
    assert!(s.notices.is_empty(), "{:?}", s.notices);
}

#[test]
fn no_options_give_the_linux_defaults_for_tcp() {
    let s = MountSpec::parse("server:/export", None).unwrap();
    assert_eq!(
        (s.vers, s.proto, s.port, s.mountport, s.mountproto),
        (NfsVersion::V3, Proto::Tcp, None, None, Proto::Tcp)
    );
    assert_eq!((s.portmapper_port, s.nconnect, s.rsize, s.wsize), (111, 1, 1_048_576, 1_048_576));
    assert_eq!((s.timeo, s.retrans, s.hard, s.read_only), (Duration::from_secs(60), 2, true, false));
    assert!(s.remoteports.is_empty() && s.notices.is_empty());
}

#[test]
fn the_default_identity_is_the_owner_of_proc_self() {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata("/proc/self").unwrap();
    let s = spec("");
    assert_eq!((s.uid, s.gid), (meta.uid(), meta.gid()));
}

#[test]
fn the_last_of_repeated_options_wins_as_in_the_kernel() {
    let s = spec("nconnect=2,soft,rsize=65536,nconnect=8,hard,ro,rw,proto=rdma,tcp,rsize=1000000,rsize=131072");
    assert_eq!((s.nconnect, s.hard, s.read_only, s.proto, s.rsize), (8, true, false, Proto::Tcp, 131_072));
    assert!(s.notices.is_empty(), "a later rsize drops the earlier rounding notice: {:?}", s.notices);
}

#[test]
fn rdma_defaults_to_port_20049_and_port_zero_asks_the_port_mapper() {
    assert_eq!(spec("proto=rdma").port, Some(20049));
    assert_eq!(spec("rdma").port, Some(20049));
    assert_eq!(spec("rdma,port=0").port, None);
    assert_eq!(spec("port=0,rdma").port, None);
    assert_eq!(spec("rdma,port=4791").port, Some(4791));
    assert_eq!(spec("port=0").port, None);
    assert_eq!(spec("port=2049,mountport=20048").mountport, Some(20048));
    assert_eq!(spec("mountport=0").mountport, None);
}

#[test]
fn version_mountversion_mountproto_and_sec_accept_their_nfsv3_values() {
    for opts in ["vers=3", "nfsvers=3", "v3", "mountvers=3", "mountproto=tcp", "sec=sys", "sec=sys:sys"] {
        assert_eq!(spec(opts).vers, NfsVersion::V3, "{opts}");
    }
}

#[test]
fn soft_and_softerr_are_not_hard_and_softerr_says_how_it_is_read() {
    assert!(!spec("soft").hard);
    let s = spec("softerr");
    assert!(!s.hard);
    assert_eq!(s.notices.len(), 1);
    assert!(s.notices[0].contains("'softerr' acts as 'soft'"), "{:?}", s.notices);
    assert!(spec("softerr,hard").notices.is_empty());
}

#[test]
fn io_sizes_follow_the_kernels_nfs_io_size() {
    let cases = [
        (1, 4096),
        (1023, 4096),
        (1024, 1024),
        (3000, 2048),
        (4096, 4096),
        (4097, 4096),
        (1_000_000, 999_424),
        (1_048_576, 1_048_576),
        (4_000_000, 1_048_576),
        (u32::MAX, 1_048_576),
    ];
    for (requested, used) in cases {
        assert_eq!(kernel_io_size(requested), used, "{requested}");
        assert_eq!(spec(&format!("wsize={requested}")).wsize, used, "{requested}");
    }
}

#[test]
fn a_changed_io_size_leaves_a_notice_saying_so() {
    assert_eq!(spec("rsize=1000000").notices[0].split(" (").next(), Some("rsize=1000000 rounded down to 999424"));
    assert!(spec("wsize=2097152").notices[0].starts_with("wsize=2097152 lowered to 1048576"));
    assert!(spec("rsize=512").notices[0].starts_with("rsize=512 raised to 4096"));
    assert!(spec("rsize=3000").notices[0].starts_with("rsize=3000 rounded down to 2048"));
    let zero = spec("rsize=0");
    assert_eq!(zero.rsize, 1_048_576);
    assert!(zero.notices[0].starts_with("rsize=0 leaves the size to the client"));
    assert!(spec("rsize=65536").notices.is_empty());
}

#[test]
fn timeo_is_deciseconds_and_capped_at_600_seconds_like_linux() {
    assert_eq!(spec("timeo=15").timeo, Duration::from_millis(1500));
    assert_eq!(spec("timeo=6000").timeo, Duration::from_secs(600));
    let capped = spec("timeo=9000");
    assert_eq!(capped.timeo, Duration::from_secs(600));
    assert!(capped.notices[0].starts_with("timeo=9000 lowered to 6000"));
    assert_eq!(spec("retrans=0").retrans, 0);
}

#[test]
fn remoteports_takes_a_range_a_tilde_list_or_both() {
    assert_eq!(spec("remoteports=10.0.0.7").remoteports, vec![v4(10, 0, 0, 7)]);
    assert_eq!(spec("remoteports=10.0.0.255-10.0.1.0").remoteports, vec![v4(10, 0, 0, 255), v4(10, 0, 1, 0)]);
    let list = spec("remoteports=10.0.0.1~::1~10.0.0.5-10.0.0.6,nconnect=4").remoteports;
    assert_eq!(list, vec![v4(10, 0, 0, 1), "::1".parse().unwrap(), v4(10, 0, 0, 5), v4(10, 0, 0, 6)]);
    assert_eq!(spec("remoteports=10.0.0.0-10.0.0.63,nconnect=16").remoteports.len(), 64);
}

#[test]
fn remoteports_longer_than_nconnect_leaves_a_notice() {
    let s = spec("remoteports=127.0.0.1-127.0.0.4,nconnect=2");
    assert_eq!(s.notices, vec!["remoteports names 4 addresses but nconnect=2: only the first 2 are used"]);
}

#[test]
fn addr_sets_the_address_to_connect_to_unless_remoteports_does() {
    assert_eq!(spec("addr=192.0.2.9").remoteports, vec![v4(192, 0, 2, 9)]);
    let both = spec("addr=192.0.2.9,remoteports=127.0.0.1");
    assert_eq!(both.remoteports, vec![v4(127, 0, 0, 1)]);
    assert!(both.notices[0].contains("'addr=192.0.2.9' has no effect"));
}

#[test]
fn options_without_effect_are_accepted_with_one_notice_each() {
    let opts = "ac,noac,actimeo=3,acregmin=1,acregmax=2,acdirmin=3,acdirmax=4,lookupcache=pos,cto,nocto,fsc,nofsc,\
                fsc=mytag,lock,nolock,local_lock=all,intr,nointr,bg,fg,retry=2,sharecache,nosharecache,resvport,\
                noresvport,namlen=255,clientaddr=10.0.0.1,acl,noacl,rdirplus,nordirplus,defaults,noatime,atime,\
                relatime,nodiratime,nosuid,suid,nodev,dev,noexec,exec,_netdev,sync,async,xprtsec=none";
    let s = spec(opts);
    // fsc and fsc=mytag share the key 'fsc': the later one replaces the earlier notice.
    assert_eq!(s.notices.len(), opts.split(',').count() - 1, "{:#?}", s.notices);
    assert!(s
        .notices
        .contains(&"mount option 'noac' has no effect: nfsbench's client keeps no attribute cache".into()));
    assert!(s
        .notices
        .iter()
        .any(|n| n.starts_with("mount option 'nolock' has no effect: nfsbench's client takes no locks")));
    assert!(spec("noac,noac").notices.len() == 1, "a repeated option leaves one notice");
}
