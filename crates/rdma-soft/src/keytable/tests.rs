//! Unit tests of the key table: handles, generations, bounds, rights, and the busy counters (never
//! waited for beyond a spin: quarantine, the hold limit, memory kept for a copy in flight).

use super::*;
use crate::sys::process::own_pid;

/// An owner's table and an accessor's view of it, whose busy counters the owner watches read-only.
fn pair() -> (Arc<LocalTable>, RemoteTable) {
    let owner = LocalTable::new().expect("table");
    let accessor = LocalTable::new().expect("table");
    let table_fd = owner.table().fd().try_clone_to_owned().expect("dup");
    let table = SharedMem::map_peer(table_fd, table_len(), false).expect("map table");
    let remote = RemoteTable::new(table, Arc::clone(accessor.guard())).expect("layout");
    let guard_fd = accessor.guard().fd().try_clone_to_owned().expect("dup");
    owner.set_peer(PeerProcess::new(own_pid()), SharedMem::map_peer(guard_fd, guard_len(), false).expect("map guard"));
    (owner, remote)
}

fn seg(handle: u32, offset: u64, length: u32) -> RemoteSegment {
    RemoteSegment { handle, offset, length }
}

fn refused(result: Result<Lease<'_>, Refusal>) -> String {
    match result {
        Err(Refusal::Access(why)) => why,
        Err(Refusal::Closed) => "closed".into(),
        Ok(_) => panic!("access was allowed"),
    }
}

#[test]
fn a_registered_range_is_leased_at_its_address() {
    let (local, remote) = pair();
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    let lease = remote.lease(seg(handle, 0x10100, 100), Access::REMOTE_READ).expect("lease");
    assert_eq!(lease.addr, 0x10100);
    lease.finish().expect("still valid");
    assert!(local.is_live(handle, 0x10000));
}

#[test]
fn rejects_ranges_outside_the_region_and_missing_rights() {
    let (local, remote) = pair();
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    assert!(refused(remote.lease(seg(handle, 0x10000, 4097), Access::REMOTE_READ)).contains("leave the region"));
    assert!(refused(remote.lease(seg(handle, 0xffff, 1), Access::REMOTE_READ)).contains("leave the region"));
    assert!(refused(remote.lease(seg(handle, u64::MAX, u32::MAX), Access::REMOTE_READ)).contains("leave"));
    assert!(refused(remote.lease(seg(handle, 0x10000, 1), Access::REMOTE_WRITE)).contains("remote write"));
    assert!(refused(remote.lease(seg(handle ^ 1, 0x10000, 1), Access::REMOTE_READ)).contains("unknown"));
}

#[test]
fn an_old_handle_fails_after_deregistration_and_slot_reuse() {
    let (local, remote) = pair();
    let old = local.register(0x10000, 4096, Access::REMOTE_WRITE).expect("register");
    assert!(local.deregister(old), "no copy in flight: the slot is free at once");
    assert!(refused(remote.lease(seg(old, 0x10000, 1), Access::REMOTE_WRITE)).contains("invalidated"));
    // Cycle every slot so the old one is reused.
    let mut handles = Vec::new();
    for _ in 0..SLOTS {
        handles.push(local.register(0x10000, 4096, Access::REMOTE_WRITE).expect("register"));
    }
    assert!(handles.iter().all(|h| *h != old));
    assert!(refused(remote.lease(seg(old, 0x10000, 1), Access::REMOTE_WRITE)).contains("invalidated"));
}

#[test]
fn registration_beyond_capacity_is_invalid() {
    let local = LocalTable::new().expect("table");
    for _ in 0..SLOTS {
        local.register(0x1000, 1, Access::NONE).expect("register");
    }
    let err = local.register(0x1000, 1, Access::NONE).expect_err("full");
    assert!(matches!(err, RdmaError::Invalid(why) if why.contains("too many registrations")));
}

#[test]
fn a_copy_in_flight_quarantines_the_slot_without_waiting_and_fails_at_its_end() {
    let (local, remote) = pair();
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    let lease = remote.lease(seg(handle, 0x10000, 8), Access::REMOTE_READ).expect("lease");
    let started = Instant::now();
    assert!(!local.deregister(handle), "the copy is still in flight");
    // This thread holds the lease, so a deregistration that waited for the copy would never return; the
    // bound only says it did not spin long (generous: a loaded machine may preempt this thread).
    assert!(started.elapsed() < Duration::from_millis(500), "deregistration waited {:?}", started.elapsed());
    assert!(local.is_quarantined(handle));
    assert!(matches!(local.sweep(Instant::now), Sweep::Until(_)));
    // The quarantined slot is not handed out again while the counter is up.
    let others: Vec<u32> = (1..SLOTS).map(|_| local.register(0x1000, 1, Access::NONE).expect("register")).collect();
    assert!(others.iter().all(|h| split(*h).0 != split(handle).0));
    assert!(local.register(0x1000, 1, Access::NONE).is_err());
    assert!(matches!(lease.finish(), Err(Refusal::Access(why)) if why.contains("during")));
    // The counter fell: the next sweep ends the quarantine and the slot is free again.
    assert_eq!(local.sweep(Instant::now), Sweep::Clear);
    assert!(!local.is_quarantined(handle));
    let again = local.register(0x1000, 1, Access::NONE).expect("the slot came back");
    assert_eq!(split(again).0, split(handle).0);
    assert!(refused(remote.lease(seg(handle, 0x10000, 1), Access::REMOTE_READ)).contains("invalidated"));
}

#[test]
fn a_counter_held_past_the_limit_is_overdue_and_the_memory_stays_until_it_falls() {
    let (local, remote) = pair();
    let handle = local.register(0x10000, 4096, Access::REMOTE_WRITE).expect("register");
    let lease = remote.lease(seg(handle, 0x10000, 8), Access::REMOTE_WRITE).expect("lease");
    assert!(!local.deregister(handle));
    local.retire(handle, RegBuf::Writable(vec![7; 64]));
    assert!(local.slots().quarantine.iter().any(|q| q.handle == handle && q.buf.is_some()), "memory kept");
    let now = Instant::now();
    assert!(matches!(local.sweep(|| now), Sweep::Until(at) if at > now + HOLD_LIMIT));
    let later = now + HOLD_LIMIT + Duration::from_millis(2);
    assert!(matches!(local.sweep(|| later), Sweep::Overdue { slot, .. } if slot == split(handle).0));
    drop(lease);
    assert_eq!(local.sweep(|| later), Sweep::Clear);
    assert!(local.slots().quarantine.is_empty(), "memory freed once the counter fell");
    // Memory retired after its quarantine ended is freed at once.
    local.retire(handle, RegBuf::Writable(vec![1]));
    assert!(local.slots().quarantine.is_empty());
}

#[test]
fn the_peer_cannot_write_our_busy_counters() {
    let local = LocalTable::new().expect("table");
    let fd = local.guard().fd().try_clone_to_owned().expect("dup");
    assert!(SharedMem::map_peer(fd, guard_len(), true).is_err(), "sealed read-only for the peer");
}

#[test]
fn a_closed_table_refuses_every_access() {
    let (local, remote) = pair();
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    local.publish_posted(7);
    assert_eq!(remote.posted(), 7);
    local.close();
    assert_eq!(refused(remote.lease(seg(handle, 0x10000, 1), Access::REMOTE_READ)), "closed");
}
