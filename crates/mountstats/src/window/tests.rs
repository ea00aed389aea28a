use crate::{parse, Mount};

const BEFORE: &str = "device s:/e mounted on /m with fstype nfs statvers=1.1
\tevents:\t1 2 3
\tbytes:\t100 0 0 0
\txprt:\trdma 0 0 1 0 0 10 10 0 10 2 1 2 3 400 500 0 0 0 0 0 0 0 0 10 5 0 0
\tper-op statistics
\t        READ: 10 10 0 1000 40000 5 20 30 0
\t       WRITE: 4 4 0 9000 400 1 8 10 0
";

const AFTER: &str = "device s:/e mounted on /m with fstype nfs statvers=1.1
\tevents:\t1 5 3
\tbytes:\t300 0 0 0
\txprt:\trdma 0 0 1 0 0 30 29 1 50 12 11 2 3 900 5500 0 0 0 1 0 0 0 0 12 9 0 0
\txprt:\trdma 0 0 1 0 0 4 4 0 4 0 0 0 0 40 50 0 0 0 0 0 0 0 0 2 1 0 0
\tper-op statistics
\t        READ: 20 23 1 2000 80000 15 60 90 1
\t       WRITE: 4 4 0 9000 400 1 8 10 0
\t      COMMIT: 2 2 0 200 100 0 4 6 0
";

fn mount(text: &str) -> Mount {
    parse(text).unwrap().remove(0)
}

#[test]
fn derives_per_op_figures_from_the_growth_of_each_counter() {
    let w = mount(AFTER).delta(&mount(BEFORE));
    let names: Vec<&str> = w.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["READ", "COMMIT"], "an op that did nothing is left out");
    let read = &w.ops[0];
    assert_eq!((read.ops, read.ntrans, read.retransmissions, read.timeouts), (10, 13, 3, 1));
    assert_eq!((read.bytes_sent, read.bytes_recv, read.errors), (1000, 40000, Some(1)));
    assert_eq!((read.avg_rtt_ms, read.avg_exec_ms, read.avg_queue_ms), (Some(4.0), Some(6.0), Some(1.0)));
    let commit = &w.ops[1];
    assert_eq!((commit.ops, commit.avg_exec_ms), (2, Some(3.0)), "an op absent before counts from zero");
}

#[test]
fn matches_transports_by_position_and_counts_a_new_one_from_zero() {
    let w = mount(AFTER).delta(&mount(BEFORE));
    assert_eq!(w.transports.len(), 2);
    let t = &w.transports[0];
    assert_eq!((t.sends, t.recvs, t.bad_xids, t.bklog_u, t.req_u), (20, 19, 1, 10, 40));
    assert_eq!((t.avg_backlog, t.avg_requests), (Some(0.5), Some(2.0)));
    let r = t.rdma.as_ref().unwrap();
    assert_eq!((r.read_chunk_count, r.total_rdma_reply, r.failed_marshal_count), (10, 5000, 1));
    assert_eq!((r.mrs_allocated, r.local_inv_needed), (Some(2), Some(4)));
    let new = &w.transports[1];
    assert_eq!((new.sends, new.rdma.as_ref().unwrap().mrs_allocated), (4, Some(2)));
}

#[test]
fn subtracts_events_and_bytes_by_name() {
    let w = mount(AFTER).delta(&mount(BEFORE));
    assert_eq!(w.events.get("dentry_revalidate"), Some(3));
    assert_eq!(w.bytes.get("normal_read"), Some(200));
    assert_eq!(w.mountpoint, "/m");
}

#[test]
fn a_window_over_no_ops_has_no_averages() {
    let m = mount(BEFORE);
    let w = m.delta(&m);
    assert!(w.ops.is_empty());
    assert_eq!((w.transports[0].sends, w.transports[0].avg_backlog), (0, None));
}

#[test]
fn a_mount_without_statistics_gives_an_empty_window() {
    let m = mount("device tmpfs mounted on /t with fstype tmpfs\n");
    let w = m.delta(&m);
    assert!(w.ops.is_empty() && w.transports.is_empty() && w.events.is_empty());
}
