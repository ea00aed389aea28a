use std::path::Path;
use std::time::Duration;

use mountstats::Verdict;

use super::{fail, link, mkdir, ok, recorded, remove, write, FakeRunner, Tree, PATIENT, QUICK};
use crate::attachment::{sweep, Attachment};
use crate::error::AttachError;
use crate::options::AttachOptions;
use crate::target::Target;

const IQN: &str = "iqn.2024-01.lab.nfsbench:ram0";
const STAT: &str = "5 0 40 1 0 0 0 0 0 1 1\n";

fn target(url: &str) -> Target {
    Target::parse(url).expect("target")
}

fn iser_target() -> Target {
    target(&format!("iser://10.99.0.1/{IQN}"))
}

fn options(target: &Target, text: &str) -> AttachOptions {
    AttachOptions::parse(target.kind, text).expect("options")
}

/// How the kernel prints the two-valued parameters: libiscsi's digits, or iscsiadm's words.
#[derive(Clone, Copy)]
enum Spelling {
    Digits,
    Words,
}

/// A logged-in session `sid` on SCSI host `host`, laid out as scsi_transport_iscsi.c does.
#[allow(clippy::too_many_arguments)]
fn session(
    root: &Path,
    sid: u32,
    host: u32,
    name: &str,
    address: &str,
    port: u16,
    proc_name: &str,
    spelling: Spelling,
) {
    let (no, yes, none) = match spelling {
        Spelling::Digits => ("0", "1", "0"),
        Spelling::Words => ("No", "Yes", "None"),
    };
    let host_dir = format!("devices/platform/host{host}");
    mkdir(root, &format!("{host_dir}/session{sid}"));
    let sess = format!("class/iscsi_session/session{sid}");
    link(root, &format!("{sess}/device"), &format!("../../../{host_dir}/session{sid}"));
    for (file, value) in [
        ("targetname", name),
        ("state", "LOGGED_IN"),
        ("first_burst_len", "65536"),
        ("max_burst_len", "262144"),
        ("immediate_data", no),
        ("initial_r2t", yes),
    ] {
        write(root, &format!("{sess}/{file}"), &format!("{value}\n"));
    }
    let conn = format!("class/iscsi_connection/connection{sid}:0");
    for (file, value) in [
        ("persistent_address", address),
        ("persistent_port", &port.to_string()),
        ("header_digest", none),
        ("data_digest", none),
        ("max_recv_dlength", "262144"),
        ("max_xmit_dlength", "131072"),
    ] {
        write(root, &format!("{conn}/{file}"), &format!("{value}\n"));
    }
    write(root, &format!("class/scsi_host/host{host}/proc_name"), &format!("{proc_name}\n"));
    write(root, &format!("class/scsi_host/host{host}/can_queue"), "113\n");
}

/// LUN `lun` of session `sid` with disk `disk`.
fn lun(root: &Path, sid: u32, host: u32, lun: u32, disk: &str) {
    mkdir(root, &format!("devices/platform/host{host}/session{sid}/target{host}:0:0/{host}:0:0:{lun}/block/{disk}"));
    write(root, &format!("block/{disk}/stat"), STAT);
    write(root, &format!("block/{disk}/device/queue_depth"), "64\n");
}

fn remove_session(root: &Path, sid: u32) {
    remove(root, &format!("class/iscsi_session/session{sid}"));
    remove(root, &format!("class/iscsi_connection/connection{sid}:0"));
}

/// A runner whose `--login` makes session 3 on host 2 with the given driver, LUNs 1 (sdc) and 0 (sdb).
fn logging_in(tree: &Tree, proc_name: &'static str, spelling: Spelling) -> (FakeRunner, super::Calls) {
    let root = tree.root();
    FakeRunner::new(move |argv| {
        if argv.iter().any(|a| a == "--login") {
            session(&root, 3, 2, IQN, "10.99.0.1", 3260, proc_name, spelling);
            lun(&root, 3, 2, 1, "sdc");
            lun(&root, 3, 2, 0, "sdb");
        } else if argv.iter().any(|a| a == "--logout") {
            remove_session(&root, 3);
        }
        ok("")
    })
}

fn attach(tree: &Tree, runner: FakeRunner, t: &Target, o: &AttachOptions) -> Result<Attachment, AttachError> {
    Attachment::attach_with(t, o, Box::new(runner), tree.sysfs(), QUICK)
}

#[test]
fn iser_attach_runs_new_update_login_and_reads_the_session() {
    let tree = Tree::new("iser-attach");
    let (runner, calls) = logging_in(&tree, "iscsi_iser", Spelling::Digits);
    let t = iser_target();
    let o = options(
        &t,
        "max_recv_dlength=262144,first_burst=262144,immediate_data=Yes,initial_r2t=No,queue_depth=64,cmds_max=128",
    );
    let a = attach(&tree, runner, &t, &o).expect("attach");
    let node = format!("-m node -T {IQN} -p 10.99.0.1:3260 -I iser");
    assert_eq!(
        recorded(&calls),
        [
            format!("iscsiadm -m node -o new -T {IQN} -p 10.99.0.1:3260 -I iser"),
            format!("iscsiadm {node} -o update -n node.conn[0].iscsi.MaxRecvDataSegmentLength -v 262144"),
            format!("iscsiadm {node} -o update -n node.session.iscsi.FirstBurstLength -v 262144"),
            format!("iscsiadm {node} -o update -n node.session.iscsi.ImmediateData -v Yes"),
            format!("iscsiadm {node} -o update -n node.session.iscsi.InitialR2T -v No"),
            format!("iscsiadm {node} -o update -n node.session.queue_depth -v 64"),
            format!("iscsiadm {node} -o update -n node.session.cmds_max -v 128"),
            format!("iscsiadm {node} --login"),
        ]
    );
    assert_eq!(a.device(), Path::new("/dev/sdb"));
    assert_eq!(
        a.negotiated(),
        "transport=iser,header_digest=None,data_digest=None,max_recv_dlength=262144,max_xmit_dlength=131072,\
         first_burst=65536,max_burst=262144,immediate_data=No,initial_r2t=Yes,queue_depth=64,state=LOGGED_IN"
    );
    assert_eq!(a.transport(), "kernel iSCSI initiator over iSER, session 3, sdb");
    assert!(
        a.proof().starts_with(&format!("{} = iscsi_iser", tree.path("class/scsi_host/host2/proc_name").display())),
        "{}",
        a.proof()
    );
    assert!(a.proof().ends_with("session3/state = LOGGED_IN"), "{}", a.proof());
    let by = |key: &str| a.checks().iter().find(|c| c.key == key).expect(key).clone();
    assert_eq!(by("max_recv_dlength").verdict, Verdict::Same);
    let fb = by("first_burst");
    assert_eq!((fb.verdict, fb.negotiated.as_deref()), (Verdict::Differs, Some("65536")));
    assert!(fb.note.as_deref().is_some_and(|n| n.contains("smaller")), "{fb:?}");
    let imm = by("immediate_data");
    assert_eq!((imm.verdict, imm.negotiated.as_deref()), (Verdict::Differs, Some("No")));
    assert!(imm.note.as_deref().is_some_and(|n| n.contains("AND")), "{imm:?}");
    let r2t = by("initial_r2t");
    assert!(r2t.verdict == Verdict::Differs && r2t.note.as_deref().is_some_and(|n| n.contains("OR")), "{r2t:?}");
    assert_eq!(by("queue_depth").verdict, Verdict::Same);
    let cmds = by("cmds_max");
    assert_eq!((cmds.verdict, cmds.negotiated.as_deref()), (Verdict::NotShown, None));
    assert!(cmds.note.as_deref().is_some_and(|n| n.contains("host2 can_queue = 113")), "{cmds:?}");
    assert_eq!(a.stats().expect("stats").read_bytes(), 40 * 512);

    a.detach().expect("detach");
    let calls = recorded(&calls);
    assert_eq!(
        calls[calls.len() - 2..],
        [format!("iscsiadm {node} --logout"), format!("iscsiadm -m node -o delete -T {IQN} -p 10.99.0.1:3260 -I iser")]
    );
}

#[test]
fn iscsi_digests_in_iscsiadm_words_and_the_fallback_note() {
    let tree = Tree::new("iscsi-words");
    let (runner, calls) = logging_in(&tree, "iscsi_tcp", Spelling::Words);
    let t = target(&format!("iscsi://10.99.0.1/{IQN}"));
    let o = options(&t, "header_digest=CRC32C,None,data_digest=None,CRC32C,immediate_data=No");
    let a = attach(&tree, runner, &t, &o).expect("attach");
    assert!(recorded(&calls)[0].ends_with("-I default"), "{:?}", recorded(&calls));
    assert!(recorded(&calls)[1].ends_with("-n node.conn[0].iscsi.HeaderDigest -v CRC32C,None"));
    assert_eq!(a.transport(), "kernel iSCSI initiator over TCP, session 3, sdb");
    assert!(a.negotiated().starts_with("transport=tcp,header_digest=None,data_digest=None,"), "{}", a.negotiated());
    let hd = &a.checks()[0];
    assert_eq!((hd.verdict, hd.negotiated.as_deref()), (Verdict::Differs, Some("None")));
    assert!(hd.note.as_deref().is_some_and(|n| n.contains("fallback")), "{hd:?}");
    assert_eq!(a.checks()[1].verdict, Verdict::Same);
    assert_eq!(a.checks()[2].verdict, Verdict::Same);
}

#[test]
fn the_wrong_driver_is_an_error_and_the_login_undone() {
    let tree = Tree::new("iser-wrong-driver");
    let (runner, calls) = logging_in(&tree, "iscsi_tcp", Spelling::Digits);
    let t = iser_target();
    let e = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect_err("wrong driver");
    let text = e.to_string();
    assert!(matches!(e, AttachError::WrongTransport { .. }), "{e:?}");
    assert!(text.contains("host2/proc_name says iscsi_tcp, not iscsi_iser"), "{text}");
    let calls = recorded(&calls);
    assert!(calls[calls.len() - 2].ends_with("--logout") && calls[calls.len() - 1].contains("-o delete"), "{calls:?}");
    assert!(!tree.path("class/iscsi_session/session3").exists());
}

#[test]
fn the_old_iser_driver_name_is_accepted() {
    let tree = Tree::new("iser-old-name");
    let (runner, _calls) = logging_in(&tree, "iser", Spelling::Digits);
    let t = iser_target();
    attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect("attach");
}

#[test]
fn an_existing_session_is_refused_before_any_command() {
    let tree = Tree::new("iscsi-already");
    session(&tree.root(), 1, 0, IQN, "10.99.0.1", 3260, "iscsi_tcp", Spelling::Digits);
    let (runner, calls) = FakeRunner::new(|_| ok(""));
    let t = iser_target();
    let e = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect_err("already");
    assert!(e.to_string().contains("already attached (iSCSI session 1)"), "{e}");
    assert!(recorded(&calls).is_empty());
}

#[test]
fn a_refused_login_carries_iscsiadm_words_and_leaves_no_record() {
    let tree = Tree::new("iscsi-refused");
    let (runner, calls) = FakeRunner::new(|argv| {
        if argv.iter().any(|a| a == "--login") {
            login_failed()
        } else if argv.iter().any(|a| a == "--logout") {
            fail(21, "iscsiadm: No matching sessions found")
        } else {
            ok("")
        }
    });
    let t = iser_target();
    let e = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect_err("refused");
    let AttachError::Refused { argv, status, message } = &e else { panic!("{e:?}") };
    assert_eq!(argv.last().map(String::as_str), Some("--login"));
    assert_eq!(*status, Some(24));
    assert!(message.ends_with("iscsiadm: Could not log into all portals"), "{message}");
    let calls = recorded(&calls);
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert!(calls[3].contains("-o delete"), "{calls:?}");
}

/// iscsiadm's words for a login the target refused (exit 24, ISCSI_ERR_LOGIN_AUTH_FAILED).
fn login_failed() -> crate::runner::CommandOutput {
    crate::runner::CommandOutput {
        status: Some(24),
        stdout: format!("Logging in to [iface: iser, target: {IQN}, portal: 10.99.0.1,3260]\n"),
        stderr: "iscsiadm: Could not login to [iface: iser, target: x, portal: 10.99.0.1,3260].\n\
                 iscsiadm: initiator reported error (24 - iSCSI login failed due to authorization failure)\n\
                 iscsiadm: Could not log into all portals\n"
            .to_string(),
    }
}

#[test]
fn the_disk_may_appear_after_the_login() {
    let tree = Tree::new("iscsi-lag");
    let root = tree.root();
    let (runner, _calls) = FakeRunner::new(move |argv| {
        if argv.iter().any(|a| a == "--login") {
            session(&root, 4, 5, IQN, "10.99.0.1", 3260, "iscsi_iser", Spelling::Digits);
            let root = root.clone();
            // The SCSI scan finishes a little after iscsiadm returns.
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                lun(&root, 4, 5, 0, "sdd");
            });
        }
        ok("")
    });
    let t = iser_target();
    let a = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), PATIENT)
        .expect("attach");
    assert_eq!(a.device(), Path::new("/dev/sdd"));
}

#[test]
fn no_disk_is_an_error_and_the_login_undone() {
    let tree = Tree::new("iscsi-nodisk");
    let root = tree.root();
    let (runner, calls) = FakeRunner::new(move |argv| {
        if argv.iter().any(|a| a == "--login") {
            session(&root, 3, 2, IQN, "10.99.0.1", 3260, "iscsi_iser", Spelling::Digits);
        }
        ok("")
    });
    let t = iser_target();
    let e = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect_err("no disk");
    assert!(matches!(e, AttachError::NoBlockDevice { .. }), "{e:?}");
    assert!(e.to_string().contains("session 3 is up but no block device"), "{e}");
    assert!(recorded(&calls).last().is_some_and(|c| c.contains("-o delete")));
}

#[test]
fn a_login_without_a_session_is_an_error() {
    let tree = Tree::new("iscsi-nosession");
    // A session to the same target at another portal, and one to another target at ours.
    session(&tree.root(), 1, 0, IQN, "10.99.0.9", 3260, "iscsi_tcp", Spelling::Digits);
    session(&tree.root(), 2, 1, "iqn.2024-01.lab.other", "10.99.0.1", 3260, "iscsi_tcp", Spelling::Digits);
    let (runner, _calls) = FakeRunner::new(|_| ok(""));
    let t = iser_target();
    let e = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect_err("no session");
    assert!(e.to_string().contains("no session to") && e.to_string().contains("10.99.0.1:3260"), "{e}");
}

#[test]
fn detach_tolerates_nothing_to_undo_but_reports_a_refusal() {
    let tree = Tree::new("iscsi-detach");
    let (runner, _calls) = logging_in(&tree, "iscsi_iser", Spelling::Digits);
    let t = iser_target();
    let a = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect("attach");
    a.detach().expect("detach");

    let (runner, calls) = FakeRunner::new(|argv| {
        if argv.iter().any(|a| a == "--login") {
            ok("")
        } else {
            fail(21, "iscsiadm: No records found")
        }
    });
    crate::iscsi::detach(&t, "10.99.0.1".parse().expect("ip"), &runner).expect("nothing to undo is fine");
    assert_eq!(recorded(&calls).len(), 2);

    let (runner, _) = FakeRunner::new(|argv| {
        if argv.iter().any(|a| a == "--logout") {
            fail(8, "iscsiadm: Could not logout of all requested sessions")
        } else {
            ok("")
        }
    });
    let e = crate::iscsi::detach(&t, "10.99.0.1".parse().expect("ip"), &runner).expect_err("refused logout");
    assert!(e.to_string().contains("--logout` failed (exit status 8)"), "{e}");
}

#[test]
fn sweep_logs_out_leftover_sessions_and_deletes_the_record() {
    let tree = Tree::new("iscsi-sweep");
    let root = tree.root();
    session(&root, 1, 0, IQN, "10.99.0.1", 3260, "iscsi_iser", Spelling::Digits);
    session(&root, 12, 7, IQN, "10.99.0.1", 3260, "iscsi_tcp", Spelling::Digits);
    session(&root, 2, 1, IQN, "10.99.0.1", 3261, "iscsi_iser", Spelling::Digits);
    session(&root, 3, 2, "iqn.2024-01.lab.other", "10.99.0.1", 3260, "iscsi_iser", Spelling::Digits);
    let (runner, calls) = FakeRunner::new(|_| ok(""));
    let undone = sweep(&iser_target(), &runner, &tree.sysfs()).expect("sweep");
    assert_eq!(
        recorded(&calls),
        [
            "iscsiadm -m session -r 1 --logout".to_string(),
            "iscsiadm -m session -r 12 --logout".to_string(),
            format!("iscsiadm -m node -o delete -T {IQN} -p 10.99.0.1:3260 -I iser"),
        ]
    );
    assert_eq!(undone.len(), 3);
    assert!(undone[2].contains("node record") && undone[2].contains("iface iser"), "{undone:?}");

    // No record left: nothing to say about it.
    let (runner, _) = FakeRunner::new(|_| fail(21, "iscsiadm: No records found"));
    let empty = Tree::new("iscsi-sweep-empty");
    assert!(sweep(&iser_target(), &runner, &empty.sysfs()).expect("sweep").is_empty());
}

#[test]
fn the_host_is_found_without_the_device_link() {
    let tree = Tree::new("iscsi-nolink");
    let root = tree.root();
    let (runner, _calls) = FakeRunner::new(move |argv| {
        if argv.iter().any(|a| a == "--login") {
            session(&root, 3, 2, IQN, "10.99.0.1", 3260, "iscsi_iser", Spelling::Digits);
            lun(&root, 3, 2, 0, "sdb");
            // The device entry as a plain directory holding the target: the host is in its name.
            let link_path = root.join("class/iscsi_session/session3/device");
            std::fs::remove_file(&link_path).expect("unlink");
            mkdir(&root, "class/iscsi_session/session3/device/target2:0:0/2:0:0:0/block/sdb");
        }
        ok("")
    });
    let t = iser_target();
    let a = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect("attach");
    assert!(a.proof().contains("host2/proc_name"), "{}", a.proof());
}

#[test]
fn garbled_session_files_are_errors_naming_them() {
    for (file, content, expected) in [
        ("class/iscsi_connection/connection3:0/header_digest", "maybe\n", "0, 1, None or CRC32C"),
        ("class/iscsi_session/session3/initial_r2t", "\n", "a value"),
        ("class/iscsi_connection/connection3:0/max_recv_dlength", "lots\n", "a number"),
        ("class/scsi_host/host2/proc_name", "", "a value"),
    ] {
        let tree = Tree::new("iscsi-garbled");
        let root = tree.root();
        let (runner, calls) = FakeRunner::new(move |argv| {
            if argv.iter().any(|a| a == "--login") {
                session(&root, 3, 2, IQN, "10.99.0.1", 3260, "iscsi_iser", Spelling::Digits);
                lun(&root, 3, 2, 0, "sdb");
                write(&root, file, content);
            }
            ok("")
        });
        let t = iser_target();
        let e = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect_err(file);
        let text = e.to_string();
        assert!(text.contains(file) && text.contains(expected), "{file}: {text}");
        assert!(recorded(&calls).last().is_some_and(|c| c.contains("-o delete")), "{file}");
    }
}

#[test]
fn ipv6_portals_are_bracketed() {
    let tree = Tree::new("iscsi-ipv6");
    let root = tree.root();
    let (runner, calls) = FakeRunner::new(move |argv| {
        if argv.iter().any(|a| a == "--login") {
            session(&root, 3, 2, IQN, "fd00:0::1", 3260, "iscsi_tcp", Spelling::Digits);
            lun(&root, 3, 2, 0, "sdb");
        }
        ok("")
    });
    let t = target(&format!("iscsi://[fd00::1]/{IQN}"));
    let a = attach(&tree, runner, &t, &AttachOptions::none(t.kind)).expect("attach");
    assert_eq!(recorded(&calls)[0], format!("iscsiadm -m node -o new -T {IQN} -p [fd00::1]:3260 -I default"));
    assert_eq!(a.device(), Path::new("/dev/sdb"));
}

#[test]
fn options_of_another_kind_are_refused() {
    let tree = Tree::new("iscsi-kind");
    let (runner, calls) = FakeRunner::new(|_| ok(""));
    let t = iser_target();
    let o = AttachOptions::parse(crate::target::Kind::Iscsi, "header_digest=CRC32C").expect("iscsi options");
    let e = attach(&tree, runner, &t, &o).expect_err("kind mismatch");
    assert!(e.to_string().contains("read as iscsi options, not iser"), "{e}");
    assert!(recorded(&calls).is_empty());
}
