use std::path::Path;

use mountstats::Verdict;

use super::{fail, link, mkdir, ok, recorded, remove, words, write, FakeRunner, Tree, QUICK};
use crate::attachment::{sweep, Attachment};
use crate::error::AttachError;
use crate::nvme::connect_args;
use crate::options::AttachOptions;
use crate::target::Target;

const NQN: &str = "nqn.2024-01.lab.nfsbench:ram0";
const RDMA_ADDRESS: &str = "traddr=10.99.0.1,trsvcid=4420";
const STAT: &str = "    1  0  8  0  2  0  16  0  0  1  1  0  0  0  0  0  0\n";

fn target(url: &str) -> Target {
    Target::parse(url).expect("target")
}

fn rdma_target() -> Target {
    target(&format!("nvme-rdma://10.99.0.1/{NQN}"))
}

fn options(target: &Target, text: &str) -> AttachOptions {
    AttachOptions::parse(target.kind, text).expect("options")
}

/// A controller as drivers/nvme/host/core.c shows it.
fn controller(root: &Path, name: &str, transport: &str, address: &str, nqn: &str, state: &str) {
    let dir = format!("class/nvme/{name}");
    for (file, value) in [
        ("transport", transport),
        ("address", address),
        ("subsysnqn", nqn),
        ("state", state),
        ("queue_count", "3"),
        ("sqsize", "127"),
        ("kato", "5"),
        ("ctrl_loss_tmo", "600"),
        ("reconnect_delay", "10"),
        ("hostnqn", "nqn.2014-08.org.nvmexpress:uuid:host"),
        ("hostid", "0F6B4B2E-1111-2222-3333-444455556666"),
    ] {
        write(root, &format!("{dir}/{file}"), &format!("{value}\n"));
    }
}

/// Without native multipath: the disk is the controller's child.
fn direct_disk(root: &Path, ctrl: &str, disk: &str) {
    mkdir(root, &format!("class/nvme/{ctrl}/{disk}"));
    write(root, &format!("block/{disk}/stat"), STAT);
}

/// With native multipath: a hidden path node under the controller, the disk under the subsystem.
fn multipath_disk(root: &Path, ctrl: &str, subsys: u32, ns: u32) {
    let c = ctrl.trim_start_matches("nvme");
    mkdir(root, &format!("class/nvme/{ctrl}/nvme{subsys}c{c}n{ns}"));
    // The path node counts the controller's I/O; Linux 6.1 leaves the multipath disk's stat at 0.
    write(root, &format!("class/nvme/{ctrl}/nvme{subsys}c{c}n{ns}/stat"), STAT);
    let dir = format!("class/nvme-subsystem/nvme-subsys{subsys}");
    if !root.join(format!("{dir}/{ctrl}")).exists() {
        link(root, &format!("{dir}/{ctrl}"), &format!("../../nvme/{ctrl}"));
    }
    mkdir(root, &format!("{dir}/nvme{subsys}n{ns}"));
    write(root, &format!("block/nvme{subsys}n{ns}/stat"), ZERO_STAT);
}

const ZERO_STAT: &str = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

/// A tree with two online CPUs and an unrelated PCIe controller nvme0.
fn machine(tag: &str) -> Tree {
    let tree = Tree::new(tag);
    tree.file("devices/system/cpu/online", "0-1\n");
    controller(&tree.root(), "nvme0", "pcie", "0000:00:04.0", "nqn.2014.08.org.nvmexpress:1af41af4serial", "live");
    direct_disk(&tree.root(), "nvme0", "nvme0n1");
    tree
}

/// A runner whose `nvme connect` makes `nvme1` for the RDMA target with its disk laid out by `disk`.
fn connecting(tree: &Tree, disk: fn(&Path)) -> (FakeRunner, super::Calls) {
    let root = tree.root();
    FakeRunner::new(move |argv| match argv[1].as_str() {
        "connect" => {
            controller(&root, "nvme1", "rdma", RDMA_ADDRESS, NQN, "live");
            disk(&root);
            ok("device: nvme1\n")
        }
        "disconnect" => {
            remove(&root, "class/nvme/nvme1");
            ok("")
        }
        _ => fail(1, "unexpected command"),
    })
}

#[test]
fn connect_argv_for_each_nvme_kind() {
    let t = rdma_target();
    let args = connect_args(
        &t,
        "10.99.0.1".parse().expect("ip"),
        &options(&t, "nr_io_queues=8,queue_size=1024,ctrl_loss_tmo=-1"),
    );
    assert_eq!(args, words(&format!("connect -t rdma -a 10.99.0.1 -s 4420 -n {NQN} -i 8 -Q 1024 -l -1")));
    let t = target(&format!("nvme-tcp://[fd00::1]:4421/{NQN}"));
    let o = options(
        &t,
        "nr_write_queues=1,nr_poll_queues=1,keep_alive_tmo=5,reconnect_delay=2,hostnqn=nqn.h,hostid=0f6b4b2e-1111-2222-3333-444455556666,host_traddr=fd00::2,tos=4,hdr_digest,data_digest",
    );
    let args = connect_args(&t, "fd00::1".parse().expect("ip"), &o);
    assert_eq!(
        args,
        words(&format!(
            "connect -t tcp -a fd00::1 -s 4421 -n {NQN} -W 1 -P 1 -k 5 -c 2 -q nqn.h -I 0f6b4b2e-1111-2222-3333-444455556666 -w fd00::2 -T 4 -g -G"
        ))
    );
}

#[test]
fn attach_without_multipath_reads_what_the_controller_holds() {
    let tree = machine("nvme-direct");
    let (runner, calls) = connecting(&tree, |root| direct_disk(root, "nvme1", "nvme1n1"));
    let t = rdma_target();
    let o = options(&t, "nr_io_queues=8,queue_size=1024,keep_alive_tmo=5,ctrl_loss_tmo=600,tos=8");
    let a = Attachment::attach_with(&t, &o, Box::new(runner), tree.sysfs(), QUICK).expect("attach");
    assert_eq!(a.device(), Path::new("/dev/nvme1n1"));
    assert_eq!(
        a.negotiated(),
        "transport=rdma,traddr=10.99.0.1,trsvcid=4420,queue_count=3,sqsize=127,state=live,kato=5,ctrl_loss_tmo=600,\
         reconnect_delay=10,hostnqn=nqn.2014-08.org.nvmexpress:uuid:host,hostid=0F6B4B2E-1111-2222-3333-444455556666"
    );
    assert_eq!(a.transport(), "kernel NVMe/RDMA initiator, nvme1, 2 I/O queues × 128");
    assert_eq!(a.proof(), format!("{} = rdma, state = live", tree.path("class/nvme/nvme1/transport").display()));
    let checks = a.checks();
    assert_eq!(checks.len(), 5);
    let by = |key: &str| checks.iter().find(|c| c.key == key).expect(key);
    let io = by("nr_io_queues");
    assert_eq!(
        (io.verdict, io.negotiated.as_deref(), io.asked.as_str()),
        (Verdict::Differs, Some("2"), "nr_io_queues=8")
    );
    assert!(io.note.as_deref().is_some_and(|n| n.contains("online CPUs (2)")), "{io:?}");
    let qs = by("queue_size");
    assert_eq!((qs.verdict, qs.negotiated.as_deref()), (Verdict::Differs, Some("128")));
    assert!(qs.note.as_deref().is_some_and(|n| n.contains("128") && n.contains("sqsize 127")), "{qs:?}");
    assert_eq!(by("keep_alive_tmo").verdict, Verdict::Same);
    assert_eq!(by("ctrl_loss_tmo").verdict, Verdict::Same);
    let tos = by("tos");
    assert_eq!((tos.verdict, tos.negotiated.as_deref()), (Verdict::NotShown, None));
    assert_eq!(a.stats().expect("stats").write_bytes(), 16 * 512);
    assert_eq!(
        recorded(&calls),
        [format!("nvme connect -t rdma -a 10.99.0.1 -s 4420 -n {NQN} -i 8 -Q 1024 -k 5 -l 600 -T 8")]
    );
    a.detach().expect("detach");
    assert_eq!(recorded(&calls).last().map(String::as_str), Some("nvme disconnect -d nvme1"));
    assert_eq!(recorded(&calls).len(), 2, "detach then no second disconnect from Drop");
}

#[test]
fn attach_with_native_multipath_finds_the_subsystem_disk() {
    let tree = machine("nvme-multipath");
    // Another subsystem's disk beside ours, and our namespaces 2 and 1: the first namespace wins.
    multipath_disk(&tree.root(), "nvme5", 0, 1);
    let (runner, _calls) = connecting(&tree, |root| {
        multipath_disk(root, "nvme1", 3, 2);
        multipath_disk(root, "nvme1", 3, 1);
    });
    let t = rdma_target();
    let a = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect("attach");
    assert_eq!(a.device(), Path::new("/dev/nvme3n1"));
    assert!(a.checks().is_empty());
    assert_eq!(a.stats().expect("stats").write_bytes(), 16 * 512, "counted on the path node nvme3c1n1");
}

#[test]
fn the_fabrics_driver_is_loaded_first_when_the_kernel_has_not_loaded_it() {
    let tree = machine("nvme-modprobe");
    remove(&tree.root(), "module/nvme_rdma");
    let root = tree.root();
    let (runner, calls) = FakeRunner::new(move |argv| match argv[1].as_str() {
        "nvme_rdma" => {
            mkdir(&root, "module/nvme_rdma");
            ok("")
        }
        "connect" => {
            controller(&root, "nvme1", "rdma", RDMA_ADDRESS, NQN, "live");
            direct_disk(&root, "nvme1", "nvme1n1");
            ok("device: nvme1\n")
        }
        _ => ok(""),
    });
    let t = rdma_target();
    let a = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect("attach");
    let calls = recorded(&calls);
    assert_eq!(calls[0], "modprobe nvme_rdma");
    assert!(calls[1].starts_with("nvme connect -t rdma"), "{calls:?}");
    a.detach().expect("detach");
}

#[test]
fn a_controller_that_was_there_before_is_not_taken() {
    let tree = machine("nvme-before");
    // A live controller for the same target, held by someone else before the connect.
    controller(&tree.root(), "nvme7", "rdma", RDMA_ADDRESS, NQN, "live");
    direct_disk(&tree.root(), "nvme7", "nvme7n1");
    let (runner, _calls) = connecting(&tree, |root| direct_disk(root, "nvme1", "nvme1n1"));
    let t = rdma_target();
    let a = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect("attach");
    assert_eq!(a.device(), Path::new("/dev/nvme1n1"));
}

#[test]
fn a_refused_connect_carries_nvme_cli_words() {
    let tree = machine("nvme-refused");
    let (runner, calls) = FakeRunner::new(|_| {
        fail(114, "Failed to write to /dev/nvme-fabrics: Operation already in progress\nalready connected\n")
    });
    let t = rdma_target();
    let e = Attachment::attach_with(&t, &options(&t, "queue_size=64"), Box::new(runner), tree.sysfs(), QUICK)
        .expect_err("refused");
    let AttachError::Refused { argv, status, message } = &e else { panic!("{e:?}") };
    assert_eq!(argv[..2], ["nvme".to_string(), "connect".to_string()]);
    assert_eq!(*status, Some(114));
    assert_eq!(message, "Failed to write to /dev/nvme-fabrics: Operation already in progress; already connected");
    let text = e.to_string();
    assert!(
        text.contains(&format!("`nvme connect -t rdma -a 10.99.0.1 -s 4420 -n {NQN} -Q 64` failed (exit status 114)")),
        "{text}"
    );
    assert_eq!(recorded(&calls).len(), 1, "nothing to undo");
}

#[test]
fn the_stdout_is_the_last_word_when_stderr_is_silent() {
    let tree = machine("nvme-stdout");
    let (runner, _calls) = FakeRunner::new(|_| crate::runner::CommandOutput {
        status: None,
        stdout: "no controller found\n".to_string(),
        stderr: "  \n".to_string(),
    });
    let t = rdma_target();
    let e = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("killed by a signal") && text.ends_with("no controller found"), "{text}");
}

#[test]
fn dropping_an_attachment_disconnects() {
    let tree = machine("nvme-drop");
    let (runner, calls) = connecting(&tree, |root| direct_disk(root, "nvme1", "nvme1n1"));
    let t = rdma_target();
    let a = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect("attach");
    drop(a);
    assert_eq!(recorded(&calls).last().map(String::as_str), Some("nvme disconnect -d nvme1"));
    assert!(!tree.path("class/nvme/nvme1").exists());
}

#[test]
fn a_reused_controller_name_is_not_disconnected() {
    let tree = machine("nvme-reused");
    let (runner, calls) = connecting(&tree, |root| direct_disk(root, "nvme1", "nvme1n1"));
    let t = rdma_target();
    let a = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect("attach");
    // The kernel dropped our controller (ctrl_loss_tmo) and someone else's took the name.
    controller(&tree.root(), "nvme1", "tcp", "traddr=10.7.7.7,trsvcid=4420", "nqn.other", "live");
    a.detach().expect("detach");
    assert_eq!(recorded(&calls).len(), 1, "only the connect: {:?}", recorded(&calls));
}

#[test]
fn no_disk_means_an_error_and_the_controller_undone() {
    let tree = machine("nvme-nodisk");
    let (runner, calls) = connecting(&tree, |_| {});
    let t = rdma_target();
    let e = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect_err("no disk");
    assert!(matches!(e, AttachError::NoBlockDevice { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("controller nvme1") && text.contains("nvme-subsystem") && text.contains(NQN), "{text}");
    assert_eq!(recorded(&calls).last().map(String::as_str), Some("nvme disconnect -d nvme1"));
}

#[test]
fn a_connect_that_leaves_no_controller_is_an_error() {
    let tree = machine("nvme-nocontroller");
    let (runner, calls) = FakeRunner::new(|_| ok(""));
    let t = rdma_target();
    let e = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect_err("no controller");
    let text = e.to_string();
    assert!(matches!(e, AttachError::NotFound { .. }), "{e:?}");
    assert!(
        text.contains("no new rdma controller") && text.contains("10.99.0.1:4420") && text.contains("class/nvme"),
        "{text}"
    );
    assert_eq!(recorded(&calls).len(), 1);
}

#[test]
fn a_controller_stuck_connecting_is_undone() {
    let tree = machine("nvme-stuck");
    let root = tree.root();
    let (runner, calls) = FakeRunner::new(move |argv| {
        if argv[1] == "connect" {
            controller(&root, "nvme1", "rdma", RDMA_ADDRESS, NQN, "connecting");
        }
        ok("")
    });
    let t = rdma_target();
    let e = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
        .expect_err("stuck");
    assert!(e.to_string().contains("nvme1 stayed in state 'connecting'"), "{e}");
    assert_eq!(recorded(&calls).last().map(String::as_str), Some("nvme disconnect -d nvme1"));
}

#[test]
fn garbled_controller_files_are_errors_naming_them() {
    for (file, content, expected) in [
        ("queue_count", "three\n", "a number"),
        ("sqsize", "", "a value"),
        ("ctrl_loss_tmo", "forever\n", "seconds or off"),
    ] {
        let tree = machine("nvme-garbled");
        let root = tree.root();
        let (runner, calls) = FakeRunner::new(move |argv| {
            if argv[1] == "connect" {
                controller(&root, "nvme1", "rdma", RDMA_ADDRESS, NQN, "live");
                direct_disk(&root, "nvme1", "nvme1n1");
                write(&root, &format!("class/nvme/nvme1/{file}"), content);
            }
            ok("")
        });
        let t = rdma_target();
        let e = Attachment::attach_with(&t, &AttachOptions::none(t.kind), Box::new(runner), tree.sysfs(), QUICK)
            .expect_err(file);
        let text = e.to_string();
        assert!(text.contains(&format!("nvme1/{file}")) && text.contains(expected), "{file}: {text}");
        assert_eq!(recorded(&calls).last().map(String::as_str), Some("nvme disconnect -d nvme1"), "{file}");
    }
}

#[test]
fn checks_follow_the_kernel_rules() {
    let tree = machine("nvme-rules");
    let root = tree.root();
    let (runner, _calls) = FakeRunner::new(move |argv| {
        if argv[1] == "connect" {
            controller(&root, "nvme1", "tcp", "traddr=fd00::1,trsvcid=4420,src_addr=fd00::2", NQN, "live");
            write(&root, "class/nvme/nvme1/queue_count", "5\n");
            write(&root, "class/nvme/nvme1/ctrl_loss_tmo", "10\n");
            write(&root, "class/nvme/nvme1/hostid", "0F6B4B2E-1111-2222-3333-444455556666\n");
            direct_disk(&root, "nvme1", "nvme1n1");
        }
        ok("")
    });
    let t = target(&format!("nvme-tcp://[fd00::1]/{NQN}"));
    let o = options(
        &t,
        "nr_io_queues=2,nr_write_queues=2,queue_size=128,ctrl_loss_tmo=5,host_traddr=fd00::2,hostid=0f6b4b2e-1111-2222-3333-444455556666,hdr_digest",
    );
    let a = Attachment::attach_with(&t, &o, Box::new(runner), tree.sysfs(), QUICK).expect("attach");
    let by = |key: &str| a.checks().iter().find(|c| c.key == key).expect(key).clone();
    // queue_count 5 = admin + 2 read + 2 write queues.
    assert_eq!(by("nr_io_queues").verdict, Verdict::Same);
    assert_eq!(by("nr_write_queues").verdict, Verdict::NotShown);
    assert_eq!(by("queue_size").verdict, Verdict::Same);
    let loss = by("ctrl_loss_tmo");
    assert_eq!((loss.verdict, loss.negotiated.as_deref()), (Verdict::Differs, Some("10")));
    assert!(loss.note.as_deref().is_some_and(|n| n.contains("DIV_ROUND_UP(5, 10)")), "{loss:?}");
    assert_eq!(by("host_traddr").verdict, Verdict::Same);
    assert_eq!(by("hostid").verdict, Verdict::Same);
    assert_eq!(by("hdr_digest").verdict, Verdict::NotShown);
    assert!(a.negotiated().contains("src_addr=fd00::2"), "{}", a.negotiated());
    assert_eq!(a.transport(), "kernel NVMe/TCP initiator, nvme1, 4 I/O queues × 128");
}

#[test]
fn fewer_queues_than_the_cpus_allow_is_the_target() {
    let tree = machine("nvme-grant");
    tree.file("devices/system/cpu/online", "0-7\n");
    let (runner, _calls) = connecting(&tree, |root| direct_disk(root, "nvme1", "nvme1n1"));
    let t = target(&format!("nvme-rdma://10.99.0.1/{NQN}"));
    let a = Attachment::attach_with(
        &t,
        &options(&t, "nr_io_queues=4,ctrl_loss_tmo=-1"),
        Box::new(runner),
        tree.sysfs(),
        QUICK,
    )
    .expect("attach");
    let io = &a.checks()[0];
    assert_eq!(io.verdict, Verdict::Differs);
    assert!(io.note.as_deref().is_some_and(|n| n.contains("completion vectors")), "{io:?}");
    // ctrl_loss_tmo=-1 is "off" in sysfs; the fixture shows 600.
    assert_eq!(a.checks()[1].verdict, Verdict::Differs);
}

#[test]
fn sweep_disconnects_every_leftover_of_the_target() {
    let tree = machine("nvme-sweep");
    let root = tree.root();
    controller(&root, "nvme2", "rdma", RDMA_ADDRESS, NQN, "live");
    controller(&root, "nvme3", "rdma", "traddr=10.99.0.1,trsvcid=4420,host_traddr=10.99.0.2", NQN, "connecting");
    controller(&root, "nvme4", "tcp", "traddr=10.99.0.1,trsvcid=4420", NQN, "live");
    controller(&root, "nvme5", "rdma", "traddr=10.99.0.1,trsvcid=4421", NQN, "live");
    controller(&root, "nvme6", "rdma", RDMA_ADDRESS, "nqn.other", "live");
    controller(&root, "nvme10", "rdma", RDMA_ADDRESS, NQN, "deleting");
    let (runner, calls) = FakeRunner::new(|_| ok(""));
    let undone = sweep(&rdma_target(), &runner, &tree.sysfs()).expect("sweep");
    assert_eq!(recorded(&calls), ["nvme disconnect -d nvme2", "nvme disconnect -d nvme3", "nvme disconnect -d nvme10"]);
    assert_eq!(undone.len(), 3);
    assert!(undone[1].contains("nvme3") && undone[1].contains("connecting") && undone[1].contains(NQN), "{undone:?}");
    // Nothing left: nothing to say.
    let empty = machine("nvme-sweep-empty");
    let (runner, _) = FakeRunner::new(|_| ok(""));
    assert!(sweep(&rdma_target(), &runner, &empty.sysfs()).expect("sweep").is_empty());
}

#[test]
fn a_sweep_that_cannot_undo_everything_says_what_it_did() {
    let tree = machine("nvme-sweep-fail");
    controller(&tree.root(), "nvme2", "rdma", RDMA_ADDRESS, NQN, "live");
    controller(&tree.root(), "nvme3", "rdma", RDMA_ADDRESS, NQN, "live");
    let (runner, _) =
        FakeRunner::new(|argv| if argv[3] == "nvme3" { fail(1, "Failed to disconnect: busy") } else { ok("") });
    let e = sweep(&rdma_target(), &runner, &tree.sysfs()).expect_err("partial");
    let AttachError::Sweep { undone, failed, .. } = &e else { panic!("{e:?}") };
    assert_eq!(undone.len(), 1);
    assert!(failed[0].contains("nvme disconnect -d nvme3") && failed[0].contains("busy"), "{failed:?}");
}

#[test]
fn an_attachment_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Attachment>();
}
