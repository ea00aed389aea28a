//! Grace and reclaim (RFC 8881 §8.4.2, §18.51) and the reclaim record on disk.

use std::path::PathBuf;

use super::*;
use crate::handle::random_u64;

/// A scratch state directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("nfsbench-v4state-{}-{tag}-{:x}", std::process::id(), random_u64()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn persistent() -> StateConfig {
    StateConfig { reclaim: true, ..StateConfig::default() }
}

/// A server restarted with a record naming `owners`.
fn restarted(owners: &[&[u8]], now: Instant) -> V4State {
    V4State::new(persistent(), 8, now, Some(owners.iter().map(|o| o.to_vec()).collect()))
}

fn reclaim_open(st: &mut V4State, client: ClientId, f: FileKey, now: Instant) -> Result<OpenOk, StateError> {
    let args = OpenArgs {
        clientid: client,
        owner: b"o",
        file: f,
        access: SHARE_ACCESS_BOTH,
        deny: SHARE_DENY_NONE,
        claim: OpenClaim::Previous,
    };
    st.open(&args, now)
}

fn reclaim_lock(
    st: &mut V4State,
    client: ClientId,
    f: FileKey,
    open: Stateid,
    now: Instant,
) -> Result<Stateid, StateError> {
    let locker = Locker::New { open_stateid: open, owner: b"l" };
    let args = LockArgs {
        clientid: client,
        file: f,
        lock_type: LockType::Write,
        reclaim: true,
        offset: 0,
        length: 10,
        locker,
    };
    st.lock(&args, now)
}

#[test]
fn grace_begins_at_start_from_a_persisted_record() {
    let scratch = Scratch::new("start");
    let t0 = Instant::now();
    let mut before = V4State::new(persistent(), 7, t0, None);
    assert!(!before.in_grace(t0), "no record, no grace");
    let (a, _) = mount(&mut before, b"host-a", t0);
    assert_eq!(before.reclaim_record_update(t0), None, "nothing to record before RECLAIM_COMPLETE");
    before.reclaim_complete(a, false, t0).expect("complete");
    let record = before.reclaim_record_update(t0).expect("the record changed");
    assert_eq!(record.owners, vec![b"host-a".to_vec()]);
    let file = ReclaimFile::new(&scratch.0);
    file.save(&record).expect("save");
    assert_eq!(before.reclaim_record_update(t0), None, "taken once");

    let loaded = ReclaimFile::new(&scratch.0).load(1024, 1024).expect("load");
    assert_eq!(loaded, Some(vec![b"host-a".to_vec()]));
    let after = V4State::new(persistent(), 8, t0, loaded);
    assert!(after.in_grace(t0 + secs(89)) && !after.in_grace(t0 + secs(90)));
}

#[test]
fn reclaims_are_accepted_during_grace_and_refused_after() {
    let t0 = Instant::now();
    let mut st = restarted(&[b"host-a", b"host-b"], t0);
    let (a, _) = mount(&mut st, b"host-a", t0);
    let opened = reclaim_open(&mut st, a, file(1), t0).expect("reclaimed open");
    reclaim_lock(&mut st, a, file(1), opened.stateid, t0).expect("reclaimed lock");
    let late = t0 + secs(91);
    assert_eq!(reclaim_open(&mut st, a, file(2), late).map(|_| ()), Err(StateError::NoGrace));
    assert_eq!(reclaim_lock(&mut st, a, file(1), opened.stateid, late).map(|_| ()), Err(StateError::NoGrace));
    assert!(st.tick(late).grace_ended);
}

#[test]
fn during_grace_only_reclaims_pass() {
    let t0 = Instant::now();
    let mut st = restarted(&[b"host-a"], t0);
    let (a, _) = mount(&mut st, b"host-a", t0);
    let (c, _) = mount(&mut st, b"newcomer", t0);
    assert_eq!(open(&mut st, c, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE), Err(StateError::Grace));
    assert_eq!(open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE), Err(StateError::Grace));
    assert_eq!(st.lockt(a, file(1), LockType::Read, 0, 1, b"l", t0), Err(StateError::Grace));
    assert_eq!(reclaim_open(&mut st, c, file(1), t0).map(|_| ()), Err(StateError::NoGrace), "not listed");
    let opened = reclaim_open(&mut st, a, file(1), t0).expect("reclaim");
    let locker = Locker::New { open_stateid: opened.stateid, owner: b"l" };
    let plain = LockArgs {
        clientid: a,
        file: file(1),
        lock_type: LockType::Read,
        reclaim: false,
        offset: 0,
        length: 1,
        locker,
    };
    assert_eq!(st.lock(&plain, t0), Err(StateError::Grace));
    st.check_io(a, file(1), &opened.stateid, IoAccess::Write, t0).expect("I/O goes on during grace");
}

#[test]
fn grace_ends_early_when_every_listed_client_has_completed() {
    let t0 = Instant::now();
    let mut st = restarted(&[b"host-a", b"host-b"], t0);
    let (a, _) = mount(&mut st, b"host-a", t0);
    let (b, _) = mount(&mut st, b"host-b", t0);
    let (c, _) = mount(&mut st, b"newcomer", t0);
    st.reclaim_complete(c, false, t0).expect("an unlisted client completes too");
    st.reclaim_complete(a, false, t0).expect("complete");
    assert!(st.in_grace(t0));
    assert_eq!(reclaim_open(&mut st, a, file(1), t0).map(|_| ()), Err(StateError::NoGrace), "after its own completion");
    st.reclaim_complete(b, false, t0 + secs(1)).expect("complete");
    assert!(!st.in_grace(t0 + secs(1)), "the last listed client completed");
    open(&mut st, c, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("new opens now");
}

#[test]
fn reclaim_complete_twice_is_complete_already_and_one_fs_changes_nothing() {
    let t0 = Instant::now();
    let mut st = restarted(&[b"host-a"], t0);
    let (a, _) = mount(&mut st, b"host-a", t0);
    st.reclaim_complete(a, true, t0).expect("one fs");
    assert!(st.in_grace(t0));
    reclaim_open(&mut st, a, file(1), t0).expect("still reclaiming");
    st.reclaim_complete(a, false, t0).expect("complete");
    assert_eq!(st.reclaim_complete(a, false, t0), Err(StateError::CompleteAlready));
}

#[test]
fn a_memory_only_server_has_no_grace_and_keeps_no_record() {
    let t0 = Instant::now();
    let mut st = V4State::new(StateConfig::default(), 7, t0, Some(vec![b"host-a".to_vec()]));
    assert!(!st.in_grace(t0), "a record means nothing when nothing survives a restart");
    let (a, _) = mount(&mut st, b"host-a", t0);
    assert_eq!(reclaim_open(&mut st, a, file(1), t0).map(|_| ()), Err(StateError::NoGrace));
    st.reclaim_complete(a, false, t0).expect("complete");
    assert_eq!(st.reclaim_record_update(t0), None);
}

#[test]
fn the_record_keeps_listed_clients_through_grace_and_drops_expired_ones() {
    let t0 = Instant::now();
    let mut st = restarted(&[b"host-a", b"host-b"], t0);
    let (a, _) = mount(&mut st, b"host-a", t0);
    st.reclaim_complete(a, false, t0).expect("complete");
    let during = st.reclaim_record_update(t0).expect("changed");
    assert_eq!(during.owners, vec![b"host-a".to_vec(), b"host-b".to_vec()], "host-b may still reclaim after a crash");
    let after = st.reclaim_record_update(t0 + secs(90)).expect("grace over");
    assert_eq!(after.owners, vec![b"host-a".to_vec()]);
    assert!(after.version > during.version);
    st.tick(t0 + secs(200));
    assert_eq!(st.reclaim_record_update(t0 + secs(200)).map(|r| r.owners), Some(vec![]), "host-a expired");
}

#[test]
fn the_reclaim_file_round_trips_any_owner_bytes_and_ignores_older_versions() {
    let scratch = Scratch::new("roundtrip");
    let file = ReclaimFile::new(&scratch.0);
    assert_eq!(file.load(10, 16).expect("load"), None);
    let owners = vec![Vec::new(), vec![0, 0xff, b'\n'], b"Linux NFSv4.1 host".to_vec()];
    file.save(&ReclaimRecord { version: 2, owners: owners.clone() }).expect("save");
    file.save(&ReclaimRecord { version: 1, owners: vec![] }).expect("an older one is skipped");
    assert_eq!(ReclaimFile::new(&scratch.0).load(10, 32).expect("load"), Some(owners));
    file.save(&ReclaimRecord { version: 3, owners: vec![] }).expect("save");
    assert_eq!(ReclaimFile::new(&scratch.0).load(10, 32).expect("load"), Some(vec![]));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(file.path()).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(file.path().ends_with(RECLAIM_FILE));
}

#[test]
fn a_damaged_or_oversized_reclaim_file_is_refused() {
    let scratch = Scratch::new("damaged");
    let file = ReclaimFile::new(&scratch.0);
    file.save(&ReclaimRecord { version: 1, owners: vec![vec![1; 8], vec![2; 8]] }).expect("save");
    assert!(matches!(file.load(1, 8), Err(ReclaimFileError::Damaged { .. })), "more owners than allowed");
    assert!(matches!(file.load(10, 4), Err(ReclaimFileError::Damaged { .. })), "owners longer than allowed");
    for junk in ["", "something else\n", "nfsbench v4 reclaim record 1\nzz\n", "nfsbench v4 reclaim record 1\n0102"] {
        std::fs::write(file.path(), junk).expect("write");
        assert!(matches!(file.load(10, 8), Err(ReclaimFileError::Damaged { .. })), "{junk:?}");
    }
}
