use std::net::IpAddr;

use crate::error::AttachError;
use crate::target::{same_address, Kind, Target};

const NQN: &str = "nqn.2024-01.lab.nfsbench:ram0";
const IQN: &str = "iqn.2024-01.lab.nfsbench:ram0";

#[test]
fn urls_of_each_kind() {
    let t = Target::parse(&format!("nvme-rdma://10.99.0.1:4421/{NQN}")).expect("nvme-rdma");
    assert_eq!((t.kind, t.host.as_str(), t.port, t.name.as_str()), (Kind::NvmeRdma, "10.99.0.1", 4421, NQN));
    let t = Target::parse(&format!("nvme-tcp://filer.lab/{NQN}")).expect("nvme-tcp");
    assert_eq!((t.kind, t.host.as_str(), t.port), (Kind::NvmeTcp, "filer.lab", 4420));
    let t = Target::parse(&format!("iscsi://[fd00::1]:3261/{IQN}")).expect("iscsi ipv6");
    assert_eq!((t.kind, t.host.as_str(), t.port), (Kind::Iscsi, "fd00::1", 3261));
    let t = Target::parse(&format!("iser://[fe80::2]/{IQN}")).expect("iser ipv6 without port");
    assert_eq!((t.kind, t.port), (Kind::Iser, 3260));
    let t = Target::parse("iscsi://10.0.0.1/eui.02004567A425678D").expect("eui");
    assert_eq!(t.name, "eui.02004567A425678D");
    Target::parse("iscsi://10.0.0.1/naa.52004567BA64678D").expect("naa");
}

#[test]
fn canonical_urls() {
    let t = Target::parse(&format!("NVME-RDMA://10.99.0.1/{NQN}")).expect("upper-case scheme");
    assert_eq!(t.url(), format!("nvme-rdma://10.99.0.1:4420/{NQN}"));
    let t = Target::parse(&format!("iscsi://[fd00::1]/{IQN}")).expect("ipv6");
    assert_eq!(t.url(), format!("iscsi://[fd00::1]:3260/{IQN}"));
    assert_eq!(t.to_string(), t.url());
    assert_eq!(Target::parse(&t.url()).expect("round trip"), t);
}

#[test]
fn an_unknown_scheme_is_named_with_the_four() {
    let e = Target::parse(&format!("nvme-fc://10.0.0.1/{NQN}")).expect_err("nvme-fc");
    assert!(matches!(e, AttachError::UnknownScheme { .. }), "{e:?}");
    let text = e.to_string();
    for needle in ["'nvme-fc'", "nvme-tcp://", "nvme-rdma://", "iscsi://", "iser://"] {
        assert!(text.contains(needle), "{needle} missing from: {text}");
    }
}

#[test]
fn bad_urls_say_why() {
    let cases = [
        ("10.0.0.1:/export", "scheme"),
        (&format!("nvme-tcp:///{NQN}") as &str, "no host"),
        (&format!("nvme-tcp://:4420/{NQN}"), "no host"),
        ("nvme-tcp://10.0.0.1", "/NAME"),
        (&format!("nvme-tcp://10.0.0.1:0/{NQN}"), "port"),
        (&format!("nvme-tcp://10.0.0.1:70000/{NQN}"), "port"),
        (&format!("nvme-tcp://10.0.0.1:x/{NQN}"), "port"),
        (&format!("nvme-tcp://10.0.0.1:+80/{NQN}"), "port"),
        (&format!("nvme-tcp://fd00::1:4420/{NQN}"), "brackets"),
        (&format!("nvme-tcp://[fd00::1/{NQN}"), "']'"),
        (&format!("nvme-tcp://[not-v6]:1/{NQN}"), "IPv6"),
        (&format!("nvme-tcp://a b/{NQN}"), "host"),
    ];
    for (url, needle) in cases {
        let e = Target::parse(url).expect_err(url);
        let text = e.to_string();
        assert!(text.contains(url) && text.contains(needle), "{url}: {text}");
    }
}

#[test]
fn names_follow_the_kind() {
    let cases = [
        (format!("nvme-tcp://10.0.0.1/{IQN}"), "nqn."),
        (format!("iscsi://10.0.0.1/{NQN}"), "iqn., eui., naa."),
        ("iser://10.0.0.1/".to_string(), "empty"),
        ("nvme-rdma://10.0.0.1/nqn.a,b".to_string(), "','"),
        ("iscsi://10.0.0.1/iqn.a b".to_string(), "' '"),
        ("iscsi://10.0.0.1/iqn.a/b".to_string(), "'/'"),
        (format!("iscsi://10.0.0.1/iqn.{}", "x".repeat(300)), "223"),
    ];
    for (url, needle) in cases {
        let e = Target::parse(&url).expect_err(&url);
        assert!(matches!(e, AttachError::BadName { .. }), "{url}: {e:?}");
        assert!(e.to_string().contains(needle), "{url}: {e}");
    }
}

#[test]
fn target_urls_are_told_from_nfs_targets() {
    for yes in ["nvme-tcp://h/nqn.x", "NVME-RDMA://h/n", "iscsi://h/iqn.x", "iser://[::1]/iqn.x"] {
        assert!(Target::is_target_url(yes), "{yes}");
    }
    for no in ["10.0.0.1:/export", "nfs://h/x", "nvme-rdma:/x", "iser://", "", "ișcsi://h/x", "iscsi"] {
        assert!(!Target::is_target_url(no), "{no}");
    }
}

#[test]
fn kinds() {
    assert_eq!(Kind::ALL.len(), 4);
    for kind in Kind::ALL {
        assert_eq!(Kind::parse(&kind.to_string()).expect("round trip"), kind);
        assert_eq!(kind.to_string().parse::<Kind>().expect("FromStr"), kind);
    }
    assert_eq!(Kind::ALL.map(Kind::is_rdma), [false, true, false, true]);
    assert_eq!(Kind::ALL.map(Kind::default_port), [4420, 4420, 3260, 3260]);
    assert_eq!(Kind::parse("ISER"), Some(Kind::Iser));
    assert_eq!(Kind::parse("fc"), None);
    let e = "fc".parse::<Kind>().expect_err("fc");
    assert!(e.to_string().contains("'fc'") && e.to_string().contains("nvme-rdma"), "{e}");
}

#[test]
fn addresses_compare_as_addresses() {
    let v4: IpAddr = "10.99.0.1".parse().expect("v4");
    let v6: IpAddr = "fd00::1".parse().expect("v6");
    assert!(same_address("10.99.0.1", v4));
    assert!(same_address(" 10.99.0.1\n", v4));
    assert!(same_address("::ffff:10.99.0.1", v4));
    assert!(!same_address("10.99.0.10", v4));
    assert!(same_address("fd00:0:0::1", v6));
    assert!(same_address("[fd00::1]", v6));
    assert!(same_address("fd00::1%eth0", v6));
    assert!(!same_address("filer", v6));
    assert!(!same_address("", v6));
}
