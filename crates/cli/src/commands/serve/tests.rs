use clap::Parser;

use super::*;

/// `nfsbench serve`'s flags alone, parsed as the real command line does.
#[derive(clap::Parser, Debug)]
struct Serve {
    #[command(flatten)]
    args: ServeArgs,
}

fn parse(argv: &[&str]) -> Result<ServeArgs, clap::Error> {
    Serve::try_parse_from(std::iter::once("serve").chain(argv.iter().copied())).map(|s| s.args)
}

fn plan_of(argv: &[&str]) -> ServePlan {
    plan(&parse(argv).expect("parses")).expect("plans")
}

#[test]
fn no_flags_serve_a_one_gibibyte_ram_disk_on_loopback_2049() {
    let plan = plan_of(&[]);
    assert_eq!(plan.listen, vec!["127.0.0.1:2049".parse::<SocketAddr>().expect("addr")]);
    assert_eq!(plan.exports.len(), 1);
    assert_eq!(plan.exports[0].path, "/export");
    assert_eq!(plan.exports[0].backend, BackendSpec::Mem { size: 1 << 30 });
    let args = parse(&[]).expect("parses");
    assert_eq!(args.workers, DEFAULT_WORKERS);
    assert!(!args.rdma && args.ready_file.is_none() && args.stats_interval.is_none());
}

#[test]
fn listen_and_export_repeat() {
    let plan = plan_of(&[
        "--listen",
        "127.0.0.1:0",
        "--listen=[::1]:2049",
        "--export",
        "/a=mem:512MiB",
        "--export=/b=mem",
        "--export",
        "/c=dir:/srv/c",
    ]);
    assert_eq!(plan.listen.len(), 2);
    assert_eq!(plan.listen[1], "[::1]:2049".parse::<SocketAddr>().expect("addr"));
    let exports: Vec<_> = plan.exports.iter().map(|e| (e.path.as_str(), e.backend.clone())).collect();
    assert_eq!(
        exports,
        vec![
            ("/a", BackendSpec::Mem { size: 512 << 20 }),
            ("/b", BackendSpec::Mem { size: 1 << 30 }),
            ("/c", BackendSpec::Dir { path: "/srv/c".into() }),
        ]
    );
}

#[test]
fn a_bad_backend_is_a_usage_error_naming_it() {
    let err = parse(&["--export", "/x=floppy:1440K"]).expect_err("bad backend");
    assert_eq!(err.exit_code(), 2);
    let text = err.to_string();
    assert!(text.contains("floppy:1440K") && text.contains("--export"), "{text}");
    let err = parse(&["--export", "/x=mem:1.5G"]).expect_err("bad size");
    assert!(err.to_string().contains("1.5G"), "{err}");
}

#[test]
fn a_bad_listen_address_is_a_usage_error_naming_it() {
    let err = parse(&["--listen", "127.0.0.1"]).expect_err("no port");
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("--listen"), "{err}");
}

#[test]
fn rdma_flags_need_rdma_and_name_their_bad_values() {
    let args = parse(&["--rdma", "--rdma-listen", "0.0.0.0:20049", "--rdma-provider", "soft", "--rdma-credits", "32"])
        .expect("parses");
    assert!(args.rdma && args.rdma_listen == vec!["0.0.0.0:20049".parse::<SocketAddr>().expect("addr")]);
    assert_eq!((args.rdma_provider, args.rdma_credits), (ProviderChoice::Soft, Some(32)));
    let err = parse(&["--rdma-listen", "0.0.0.0:20049"]).expect_err("needs --rdma");
    assert!(err.to_string().contains("--rdma"), "{err}");
    for (flag, bad) in [("--rdma-credits", "0"), ("--rdma-inline", "100"), ("--rdma-provider", "shm")] {
        let err = parse(&["--rdma", flag, bad]).expect_err(bad);
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains(bad), "{err}");
    }
}

#[test]
fn stats_interval_takes_positive_seconds() {
    let args = parse(&["--stats-interval", "2.5"]).expect("parses");
    assert_eq!(args.stats_interval, Some(Duration::from_millis(2500)));
    for bad in ["0", "-1", "soon", "inf"] {
        assert!(parse(&["--stats-interval", bad]).is_err(), "{bad}");
    }
}

#[test]
fn thread_counts_are_at_least_one() {
    let args = parse(&["--workers", "2", "--blocking-threads", "4"]).expect("parses");
    assert_eq!((args.workers, args.blocking_threads), (2, 4));
    assert_eq!(parse(&[]).expect("parses").blocking_threads, server_tcp::DEFAULT_BLOCKING_THREADS);
    assert!(parse(&["--workers", "0"]).is_err());
    assert!(parse(&["--blocking-threads", "0"]).is_err());
}

#[test]
fn rdma_threads_and_completion_vectors_need_rdma_and_a_count() {
    let args = parse(&["--rdma", "--rdma-threads", "3", "--rdma-comp-vectors", "6"]).expect("parses");
    assert_eq!((args.rdma_threads, args.rdma_comp_vectors), (Some(3), Some(6)));
    assert_eq!(parse(&["--rdma"]).expect("parses").rdma_threads, None);
    for bad in
        [&["--rdma", "--rdma-threads", "0"][..], &["--rdma", "--rdma-comp-vectors", "0"], &["--rdma-threads", "2"]]
    {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_missing_config_file_is_named_in_the_error() {
    let args = parse(&["--config", "/nonexistent/nfsbench.toml"]).expect("parses");
    let err = plan(&args).expect_err("no such file").to_string();
    assert!(err.starts_with("--config /nonexistent/nfsbench.toml:"), "{err}");
}

#[test]
fn the_ready_file_appears_whole_with_one_address_per_line() {
    let dir = std::env::temp_dir().join(format!("nfsbench-ready-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let ready = dir.join("ready");
    let addrs: Vec<SocketAddr> = vec!["127.0.0.1:2049".parse().expect("addr"), "[::1]:7".parse().expect("addr")];
    write_ready_file(&ready, &addrs).expect("written");
    assert_eq!(std::fs::read_to_string(&ready).expect("read"), "127.0.0.1:2049\n[::1]:7\n");
    remove_stale(&ready).expect("removed");
    assert!(!ready.exists());
    remove_stale(&ready).expect("absent is fine");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn mem_exports_become_ram_disk_backends_with_their_access_rules() {
    let plan = plan_of(&["--export", "/fast=mem:64MiB"]);
    let config = export_config(&plan.exports[0]).expect("backend");
    assert_eq!(config.path, "/fast");
    assert!(config.backend.describe().starts_with("mem:"), "{}", config.backend.describe());
    assert_eq!((config.anon_uid, config.anon_gid, config.read_only), (65534, 65534, false));
}

#[test]
fn dir_exports_open_the_directory_or_name_what_is_wrong() {
    let dir = std::env::temp_dir().join(format!("nfsbench-dir-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let spec = format!("/disk=dir:{}", dir.display());
    let plan = plan_of(&["--export", &spec]);
    let config = export_config(&plan.exports[0]).expect("an existing directory opens");
    assert!(config.backend.may_block(), "a directory backend waits on the disk");
    let missing = format!("/gone=dir:{}/missing", dir.display());
    let plan = plan_of(&["--export", &missing]);
    let err = export_config(&plan.exports[0]).expect_err("a missing directory");
    assert!(err.starts_with(&format!("export {missing}:")), "{err}");
    std::fs::remove_dir_all(&dir).expect("cleanup");
}
