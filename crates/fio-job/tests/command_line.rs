//! fio-style command-line options, alone and with a job file.

use fio_job::{parse, BlockSize, JobError, OutputFormat, Rw};
use std::time::Duration;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn a_job_given_only_on_the_command_line_is_parsed() {
    let set = parse(None, &args("--name=cli --rw=randrw --rwmixread=70 --bs=4k,64k --size=256m --iodepth=16")).unwrap();
    let job = &set.jobs[0];
    assert_eq!((job.name.as_str(), job.rw, job.rwmixread), ("cli", Rw::RandRw, 70));
    assert_eq!(job.bs, [BlockSize::Fixed(4096), BlockSize::Fixed(65536)]);
    assert_eq!((job.size, job.iodepth), (Some(256 << 20), 16));
    assert_eq!(job.job_options[0], ("name".to_string(), "cli".to_string()));
}

#[test]
fn options_may_take_their_value_from_the_next_argument_but_flags_never_do() {
    let set = parse(None, &args("--name job --size 1m --time_based --runtime 30 --group_reporting")).unwrap();
    let job = &set.jobs[0];
    assert_eq!((job.name.as_str(), job.size), ("job", Some(1 << 20)));
    assert!(job.time_based && job.group_reporting);
    assert_eq!(job.runtime, Some(Duration::from_secs(30)));
}

#[test]
fn flags_accept_an_explicit_value() {
    let set = parse(None, &args("--name=a --size=1m --runtime=5 --time_based=0 --norandommap=1")).unwrap();
    assert!(!set.jobs[0].time_based && set.jobs[0].norandommap);
}

#[test]
fn options_before_the_first_name_are_global_and_each_name_starts_a_job() {
    let set = parse(None, &args("--size=1m --bs=8k --name=a --rw=write --name=b --bs=16k")).unwrap();
    assert_eq!(set.jobs.len(), 2);
    assert_eq!((set.jobs[0].rw, set.jobs[0].bs[0].min()), (Rw::Write, 8192));
    assert_eq!((set.jobs[1].rw, set.jobs[1].bs[0].min()), (Rw::Read, 16384));
    assert_eq!(set.global.get("bs"), Some("8k"));
    assert_eq!(set.global.len(), 2);
}

#[test]
fn a_name_starting_with_global_opens_a_global_section_for_later_jobs() {
    let set = parse(None, &args("--name=a --size=1m --name=global --size=2m --name=b")).unwrap();
    let sizes: Vec<Option<u64>> = set.jobs.iter().map(|j| j.size).collect();
    assert_eq!(sizes, [Some(1 << 20), Some(2 << 20)]);
}

#[test]
fn command_line_globals_override_the_files_global_but_not_a_jobs_own_options() {
    let file = "[global]\nruntime=60\nbs=4k\nsize=1g\n[seq]\nbs=1M\n";
    let set = parse(Some((file, "study.fio")), &args("--runtime=10 --bs=8k")).unwrap();
    let job = &set.jobs[0];
    assert_eq!(job.runtime, Some(Duration::from_secs(10)));
    assert_eq!(job.bs[0].min(), 1 << 20);
    assert_eq!(set.global.get("runtime"), Some("10"));
}

#[test]
fn command_line_jobs_follow_the_files_jobs_and_inherit_its_globals() {
    let file = "[global]\nsize=1g\n[a]\n";
    let set = parse(Some((file, "f.fio")), &args("--name=b --stonewall")).unwrap();
    let names: Vec<(&str, u32)> = set.jobs.iter().map(|j| (j.name.as_str(), j.group)).collect();
    assert_eq!(names, [("a", 0), ("b", 1)]);
    assert_eq!(set.jobs[1].size, Some(1 << 30));
}

#[test]
fn output_format_takes_fios_comma_list_in_either_spelling() {
    let set = parse(None, &args("--output-format=json,normal --name=a --size=1m")).unwrap();
    assert_eq!(set.output_format, Some(vec![OutputFormat::Json, OutputFormat::Normal]));
    let set = parse(None, &args("--name=a --size=1m --output_format json+")).unwrap();
    assert_eq!(set.output_format, Some(vec![OutputFormat::JsonPlus]));
}

#[test]
fn unsupported_output_formats_are_rejected_by_name() {
    let err = parse(None, &args("--output-format=terse --name=a --size=1m")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "--output-format=terse: output-format=terse is not supported by nfsbench: use normal, json or json+"
    );
    let err = parse(None, &args("--output-format=xml --name=a")).unwrap_err();
    assert!(err.to_string().starts_with("--output-format=xml: bad output format 'xml'"), "{err}");
}

#[test]
fn stray_arguments_and_missing_values_are_errors() {
    let err = parse(None, &args("--name=a study.fio")).unwrap_err();
    assert_eq!(err.to_string(), "study.fio: unexpected argument: fio options are written --option=value");
    let err = parse(None, &args("--name=a --bs")).unwrap_err();
    assert_eq!(err.to_string(), "--bs: option 'bs' needs a value");
    let err = parse(None, &args("--name=")).unwrap_err();
    assert_eq!(err.to_string(), "--name=: option 'name' needs a value");
    let err = parse(None, &args("--name=a --size=")).unwrap_err();
    assert_eq!(err.to_string(), "--size=: option 'size' needs a value");
}

#[test]
fn a_split_option_is_shown_as_typed_in_errors() {
    let err = parse(None, &args("--name=a --bs 4q")).unwrap_err();
    assert_eq!(err.to_string(), "--bs 4q: bad size '4q': unknown unit 'q'");
}

#[test]
fn command_line_values_are_not_environment_expanded() {
    let set = parse(None, &["--name=a".into(), "--size=1m".into(), "--description=${HOME}".into()]).unwrap();
    assert_eq!(set.jobs[0].description.as_deref(), Some("${HOME}"));
}

#[test]
fn global_options_alone_define_no_job() {
    assert!(matches!(parse(None, &args("--rw=read --size=1m")), Err(JobError::NoJobs)));
}

#[test]
fn refill_buffers_is_a_flag_as_in_the_smb_direct_study() {
    let set = parse(None, &args("--name=a --rw=randwrite --bs=4k --size=1m --refill_buffers --norandommap")).unwrap();
    let job = &set.jobs[0];
    assert!(job.refill_buffers && job.norandommap);
    assert!(
        job.job_options.contains(&("refill_buffers".to_string(), String::new())),
        "recorded as fio records a bare flag"
    );
    // A flag never takes the next argument, and takes an explicit value.
    let set = parse(None, &args("--refill_buffers --size=1m --name=a --name=b --refill_buffers=0")).unwrap();
    assert_eq!(set.global.get("refill_buffers"), Some(""));
    assert!(set.jobs[0].refill_buffers && !set.jobs[1].refill_buffers);
    assert!(!parse(None, &args("--name=a --size=1m")).unwrap().jobs[0].refill_buffers, "off by default");
}
