use crate::error::AttachError;
use crate::runner::{run_checked, CommandOutput, Runner, SystemRunner};

#[test]
fn last_words_prefer_stderr_then_stdout() {
    let out = CommandOutput { status: Some(1), stdout: "out\n".into(), stderr: "\n first \n\nsecond\n".into() };
    assert_eq!(out.last_words(), "first; second");
    let out = CommandOutput { status: Some(1), stdout: "only stdout\n".into(), stderr: " \n".into() };
    assert_eq!(out.last_words(), "only stdout");
    assert_eq!(CommandOutput::default().last_words(), "no message");
    let long: String = (0..30).map(|i| format!("line {i}\n")).collect();
    let out = CommandOutput { status: Some(1), stdout: String::new(), stderr: long };
    assert!(out.last_words().starts_with("line 20; ") && out.last_words().ends_with("line 29"), "{}", out.last_words());
}

#[test]
fn the_system_runner_runs_and_reports() {
    let args = ["-c".to_string(), "echo out; echo err >&2; exit 3".to_string()];
    let out = SystemRunner.run("sh", &args).expect("sh");
    assert_eq!((out.status, out.stdout.as_str(), out.stderr.as_str()), (Some(3), "out\n", "err\n"));
    assert!(!out.success());
    let e = run_checked(&SystemRunner, "sh", &args).expect_err("exit 3");
    assert_eq!(e.to_string(), "`sh -c echo out; echo err >&2; exit 3` failed (exit status 3): err");
    let ok = run_checked(&SystemRunner, "sh", &["-c".to_string(), "exit 0".to_string()]).expect("exit 0");
    assert!(ok.success());
}

#[test]
fn a_missing_program_is_named() {
    let e = SystemRunner.run("nfsbench-no-such-tool", &[]).expect_err("missing");
    assert!(matches!(e, AttachError::Spawn { .. }));
    assert!(e.to_string().starts_with("starting nfsbench-no-such-tool: "), "{e}");
}
