//! The ORNL study's qualitative findings, and the terms behind them, in plain numbers.

use std::time::Duration;

use mount_options::Proto;

use crate::*;

const MIB: u64 = 1 << 20;
const TEN_GBIT: u64 = 10_000_000_000;
/// 10 Gbit/s of payload in bytes per second.
const LINK: f64 = 1.25e9;

fn ms(x: f64) -> Duration {
    Duration::from_secs_f64(x / 1e3)
}

fn input(proto: Proto, rw: Rw, bs: u64, iodepth: u32, rate_bps: Option<u64>) -> ModelInput {
    ModelInput {
        mount: Mount::new(proto),
        workload: Workload::new(rw, bs, iodepth),
        network: Network { rate_bps, ..Network::with_rtt(Duration::ZERO) },
        lan: LanBaseline::default(),
    }
}

fn bandwidth_at(input: &ModelInput, rtt_ms: f64) -> f64 {
    predict(&input.with_rtt(ms(rtt_ms))).bandwidth
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a / b - 1.0).abs() <= tolerance
}

#[test]
fn large_reads_keep_the_link_up_to_the_bandwidth_delay_product_then_fall_as_outstanding_over_rtt() {
    let reads = input(Proto::Rdma, Rw::Read, MIB, 16, Some(TEN_GBIT));
    for rtt in [0.0, 0.1, 1.0, 5.0, 10.0] {
        let out = predict(&reads.with_rtt(ms(rtt)));
        assert!(out.bandwidth >= 0.8 * LINK, "{rtt} ms: {}", out.explanation);
    }
    // 16 MiB in flight fill 10 Gbit/s up to ~13 ms; beyond it, 16 × 1 MiB per (RTT + 0.89 ms).
    let mut previous = f64::INFINITY;
    for rtt in [20.0, 40.0, 70.0, 140.0] {
        let out = predict(&reads.with_rtt(ms(rtt)));
        assert!(matches!(out.limit, Limit::OutstandingIo { .. }), "{rtt} ms: {}", out.explanation);
        let expected = 16.0 * MIB as f64 / (ms(rtt) + ms(0.05) + ms(0.838_860_8)).as_secs_f64();
        assert!(close(out.bandwidth, expected, 1e-9), "{rtt} ms: {} vs {expected}", out.bandwidth);
        assert!(out.bandwidth < previous);
        previous = out.bandwidth;
    }
    assert!(close(bandwidth_at(&reads, 70.0) / bandwidth_at(&reads, 140.0), 2.0, 0.01));
}

#[test]
fn small_reads_fall_as_one_over_rtt_once_it_dwarfs_the_lan_latency() {
    let reads = input(Proto::Rdma, Rw::Read, 4096, 16, Some(TEN_GBIT));
    assert!(close(bandwidth_at(&reads, 1.0) / bandwidth_at(&reads, 10.0), 10.0, 0.05));
    assert!(close(bandwidth_at(&reads, 10.0) / bandwidth_at(&reads, 100.0), 10.0, 0.01));
    // At 8,600 miles 4 KiB pages use under a thousandth of the link; 1 MiB I/O at the same depth moves
    // ~250 times as much.
    let far = rtt_of_distance_km(8600.0 * 1.609_344);
    let small = predict(&reads.with_rtt(far)).bandwidth;
    assert!(small < LINK / 1000.0, "{small}");
    let large = input(Proto::Rdma, Rw::Read, MIB, 16, Some(TEN_GBIT));
    assert!(predict(&large.with_rtt(far)).bandwidth > 250.0 * small);
}

#[test]
fn large_rdma_writes_take_twice_as_long_as_reads_when_latency_bound() {
    let reads = input(Proto::Rdma, Rw::Read, MIB, 16, Some(TEN_GBIT));
    let writes = input(Proto::Rdma, Rw::Write, MIB, 16, Some(TEN_GBIT));
    let (read, write) = (predict(&reads.with_rtt(ms(20.0))), predict(&writes.with_rtt(ms(20.0))));
    assert_eq!((read.round_trips, write.round_trips), (1, 2));
    assert_eq!(write.shape.placement, Placement::RdmaReadChunk);
    let ratio = read.bandwidth / write.bandwidth;
    assert!((1.9..2.0).contains(&ratio), "{ratio}");
    assert_eq!(write.breakdown.round_trips, ms(40.0));
    // Over TCP the payload rides the call: one round trip either way.
    let tcp_writes = input(Proto::Tcp, Rw::Write, MIB, 16, Some(TEN_GBIT));
    assert_eq!(predict(&tcp_writes.with_rtt(ms(20.0))).round_trips, 1);
    // Near the server the difference is the LAN latency's, not the distance's.
    assert!(bandwidth_at(&reads, 0.0) == bandwidth_at(&writes, 0.0));
}

#[test]
fn credits_matter_only_when_more_rpcs_are_outstanding_than_granted() {
    let credits = |n: u32, iodepth: u32| {
        let mut i = input(Proto::Rdma, Rw::Read, 4096, iodepth, Some(TEN_GBIT));
        i.mount.rdma_credits = n;
        predict(&i.with_rtt(ms(10.0)))
    };
    assert_eq!(credits(32, 16).bandwidth, credits(128, 16).bandwidth);
    assert_eq!(credits(32, 32).bandwidth, credits(128, 32).bandwidth);
    let (few, many) = (credits(32, 64), credits(128, 64));
    assert!(close(many.bandwidth / few.bandwidth, 2.0, 1e-9));
    assert!(matches!(few.limit, Limit::RdmaCredits { credits: 32, .. }), "{}", few.explanation);
    assert_eq!(few.in_flight_rpcs, 32);
    assert!(few.breakdown.queueing > ms(9.0), "the other 32 I/Os wait a whole RPC: {:?}", few.breakdown);
    // Over TCP there are no credits.
    let mut tcp = input(Proto::Tcp, Rw::Read, 4096, 64, None);
    tcp.mount.rdma_credits = 1;
    assert_eq!(predict(&tcp.with_rtt(ms(10.0))).in_flight_rpcs, 64);
}

#[test]
fn an_io_split_over_rsize_spends_credits_per_rpc() {
    let mut split = input(Proto::Rdma, Rw::Read, MIB, 64, None);
    split.mount.rsize = 256 << 10;
    let out = predict(&split.with_rtt(ms(10.0)));
    assert_eq!(out.shape.rpcs_per_io, 4);
    assert!(matches!(out.limit, Limit::RdmaCredits { credits: 128, .. }), "{}", out.explanation);
    assert_eq!(out.in_flight_rpcs, 128);
}

#[test]
fn a_tcp_window_of_6_mib_over_140_ms_carries_about_45_mb_per_second_per_connection() {
    let mut reads = input(Proto::Tcp, Rw::Read, MIB, 64, Some(TEN_GBIT));
    let one = predict(&reads.with_rtt(ms(140.0)));
    assert!(matches!(one.limit, Limit::TcpWindow { .. }), "{}", one.explanation);
    assert!(close(one.bandwidth, 44.94e6, 0.001), "{}", one.bandwidth);
    assert_eq!(one.explanation, "TCP window 6 MiB per connection over 140ms × 1 connection is 44.9 MB/s");
    reads.mount.nconnect = 4;
    assert!(close(bandwidth_at(&reads, 140.0), 4.0 * one.bandwidth, 1e-9));
    // At 10 ms one connection's window already holds it to half the link; RDMA has no window.
    let tcp = input(Proto::Tcp, Rw::Read, MIB, 16, Some(TEN_GBIT));
    assert!(bandwidth_at(&tcp, 10.0) < 0.55 * LINK);
}

#[test]
fn the_server_pulls_only_so_many_write_payloads_at_once() {
    let writes = input(Proto::Rdma, Rw::Write, MIB, 64, None);
    let out = predict(&writes.with_rtt(ms(20.0)));
    assert!(matches!(out.limit, Limit::RdmaReadDepth { depth: 16, .. }), "{}", out.explanation);
    assert!(close(out.bandwidth, 16.0 * MIB as f64 / 0.020, 1e-9));
    // At iodepth 16 the pulls never fill the depth.
    let shallow = input(Proto::Rdma, Rw::Write, MIB, 16, None);
    assert!(matches!(predict(&shallow.with_rtt(ms(20.0))).limit, Limit::OutstandingIo { .. }));
}

#[test]
fn latency_is_the_rpcs_until_a_ceiling_binds_then_queueing_adds_to_it() {
    let reads = input(Proto::Rdma, Rw::Read, MIB, 16, Some(TEN_GBIT));
    let far = predict(&reads.with_rtt(ms(20.0)));
    let b = far.breakdown;
    assert_eq!(far.latency, b.service + b.round_trips + b.serialisation);
    assert_eq!(b.queueing, Duration::ZERO);
    let near = predict(&reads.with_rtt(ms(1.0)));
    assert!(matches!(near.limit, Limit::LinkRate { .. }));
    assert!(near.breakdown.queueing > Duration::ZERO);
    assert!(close(near.latency.as_secs_f64(), 16.0 * MIB as f64 / LINK, 1e-6));
    assert!(close(near.iops * MIB as f64, near.bandwidth, 1e-12));
}

#[test]
fn a_lan_ceiling_caps_what_no_distance_can_raise() {
    let mut reads = input(Proto::Tcp, Rw::Read, MIB, 16, None);
    reads.lan.throughput = Some(3e9);
    let out = predict(&reads);
    assert!(matches!(out.limit, Limit::LanCeiling { .. }), "{}", out.explanation);
    assert_eq!(out.bandwidth, 3e9);
}

#[test]
fn a_sweep_changes_only_the_round_trip() {
    let reads = input(Proto::Rdma, Rw::Read, MIB, 16, Some(TEN_GBIT));
    let rtts = [ms(0.0), ms(10.0), ms(140.0)];
    let outs = sweep(&reads, &rtts);
    assert_eq!(outs.iter().map(|o| o.rtt).collect::<Vec<_>>(), rtts);
    assert_eq!(outs[2], predict(&reads.with_rtt(ms(140.0))));
}

#[test]
fn inputs_and_outputs_survive_json() {
    let i = input(Proto::Rdma, Rw::Write, MIB, 16, Some(TEN_GBIT)).with_rtt(ms(20.0));
    let text = serde_json::to_string(&i).expect("input to JSON");
    assert!(text.contains("\"rtt\":0.02") && text.contains("\"proto\":\"rdma\""), "{text}");
    assert_eq!(serde_json::from_str::<ModelInput>(&text).expect("input from JSON"), i);
    let out = predict(&i);
    let text = serde_json::to_string(&out).expect("output to JSON");
    assert!(text.contains("\"kind\":\"outstanding_io\""), "{text}");
    let back: ModelOutput = serde_json::from_str(&text).expect("output from JSON");
    assert!(close(back.bandwidth, out.bandwidth, 1e-12) && back.limit.name() == out.limit.name());
}
