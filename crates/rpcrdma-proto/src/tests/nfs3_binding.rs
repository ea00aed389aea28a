use crate::nfs3_binding::{
    call_plan, ddp_eligible_item, nfs3_inline_result_len, nfs3_max_result_len, nfs3_proc, nfs3_reply_plan, CallPlan,
    DdpDirection, DdpItem, ReplyPlan, MOUNT_PROGRAM, NFSACL_PROGRAM, NFS_PROGRAM, NFS_V3, NLM_PROGRAM, NSM_PROGRAM,
};

#[test]
fn only_read_write_readlink_and_symlink_have_ddp_eligible_items() {
    let eligible: Vec<(u32, DdpItem)> =
        (0..=21).filter_map(|p| ddp_eligible_item(NFS_PROGRAM, NFS_V3, p).map(|i| (p, i))).collect();
    assert_eq!(
        eligible,
        [
            (nfs3_proc::READLINK, DdpItem::ReadlinkPath),
            (nfs3_proc::READ, DdpItem::ReadData),
            (nfs3_proc::WRITE, DdpItem::WriteData),
            (nfs3_proc::SYMLINK, DdpItem::SymlinkPath),
        ]
    );
    assert_eq!(DdpItem::WriteData.direction(), DdpDirection::Call);
    assert_eq!(DdpItem::SymlinkPath.direction(), DdpDirection::Call);
    assert_eq!(DdpItem::ReadData.direction(), DdpDirection::Reply);
    assert_eq!(DdpItem::ReadlinkPath.direction(), DdpDirection::Reply);
}

#[test]
fn mount_nfsacl_and_other_versions_have_nothing_eligible() {
    for (program, version) in
        [(MOUNT_PROGRAM, 3), (NFSACL_PROGRAM, 3), (NLM_PROGRAM, 4), (NSM_PROGRAM, 1), (NFS_PROGRAM, 4)]
    {
        for procedure in 0..=21 {
            assert_eq!(ddp_eligible_item(program, version, procedure), None, "{program} v{version} proc {procedure}");
        }
    }
}

#[test]
fn largest_results_follow_the_rfc_1813_layouts() {
    assert_eq!(nfs3_max_result_len(nfs3_proc::NULL, 0), Some(0));
    assert_eq!(nfs3_max_result_len(nfs3_proc::GETATTR, 0), Some(88));
    assert_eq!(nfs3_max_result_len(nfs3_proc::SETATTR, 0), Some(120));
    assert_eq!(nfs3_max_result_len(nfs3_proc::LOOKUP, 0), Some(248));
    assert_eq!(nfs3_max_result_len(nfs3_proc::ACCESS, 0), Some(96));
    assert_eq!(nfs3_max_result_len(nfs3_proc::READLINK, 0), Some(96 + 4096));
    assert_eq!(nfs3_max_result_len(nfs3_proc::READ, 4097), Some(104 + 4100));
    assert_eq!(nfs3_max_result_len(nfs3_proc::WRITE, 0), Some(136));
    assert_eq!(nfs3_max_result_len(nfs3_proc::CREATE, 0), Some(280));
    assert_eq!(nfs3_max_result_len(nfs3_proc::RENAME, 0), Some(236));
    assert_eq!(nfs3_max_result_len(nfs3_proc::LINK, 0), Some(208));
    assert_eq!(nfs3_max_result_len(nfs3_proc::READDIR, 8192), Some(8196));
    assert_eq!(nfs3_max_result_len(nfs3_proc::READDIRPLUS, 0), Some(92), "the failure result still fits");
    assert_eq!(nfs3_max_result_len(nfs3_proc::FSSTAT, 0), Some(144));
    assert_eq!(nfs3_max_result_len(nfs3_proc::FSINFO, 0), Some(140));
    assert_eq!(nfs3_max_result_len(nfs3_proc::PATHCONF, 0), Some(116));
    assert_eq!(nfs3_max_result_len(nfs3_proc::COMMIT, 0), Some(128));
    assert_eq!(nfs3_max_result_len(22, 0), None);
    assert_eq!(nfs3_inline_result_len(nfs3_proc::READ), Some(104));
    assert_eq!(nfs3_inline_result_len(nfs3_proc::GETATTR), None);
}

#[test]
fn small_replies_go_inline_read_data_by_write_chunk_and_directories_by_reply_chunk() {
    let plan = |p, count, inline| nfs3_reply_plan(p, count, 24, inline);
    assert_eq!(plan(nfs3_proc::GETATTR, 0, 1024), Some(ReplyPlan::Inline));
    assert_eq!(plan(nfs3_proc::READ, 512, 4096), Some(ReplyPlan::Inline));
    assert_eq!(plan(nfs3_proc::READ, 1 << 20, 4096), Some(ReplyPlan::WriteChunk { len: 1 << 20 }));
    assert_eq!(plan(nfs3_proc::READLINK, 0, 1024), Some(ReplyPlan::WriteChunk { len: 4096 }));
    assert_eq!(plan(nfs3_proc::READDIR, 32768, 4096), Some(ReplyPlan::ReplyChunk { len: 24 + 4 + 32768 }));
    assert_eq!(plan(nfs3_proc::READDIRPLUS, 65536, 4096), Some(ReplyPlan::ReplyChunk { len: 24 + 4 + 65536 }));
    assert_eq!(plan(nfs3_proc::READ, 4096, 100), Some(ReplyPlan::ReplyChunk { len: 24 + 104 + 4096 }), "tiny inline");
    assert_eq!(plan(99, 0, 4096), None);
}

#[test]
fn calls_go_inline_then_by_read_chunk_then_whole_in_a_position_zero_chunk() {
    assert_eq!(call_plan(200, None, 3600), CallPlan::Inline);
    assert_eq!(call_plan(200 + (1 << 20), Some(1 << 20), 3600), CallPlan::ReadChunk);
    assert_eq!(call_plan(5000, None, 3600), CallPlan::LongCall);
    assert_eq!(call_plan(9000, Some(4000), 3600), CallPlan::LongCall, "the rest still too large");
}
