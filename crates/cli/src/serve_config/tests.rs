use std::path::Path;
use std::time::Duration;

use super::*;

/// The file's text parsed; an error as the user reads it.
fn parse(text: &str) -> Result<ConfigFile, String> {
    ConfigFile::parse(text, Path::new("serve.toml")).map_err(|e| e.to_string())
}

fn build(text: &str, listen: &[&str], exports: &[&str]) -> Result<ServePlan, String> {
    let file = parse(text)?;
    let listen: Vec<SocketAddr> = listen.iter().map(|a| a.parse().expect("addr")).collect();
    let exports: Vec<ExportSpec> = exports.iter().map(|e| ExportSpec::parse(e).expect("export")).collect();
    ServePlan::build(Some((Path::new("serve.toml"), file)), &listen, &exports).map_err(|e| e.to_string())
}

const FULL: &str = r#"
listeners = ["127.0.0.1:12049", "[::1]:12049"]

[[exports]]
path = "/export"
backend = "mem:2GiB"
read_only = true
clients = ["127.0.0.0/8", "::1"]
squash = "all"
anonuid = 1000
anongid = 100
secure = true

[[exports]]
path = "/scratch"

[limits]
max_record = "2MiB"
max_in_flight_requests = 64
max_in_flight_bytes = 8388608
max_server_in_flight_bytes = "256MiB"
max_connections = 10
idle_timeout_secs = 120
partial_record_timeout_secs = 12.5
write_stall_timeout_secs = 0
max_io_size = "512KiB"
drc_entries = 100
rdma_read_targets = "4KiB"
"#;

#[test]
fn reads_every_documented_key() {
    let plan = build(FULL, &[], &[]).expect("valid");
    assert_eq!(plan.listen.len(), 2);
    let export = &plan.exports[0];
    assert_eq!(export.backend, BackendSpec::Mem { size: 2 << 30 });
    assert!(export.read_only && export.secure);
    assert_eq!(export.clients.len(), 2);
    assert_eq!(export.clients[0].prefix_len, 8);
    assert_eq!((export.squash, export.anon_uid, export.anon_gid), (Squash::All, 1000, 100));
    let scratch = &plan.exports[1];
    assert_eq!(scratch.backend, BackendSpec::Mem { size: DEFAULT_MEM_SIZE });
    assert_eq!((scratch.squash, scratch.anon_uid, scratch.read_only), (Squash::Root, 65534, false));
    assert_eq!(plan.connection.max_record, 2 << 20);
    assert_eq!(plan.connection.max_in_flight_requests, 64);
    assert_eq!(plan.connection.max_in_flight_bytes, 8 << 20);
    assert_eq!(plan.connection.max_connections, 10);
    assert_eq!(plan.connection.max_server_in_flight_bytes, 256 << 20);
    assert_eq!(plan.connection.idle_timeout, Duration::from_secs(120));
    assert_eq!(plan.connection.partial_record_timeout, Duration::from_millis(12_500));
    assert_eq!(plan.connection.write_stall_timeout, Duration::ZERO, "0 turns it off");
    assert_eq!((plan.max_io_size, plan.drc_entries), (512 << 10, 100));
    assert_eq!(plan.rdma_read_targets, Some(4096));
}

#[test]
fn the_documented_example_in_the_module_header_is_valid() {
    let doc = include_str!("mod.rs");
    let example: String = doc
        .lines()
        .skip_while(|l| !l.starts_with("//! ```toml"))
        .skip(1)
        .take_while(|l| !l.starts_with("//! ```"))
        .map(|l| format!("{}\n", l.trim_start_matches("//!").trim_start()))
        .collect();
    assert!(example.contains("[limits]"));
    build(&example, &[], &[]).expect("the example parses and validates");
}

#[test]
fn unknown_keys_are_rejected_by_name_with_their_line() {
    for (text, key, line) in [
        ("listen = []", "listen", 1),
        ("[[exports]]\npath = \"/e\"\nrootsquash = true\n", "rootsquash", 3),
        ("[limits]\nmax_requests = 4\n", "max_requests", 2),
        ("[limits]\nidle_timeout_secs = 5\nidle_timeout = 5\n", "idle_timeout", 3),
        ("[server]\n", "server", 1),
    ] {
        let err = parse(text).expect_err(text);
        assert!(err.contains(key), "{err}");
        assert!(err.starts_with(&format!("serve.toml:{line}:")), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

#[test]
fn bad_values_name_the_key_and_the_value() {
    for (text, expect) in [
        ("listeners = [\"nowhere\"]", "listeners[0]"),
        ("[[exports]]\npath = \"rel\"", "exports[0]: path"),
        ("[[exports]]\npath = \"/e\"\nbackend = \"tape\"", "exports[0]: backend: unknown backend 'tape'"),
        ("[[exports]]\npath = \"/e\"\nclients = [\"10.0.0.0/40\"]", "exports[0]: clients: client '10.0.0.0/40'"),
        ("[[exports]]\npath = \"/e\"\n[[exports]]\npath = \"/e\"", "exports[1]: export path '/e' appears twice"),
        ("[limits]\nmax_io_size = 100", "limits.max_io_size"),
        ("[limits]\nmax_io_size = \"1MiB\"\nmax_record = \"1MiB\"", "limits.max_record"),
        ("[limits]\nmax_connections = 0", "limits.max_connections: must be at least 1"),
        ("[limits]\nmax_server_in_flight_bytes = 0", "limits.max_server_in_flight_bytes: must be at least 1"),
        (
            "[limits]\nmax_server_in_flight_bytes = \"64KiB\"",
            "limits.max_server_in_flight_bytes: 65536 is less than one record",
        ),
    ] {
        let err = build(text, &[], &[]).expect_err(text);
        assert!(err.contains(expect), "{err} (wanted {expect})");
        assert!(err.starts_with("serve.toml"), "{err}");
    }
    for (text, expect) in [
        ("[[exports]]\npath = \"/e\"\nsquash = \"some\"", "some"),
        ("[limits]\nmax_in_flight_bytes = \"lots\"", "lots"),
        ("[limits]\nmax_in_flight_bytes = -5", "negative"),
        ("[limits]\nidle_timeout_secs = \"soon\"", "a timeout in seconds"),
        ("[limits]\nwrite_stall_timeout_secs = -1", "timeout -1 s is negative"),
        ("[limits]\npartial_record_timeout_secs = -0.5", "timeout -0.5 s is negative"),
        ("[limits]\nidle_timeout_secs = 100000", "timeout 100000 s is over 24 hours"),
        ("[limits]\nidle_timeout_secs = true", "a timeout in seconds"),
    ] {
        let err = parse(text).expect_err(text);
        assert!(err.contains(expect), "{err} (wanted {expect})");
    }
    // The key at fault is named by its line and column.
    let err = parse("[limits]\nmax_connections = 4\npartial_record_timeout_secs = \"x\"\n").expect_err("bad");
    assert!(err.starts_with("serve.toml:3:"), "{err}");
}

#[test]
fn flags_replace_listeners_and_override_or_add_exports() {
    let plan = build(FULL, &["127.0.0.1:0"], &["/export=mem:64MiB", "/more=dir:/srv/more"]).expect("valid");
    assert_eq!(plan.listen, vec!["127.0.0.1:0".parse::<SocketAddr>().expect("addr")]);
    assert_eq!(plan.exports.len(), 3);
    let export = &plan.exports[0];
    assert_eq!(export.backend, BackendSpec::Mem { size: 64 << 20 }, "the flag's backend wins");
    assert!(export.read_only && export.squash == Squash::All, "the file's access rules stay");
    assert_eq!(plan.exports[2].path, "/more");
    assert_eq!(plan.exports[2].squash, Squash::Root);
}

#[test]
fn an_empty_file_gives_the_defaults() {
    let plan = build("", &[], &[]).expect("valid");
    assert_eq!(plan.listen, vec![DEFAULT_LISTEN.parse::<SocketAddr>().expect("addr")]);
    assert_eq!(plan.exports[0].path, DEFAULT_EXPORT_PATH);
    assert_eq!(plan.connection, ConnectionLimits::default());
    assert_eq!(plan.connection.idle_timeout, server_core::DEFAULT_IDLE_TIMEOUT);
    assert_eq!(plan.connection.max_server_in_flight_bytes, server_core::DEFAULT_MAX_SERVER_IN_FLIGHT_BYTES);
    assert_eq!((plan.max_io_size, plan.drc_entries), (DEFAULT_MAX_IO_SIZE, DEFAULT_DRC_ENTRIES));
    assert_eq!(plan.rdma_read_targets, None, "server-rdma's default");
}

#[test]
fn a_larger_io_size_raises_the_default_record_limit_with_it() {
    let plan = build("[limits]\nmax_io_size = \"4MiB\"", &[], &[]).expect("valid");
    assert!(plan.connection.max_record >= (4 << 20) + 4096);
}

#[test]
fn messages_read_exactly_as_users_know_them() {
    for (text, message) in [
        ("[limits]\nmax_connections = 0", "serve.toml: limits.max_connections: must be at least 1"),
        ("[limits]\nmax_io_size = 100", "serve.toml: limits.max_io_size: 100 is outside 4096..=16777216"),
        (
            "[limits]\nmax_io_size = \"1MiB\"\nmax_record = \"1MiB\"",
            "serve.toml: limits.max_record: 1048576 leaves no room for a 1048576-byte WRITE (needs max_io_size + 4096)",
        ),
        (
            "[limits]\nmax_server_in_flight_bytes = \"64KiB\"",
            "serve.toml: limits.max_server_in_flight_bytes: 65536 is less than one record (max_record 1114112)",
        ),
        ("listeners = [\"nowhere\"]", "serve.toml: listeners[0]: 'nowhere' is not ADDR:PORT (e.g. 127.0.0.1:2049)"),
        ("[[exports]]\npath = \"rel\"", "serve.toml: exports[0]: path: export path 'rel' is not absolute"),
        (
            "[[exports]]\npath = \"/a/../b\"",
            "serve.toml: exports[0]: path: export path '/a/../b' is not normalised (no trailing '/', '//', '.' or '..')",
        ),
        (
            "[[exports]]\npath = \"/e\"\nbackend = \"mem:lots\"",
            "serve.toml: exports[0]: backend: backend 'mem:lots': size 'lots' does not start with a number",
        ),
        (
            "[[exports]]\npath = \"/e\"\nbackend = \"mem:0\"",
            "serve.toml: exports[0]: backend: backend 'mem:0': a RAM disk of size 0 holds nothing",
        ),
        (
            "[[exports]]\npath = \"/e\"\nbackend = \"dir:\"",
            "serve.toml: exports[0]: backend: backend 'dir:' needs a directory: dir:DIR",
        ),
        (
            "[[exports]]\npath = \"/e\"\nclients = [\"10.0.0.0/40\"]",
            "serve.toml: exports[0]: clients: client '10.0.0.0/40' has a bad prefix length (0..=32 for IPv4)",
        ),
        (
            "[[exports]]\npath = \"/e\"\nclients = [\"*.example.com\"]",
            "serve.toml: exports[0]: clients: client '*.example.com' is not an IP address or CIDR network",
        ),
        ("[[exports]]\npath = \"/e\"\n[[exports]]\npath = \"/e\"", "serve.toml: exports[1]: export path '/e' appears twice"),
        ("[limits]\nidle_timeout_secs = -1", "serve.toml:2:21: timeout -1 s is negative"),
        ("[limits]\nidle_timeout_secs = 100000", "serve.toml:2:21: timeout 100000 s is over 24 hours"),
        ("[limits]\nmax_in_flight_bytes = \"lots\"", "serve.toml:2:23: size 'lots' does not start with a number"),
    ] {
        assert_eq!(build(text, &[], &[]).expect_err(text), message);
    }
    for (text, message) in [
        ("/data", "'/data' is not PATH=BACKEND (e.g. /export=mem:1GiB)"),
        ("data=mem", "export path 'data' is not absolute"),
        (
            "/e=mem:12 parsecs",
            "backend 'mem:12 parsecs': size '12 parsecs' has an unknown unit (use K, M, G, T or KiB, MiB, GiB, TiB)",
        ),
        (
            "/e=mem:99999999999999999999T",
            "backend 'mem:99999999999999999999T': size '99999999999999999999T' is too large",
        ),
        ("/e=dir", "backend 'dir' needs a directory: dir:DIR"),
    ] {
        assert_eq!(ExportSpec::parse(text).expect_err(text).to_string(), message);
    }
    let listen = |text| spec::parse_listen(text).expect_err(text).to_string();
    assert_eq!(listen("127.0.0.1"), "'127.0.0.1' is not ADDR:PORT (e.g. 127.0.0.1:2049)");
    assert_eq!(listen("127.0.0.1:99999"), "'127.0.0.1:99999' does not resolve: invalid port value");
    let load = ConfigFile::load(Path::new("/nonexistent/x.toml")).expect_err("no such file");
    assert_eq!(load.to_string(), "/nonexistent/x.toml: No such file or directory (os error 2)");
}
