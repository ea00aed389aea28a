use super::*;
use mount_options::LinkSpec;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

type Calls = Arc<Mutex<Vec<String>>>;

/// Answers `ip route get` with `route`, `tc qdisc show` with `shown`, everything else with success,
/// and records every command line.
struct Fake {
    route: String,
    shown: String,
    fail: Option<&'static str>,
    calls: Calls,
}

impl Runner for Fake {
    fn run(&self, program: &str, args: &[String]) -> Result<String, LinkError> {
        let line = format!("{program} {}", args.join(" "));
        self.calls.lock().expect("calls").push(line.clone());
        if self.fail.is_some_and(|f| line.contains(f)) {
            return Err(LinkError::Refused { argv: line, message: "RTNETLINK answers: File exists".into() });
        }
        Ok(match (program, args.first().map(String::as_str)) {
            ("ip", _) => self.route.clone(),
            ("tc", Some("qdisc")) if args.get(1).map(String::as_str) == Some("show") => self.shown.clone(),
            _ => String::new(),
        })
    }
}

fn fake(route: &str, shown: &str, fail: Option<&'static str>) -> (Box<Fake>, Calls) {
    let calls = Calls::default();
    (Box::new(Fake { route: route.into(), shown: shown.into(), fail, calls: calls.clone() }), calls)
}

fn calls(c: &Calls) -> Vec<String> {
    c.lock().expect("calls").clone()
}

const ADDR: &str = "10.99.0.1";
const ROUTE: &str = "10.99.0.1 from 10.99.0.2 dev nfsb1 table 100 src 10.99.0.2 uid 0 \\    cache\n";

#[test]
fn the_delay_goes_on_the_routes_device_for_the_target_only_and_comes_off() {
    let (runner, c) = fake(ROUTE, "", None);
    let link = LinkSpec::parse("rtt=20ms,rate=1gbit,loss=0.1%").expect("spec");
    let addr: IpAddr = ADDR.parse().expect("addr");
    let delay = PathDelay::apply(addr, &link, runner).expect("applied");
    assert_eq!(
        delay.describe(),
        "netem delay 20000us rate 1000000000bit loss 0.1% limit 200000 on nfsb1 for packets to 10.99.0.1"
    );
    delay.remove().expect("removed");
    assert_eq!(
        calls(&c),
        [
            "ip -o route get 10.99.0.1",
            "tc qdisc add dev nfsb1 root handle 4e42: prio bands 4",
            "tc qdisc add dev nfsb1 parent 4e42:4 handle 4e43: netem delay 20000us rate 1000000000bit loss 0.1% limit 200000",
            "tc filter add dev nfsb1 parent 4e42: protocol ip prio 1 u32 match ip dst 10.99.0.1/32 flowid 4e42:4",
            "tc qdisc del dev nfsb1 root handle 4e42:",
        ]
    );
}

#[test]
fn a_failure_half_way_takes_off_what_was_put_on_and_dropping_takes_it_off_too() {
    let (runner, c) = fake(ROUTE, "", Some("filter add"));
    let link = LinkSpec::rtt_only(std::time::Duration::from_millis(5));
    let e = PathDelay::apply(ADDR.parse().expect("addr"), &link, runner).expect_err("filter refused");
    assert!(e.to_string().contains("RTNETLINK answers: File exists"), "{e}");
    assert_eq!(calls(&c).last().map(String::as_str), Some("tc qdisc del dev nfsb1 root handle 4e42:"));

    let (runner, c) = fake(ROUTE, "", None);
    drop(PathDelay::apply(ADDR.parse().expect("addr"), &link, runner).expect("applied"));
    assert_eq!(calls(&c).last().map(String::as_str), Some("tc qdisc del dev nfsb1 root handle 4e42:"));
}

#[test]
fn a_path_that_stays_on_the_host_and_what_netem_cannot_do_are_refused_by_name() {
    let (runner, c) = fake("local 127.0.0.1 dev lo table local src 127.0.0.1 uid 0\n", "", None);
    let link = LinkSpec::rtt_only(std::time::Duration::from_millis(5));
    let e = PathDelay::apply("127.0.0.1".parse().expect("addr"), &link, runner).expect_err("lo");
    assert!(e.to_string().contains("stays on this host (dev lo)"), "{e}");
    assert_eq!(calls(&c).len(), 1, "nothing put on");
    for (spec, part) in [("rtt=5ms,jitter=1ms", "jitter"), ("rtt=5ms,tcp_window=1m", "tcp_window")] {
        let e = kernel_link_spec(&LinkSpec::parse(spec).expect("spec")).expect_err(spec);
        assert!(e.to_string().starts_with(&format!("--wan {part} is not for the kernel engine")), "{e}");
    }
    let (runner, _) = fake("garbage\n", "", None);
    let e = PathDelay::apply(ADDR.parse().expect("addr"), &link, runner).expect_err("no dev");
    assert!(e.to_string().contains("printed no device"), "{e}");
}

#[test]
fn ipv6_targets_get_an_ipv6_filter() {
    let (runner, c) = fake("fd00::1 from :: dev eth1 proto kernel src fd00::2 metric 256 pref medium\n", "", None);
    let link = LinkSpec::rtt_only(std::time::Duration::from_millis(1));
    let _delay = PathDelay::apply("fd00::1".parse().expect("addr"), &link, runner).expect("applied");
    assert!(
        calls(&c).iter().any(|l| l.contains("protocol ipv6 prio 1 u32 match ip6 dst fd00::1/128")),
        "{:?}",
        calls(&c)
    );
}

#[test]
fn a_sweep_takes_off_only_nfsbenchs_qdisc() {
    let (runner, c) =
        fake(ROUTE, "qdisc prio 4e42: root refcnt 2 bands 4 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1\n", None);
    let undone = sweep(ADDR.parse().expect("addr"), runner.as_ref()).expect("sweep");
    assert_eq!(undone.len(), 1);
    assert_eq!(calls(&c).last().map(String::as_str), Some("tc qdisc del dev nfsb1 root handle 4e42:"));
    let (runner, c) = fake(ROUTE, "qdisc noqueue 0: root refcnt 2\n", None);
    assert!(sweep(ADDR.parse().expect("addr"), runner.as_ref()).expect("sweep").is_empty());
    assert!(!calls(&c).iter().any(|l| l.contains(" del ")), "someone else's qdisc stays");
}
