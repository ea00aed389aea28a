use crate::{entries, Entry, OptionsError, Origin, Proto};

fn keys(options: &str) -> Vec<(&str, Option<&str>)> {
    entries(options).map(|e| (e.key, e.value)).collect()
}

#[test]
fn entries_are_split_at_commas_trimmed_and_empty_ones_skipped() {
    assert_eq!(keys(" vers=3 ,, hard,\tnoac ,"), [("vers", Some("3")), ("hard", None), ("noac", None)]);
    assert!(keys("").is_empty() && keys(" , ,").is_empty());
}

#[test]
fn an_entry_splits_at_its_first_equals_sign_and_keeps_the_rest_as_written() {
    let e = Entry::parse("context=a=b");
    assert_eq!(e, Entry { raw: "context=a=b", key: "context", value: Some("a=b") });
    assert_eq!(keys("rsize=,proto= rdma"), [("rsize", Some("")), ("proto", Some(" rdma"))]);
    assert_eq!(entries("a, b=1 ").map(|e| e.raw).collect::<Vec<_>>(), ["a", "b=1"]);
}

fn proto(raw: &str) -> Option<Result<Proto, OptionsError>> {
    Proto::from_entry(&Entry::parse(raw))
}

#[test]
fn the_transport_is_read_from_proto_and_from_the_tcp_and_rdma_flags() {
    assert_eq!(proto("proto=tcp"), Some(Ok(Proto::Tcp)));
    assert_eq!(proto("proto=rdma"), Some(Ok(Proto::Rdma)));
    assert_eq!(proto("tcp"), Some(Ok(Proto::Tcp)));
    assert_eq!(proto("rdma"), Some(Ok(Proto::Rdma)));
    for other in ["nconnect=2", "mountproto=tcp", "vers=3", "rdma_credits=8", "notcp"] {
        assert_eq!(proto(other), None, "{other}");
    }
}

#[test]
fn a_transport_the_client_does_not_speak_is_refused_as_the_mount_parser_refuses_it() {
    for raw in ["udp", "proto=udp", "proto=tcp6", "proto=rdma6", "proto=udp6"] {
        assert!(matches!(proto(raw), Some(Err(OptionsError::Unsupported { .. }))), "{raw}");
    }
    let bad = proto("proto=sctp").expect("about the transport").expect_err("sctp");
    assert_eq!(bad.to_string(), "invalid value in mount option 'proto=sctp': proto is tcp or rdma");
    assert_eq!(
        proto("proto"),
        Some(Err(OptionsError::MissingValue { origin: Origin::MountOption, option: "proto".into() }))
    );
    assert_eq!(
        proto("tcp=1"),
        Some(Err(OptionsError::UnexpectedValue { origin: Origin::MountOption, option: "tcp=1".into() }))
    );
    for raw in ["udp", "proto=sctp", "proto", "tcp=1", "rdma=0"] {
        let from_entry = proto(raw).expect("about the transport").expect_err(raw);
        assert_eq!(Some(from_entry), super::error(raw).0.into(), "{raw}");
    }
}

#[test]
fn the_last_transport_entry_is_the_spec_s_proto() {
    for options in ["rdma,proto=tcp", "proto=tcp,nconnect=2,rdma", "nconnect=2", "tcp,rdma,tcp"] {
        let last = entries(options).filter_map(|e| Proto::from_entry(&e)).last().map_or(Ok(Proto::default()), |p| p);
        assert_eq!(last, Ok(super::spec(options).proto), "{options}");
    }
}
