use crate::error::AttachError;
use crate::options::AttachOptions;
use crate::target::Kind;

fn parse(kind: Kind, text: &str) -> AttachOptions {
    AttachOptions::parse(kind, text).unwrap_or_else(|e| panic!("{kind} {text}: {e}"))
}

fn refusal(kind: Kind, text: &str) -> String {
    AttachOptions::parse(kind, text).map(|o| o.asked()).expect_err(text).to_string()
}

#[test]
fn nvme_options_in_canonical_form() {
    let o = parse(
        Kind::NvmeTcp,
        "nr_io_queues=4,nr_write_queues=2,nr_poll_queues=1,queue_size=128,keep_alive_tmo=5,ctrl_loss_tmo=-1,\
         reconnect_delay=2,hostnqn=nqn.2014-08.org.nvmexpress:uuid:abc,hostid=0F6B4B2E-1111-2222-3333-444455556666,\
         host_traddr=10.99.0.2,tos=0,hdr_digest,data_digest",
    );
    assert_eq!(
        o.asked(),
        "nr_io_queues=4,nr_write_queues=2,nr_poll_queues=1,queue_size=128,keep_alive_tmo=5,ctrl_loss_tmo=-1,\
         reconnect_delay=2,hostnqn=nqn.2014-08.org.nvmexpress:uuid:abc,hostid=0f6b4b2e-1111-2222-3333-444455556666,\
         host_traddr=10.99.0.2,tos=0,hdr_digest,data_digest"
    );
    assert_eq!(o.kind(), Kind::NvmeTcp);
    assert!(!o.is_empty());
}

#[test]
fn iscsi_options_in_canonical_form() {
    let o = parse(
        Kind::Iscsi,
        "header_digest=crc32c,none,data_digest=None,max_recv_dlength=262144,first_burst=65536,max_burst=262144,\
         immediate_data=yes,initial_r2t=No,queue_depth=64,cmds_max=128",
    );
    assert_eq!(
        o.asked(),
        "header_digest=CRC32C,None,data_digest=None,max_recv_dlength=262144,first_burst=65536,max_burst=262144,\
         immediate_data=Yes,initial_r2t=No,queue_depth=64,cmds_max=128"
    );
    // The canonical form reads back the same.
    assert_eq!(parse(Kind::Iscsi, &o.asked()).asked(), o.asked());
    let h = o.get("header_digest").expect("header_digest");
    assert_eq!(h.written, "header_digest=crc32c,none");
}

#[test]
fn the_last_occurrence_wins() {
    let o = parse(Kind::NvmeRdma, "queue_size=64,nr_io_queues=2,queue_size=256");
    assert_eq!(o.asked(), "nr_io_queues=2,queue_size=256");
    let o = parse(Kind::Iser, "max_burst=1024,max_burst=2048");
    assert_eq!(o.asked(), "max_burst=2048");
}

#[test]
fn empty_pieces_and_spaces_are_ignored() {
    assert!(parse(Kind::NvmeTcp, "").is_empty());
    assert!(parse(Kind::Iscsi, " , ,").is_empty());
    assert_eq!(parse(Kind::NvmeTcp, " nr_io_queues=2 ,, queue_size=32,").asked(), "nr_io_queues=2,queue_size=32");
    assert!(AttachOptions::none(Kind::Iser).is_empty());
}

#[test]
fn unknown_options_are_named_with_the_kind() {
    let e = AttachOptions::parse(Kind::NvmeRdma, "nr_io_queues=2,rsize=1048576").expect_err("rsize");
    assert!(matches!(e, AttachError::UnknownOption { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("'rsize=1048576'") && text.contains("nvme-rdma"), "{text}");
    assert!(text.contains("nr_io_queues") && !text.contains("hdr_digest"), "{text}");
    // An option of the other family is unknown too.
    let text = refusal(Kind::Iscsi, "queue_size=128");
    assert!(text.contains("'queue_size=128'") && text.contains("iscsi") && text.contains("max_burst"), "{text}");
    let text = refusal(Kind::NvmeTcp, "max_burst=1024");
    assert!(text.contains("'max_burst=1024'") && text.contains("nvme-tcp"), "{text}");
    // Case matters, as in the kernel's option parser.
    assert!(refusal(Kind::NvmeTcp, "NR_IO_QUEUES=2").contains("'NR_IO_QUEUES=2'"));
}

#[test]
fn digests_are_refused_where_the_transport_has_none() {
    let text = refusal(Kind::NvmeRdma, "hdr_digest");
    assert!(text.contains("nvme-rdma") && text.contains("'hdr_digest'") && text.contains("TCP only"), "{text}");
    assert!(refusal(Kind::NvmeRdma, "data_digest").contains("no PDU digests"));
    let text = refusal(Kind::Iser, "header_digest=CRC32C");
    assert!(text.contains("iser") && text.contains("'header_digest=CRC32C'") && text.contains("RFC 7145"), "{text}");
    assert!(refusal(Kind::Iser, "data_digest=None").contains("iSER has no digests"));
    parse(Kind::NvmeTcp, "hdr_digest,data_digest");
    parse(Kind::Iscsi, "header_digest=CRC32C,data_digest=CRC32C");
    assert!(!AttachOptions::accepted(Kind::Iser).contains(&"header_digest"));
    assert!(AttachOptions::accepted(Kind::Iscsi).contains(&"header_digest"));
    assert!(!AttachOptions::accepted(Kind::NvmeRdma).contains(&"hdr_digest"));
    assert_eq!(AttachOptions::accepted(Kind::NvmeTcp).len(), 13);
}

#[test]
fn values_are_checked() {
    let cases = [
        (Kind::NvmeTcp, "queue_size=8", "from 16 to 1024"),
        (Kind::NvmeTcp, "queue_size=2048", "from 16 to 1024"),
        (Kind::NvmeTcp, "nr_io_queues=0", "from 1 to"),
        (Kind::NvmeTcp, "nr_io_queues=-2", "from 1 to"),
        (Kind::NvmeTcp, "nr_io_queues=0x10", "whole number"),
        (Kind::NvmeTcp, "nr_io_queues=99999999999", "whole number"),
        (Kind::NvmeTcp, "ctrl_loss_tmo=-2", "from -1"),
        (Kind::NvmeTcp, "reconnect_delay=0", "from 1"),
        (Kind::NvmeTcp, "tos=256", "from 0 to 255"),
        (Kind::NvmeTcp, "nr_io_queues", "needs a value"),
        (Kind::NvmeTcp, "nr_io_queues=", "needs a value"),
        (Kind::NvmeTcp, "hdr_digest=1", "takes no value"),
        (Kind::NvmeTcp, "hostid=not-a-uuid", "UUID"),
        (Kind::NvmeTcp, "hostnqn=host1", "NQN"),
        (Kind::NvmeTcp, "host_traddr=eth0", "IP address"),
        (Kind::Iscsi, "max_recv_dlength=256", "from 512 to 16777215"),
        (Kind::Iscsi, "max_burst=16777216", "from 512 to 16777215"),
        (Kind::Iscsi, "cmds_max=8", "from 16 to 4096"),
        (Kind::Iscsi, "queue_depth=0", "from 1 to 65535"),
        (Kind::Iscsi, "immediate_data=maybe", "Yes or No"),
        (Kind::Iscsi, "header_digest=MD5", "CRC32C"),
        (Kind::Iscsi, "header_digest", "needs a value"),
        (Kind::Iscsi, "header_digest=CRC32C,CRC32C", "CRC32C,None"),
        (Kind::Iscsi, "data_digest=None,CRC32C,None", "None,CRC32C"),
    ];
    for (kind, text, needle) in cases {
        let e = AttachOptions::parse(kind, text).expect_err(text);
        let message = e.to_string();
        let written = text.split(',').next().unwrap_or(text);
        assert!(
            message.contains(needle) && message.contains(written) && message.contains(kind.as_str()),
            "{text}: {message}"
        );
    }
}

#[test]
fn a_bare_digest_word_only_continues_a_digest_option() {
    // `None` after another option is not a continuation: it is an unknown option.
    let text = refusal(Kind::Iscsi, "max_burst=1024,None");
    assert!(text.contains("'None'"), "{text}");
    let o = parse(Kind::Iscsi, "data_digest=None,CRC32C,header_digest=CRC32C");
    assert_eq!(o.asked(), "data_digest=None,CRC32C,header_digest=CRC32C");
}

#[test]
fn first_burst_may_not_exceed_max_burst() {
    let text = refusal(Kind::Iscsi, "first_burst=262144,max_burst=65536");
    assert!(
        text.contains("first_burst=262144") && text.contains("max_burst=65536") && text.contains("13.14"),
        "{text}"
    );
    parse(Kind::Iscsi, "first_burst=65536,max_burst=65536");
}
