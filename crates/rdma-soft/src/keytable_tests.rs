//! Unit tests of the key table: handles, generations, bounds, rights and the busy guard.

use super::*;

fn peer_view(local: &LocalTable) -> RemoteTable {
    let table_fd = local.table().fd().try_clone_to_owned().expect("dup");
    let guard_fd = local.guard().fd().try_clone_to_owned().expect("dup");
    let table = SharedMem::map_peer(table_fd, table_len(), false).expect("map table");
    let guard = SharedMem::map_peer(guard_fd, guard_len(), true).expect("map guard");
    RemoteTable::new(table, guard).expect("layout")
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
    let local = LocalTable::new().expect("table");
    let remote = peer_view(&local);
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    let lease = remote.lease(seg(handle, 0x10100, 100), Access::REMOTE_READ).expect("lease");
    assert_eq!(lease.addr, 0x10100);
    lease.finish().expect("still valid");
    assert!(local.is_live(handle, 0x10000));
}

#[test]
fn rejects_ranges_outside_the_region_and_missing_rights() {
    let local = LocalTable::new().expect("table");
    let remote = peer_view(&local);
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    assert!(refused(remote.lease(seg(handle, 0x10000, 4097), Access::REMOTE_READ)).contains("leave the region"));
    assert!(refused(remote.lease(seg(handle, 0xffff, 1), Access::REMOTE_READ)).contains("leave the region"));
    assert!(refused(remote.lease(seg(handle, u64::MAX, u32::MAX), Access::REMOTE_READ)).contains("leave"));
    assert!(refused(remote.lease(seg(handle, 0x10000, 1), Access::REMOTE_WRITE)).contains("remote write"));
    assert!(refused(remote.lease(seg(handle ^ 1, 0x10000, 1), Access::REMOTE_READ)).contains("unknown"));
}

#[test]
fn an_old_handle_fails_after_deregistration_and_slot_reuse() {
    let local = LocalTable::new().expect("table");
    let remote = peer_view(&local);
    let old = local.register(0x10000, 4096, Access::REMOTE_WRITE).expect("register");
    local.deregister(old);
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
fn an_invalidation_during_an_access_fails_it_and_waits_for_it() {
    let local = LocalTable::new().expect("table");
    let remote = peer_view(&local);
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    let lease = remote.lease(seg(handle, 0x10000, 8), Access::REMOTE_READ).expect("lease");
    let deregistering = {
        let local = local.clone();
        std::thread::spawn(move || local.deregister(handle))
    };
    std::thread::sleep(Duration::from_millis(20));
    assert!(!deregistering.is_finished(), "deregistration must wait for the copy in flight");
    assert!(matches!(lease.finish(), Err(Refusal::Access(why)) if why.contains("during")));
    deregistering.join().expect("deregistered");
}

#[test]
fn a_closed_table_refuses_every_access() {
    let local = LocalTable::new().expect("table");
    let remote = peer_view(&local);
    let handle = local.register(0x10000, 4096, Access::REMOTE_READ).expect("register");
    local.publish_posted(7);
    assert_eq!(remote.posted(), 7);
    local.close();
    assert_eq!(refused(remote.lease(seg(handle, 0x10000, 1), Access::REMOTE_READ)), "closed");
}
