//! A case's mount options are read by mount-options' own tokenizer and transport reading: the
//! transport is typed, a refused one is reported as the client reports it, and the case's mount is
//! parsed once into a `MountConfig`.

use compare::plan::{Case, Plan};
use compare::plan_file::{parse, Defaults};
use compare::validate::validate;
use mount_options::{OptionsError, Proto};

const DEFAULTS: Defaults = Defaults { numjobs: 2, size: 64 << 20 };
const TARGET: &str = "127.0.0.1:/export";

fn plan_of(case: Case) -> Plan {
    let mut plan = Plan::default_for(DEFAULTS);
    plan.cases.push(case);
    plan
}

fn toml_case(proto: &str) -> Case {
    let text = format!("[[case]]\nname = \"a\"\n[[case]]\nname = \"b\"\nproto = \"{proto}\"\noptions = \"noac\"\n");
    parse(&text, DEFAULTS).expect("parses").cases.remove(1)
}

#[test]
fn the_transport_comes_from_proto_or_the_tcp_and_rdma_flags_and_the_last_one_wins() {
    let c = Case::from_options("c", " rdma, nconnect=2 ,noac");
    assert_eq!((c.proto, c.nconnect, c.options.as_deref()), (Proto::Rdma, 2, Some("noac")));
    assert_eq!(c.mount_options(), "vers=3,proto=rdma,nconnect=2,noac");
    assert!(c.is_rdma());
    assert_eq!(Case::from_options("c", "proto=rdma,tcp").proto, Proto::Tcp);
    assert_eq!(Case::from_options("c", "vers=3").proto, Proto::Tcp);
    assert_eq!(toml_case("rdma").proto, Proto::Rdma);
    assert_eq!(toml_case("rdma").options.as_deref(), Some("noac"));
}

#[test]
fn a_transport_the_client_refuses_stays_as_written_and_is_reported_as_the_client_reports_it() {
    for case in [Case::from_options("udp", "vers=3,proto=udp"), toml_case("udp")] {
        assert_eq!(case.proto, Proto::Tcp);
        assert!(case.options.as_deref().is_some_and(|o| o.starts_with("proto=udp")), "{:?}", case.options);
        let unsupported = validate(&plan_of(case), Some(TARGET)).expect("valid");
        let why = unsupported.last().cloned().flatten().expect("not runnable");
        assert_eq!(why, "not supported yet: proto=udp (nfsbench's client speaks TCP and RDMA only)");
    }
    for case in [Case::from_options("b", "proto=sctp"), toml_case("sctp")] {
        let e = validate(&plan_of(case), Some(TARGET)).expect_err("bad value");
        assert_eq!(e.to_string(), "case 'b': invalid value in mount option 'proto=sctp': proto is tcp or rdma");
    }
    let flag = Case::from_options("c", "tcp=1");
    assert_eq!((flag.proto, flag.options.as_deref()), (Proto::Tcp, Some("tcp=1")));
}

#[test]
fn a_case_s_mount_config_is_its_options_and_rdma_settings_read_once() {
    let mut case = Case::from_options("r", "vers=3,proto=rdma,nconnect=2,rsize=65536,remoteports=127.0.0.1-127.0.0.2");
    case.rdma_credits = Some(32);
    case.rdma_inline = Some(8192);
    let config = case.mount_config().expect("parses");
    assert!(config.is_rdma());
    assert_eq!((config.spec.nconnect, config.spec.rsize, config.spec.remoteports.len()), (2, 65536, 2));
    assert_eq!((config.rdma.credits, config.rdma.inline_size), (32, 8192));
    let plain = Case::from_options("t", "vers=3").mount_config().expect("parses");
    assert_eq!(plain.rdma, mount_options::RdmaSettings::default());
    let v41 = Case::from_options("v", "vers=4.1,proto=rdma").mount_config().expect("NFSv4.1 runs");
    assert_eq!((v41.spec.vers.to_string(), v41.spec.port), ("4.1".to_string(), Some(20049)));
    let v40 = Case::from_options("v", "vers=4.0,proto=tcp").mount_config().expect_err("NFSv4.0");
    assert!(matches!(v40, OptionsError::Unsupported { ref option, .. } if option == "vers=4.0"), "{v40:?}");
}
