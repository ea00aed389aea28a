//! Every error names the option (or job) and where it was given.

use fio_job::{parse, JobError, Location};

fn file_error(body: &str) -> String {
    let text = format!("[global]\nsize=1g\n[job]\n{body}\n");
    match parse(Some((&text, "study.fio")), &[]) {
        Err(e) => e.to_string(),
        Ok(set) => panic!("{body}: parsed as {set:?}"),
    }
}

fn cli_error(line: &str) -> String {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    match parse(None, &args) {
        Err(e) => e.to_string(),
        Ok(set) => panic!("{line}: parsed as {set:?}"),
    }
}

#[test]
fn unsupported_options_are_named_with_file_and_line() {
    assert_eq!(
        file_error("rw=read\nioengine_opts=x"),
        "job file study.fio line 5: unsupported fio option 'ioengine_opts'"
    );
    assert_eq!(file_error("zonemode=zbd"), "job file study.fio line 4: unsupported fio option 'zonemode'");
    assert_eq!(file_error("bs_unaligned"), "job file study.fio line 4: unsupported fio option 'bs_unaligned'");
    assert_eq!(
        file_error("blocksize_unaligned=1"),
        "job file study.fio line 4: unsupported fio option 'blocksize_unaligned' (did you mean 'blocksize_range'?)"
    );
}

#[test]
fn unsupported_options_are_named_with_the_argument() {
    assert_eq!(
        cli_error("--name=a --size=1m --iodepht=4"),
        "--iodepht=4: unsupported fio option 'iodepht' (did you mean 'iodepth'?)"
    );
    assert_eq!(cli_error("--name=a --size=1m --rate 10m"), "--rate: unsupported fio option 'rate'");
}

#[test]
fn fio_has_no_norefill_buffers_nor_the_buffer_content_options_nfsbench_leaves_out() {
    // fio 3.33's options.c has refill_buffers (FIO_OPT_STR_SET) and no negated form: refill_buffers=0.
    assert_eq!(
        cli_error("--name=a --size=1m --norefill_buffers"),
        "--norefill_buffers: unsupported fio option 'norefill_buffers' (did you mean 'refill_buffers'?)"
    );
    for option in ["zero_buffers", "scramble_buffers=0", "buffer_compress_percentage=50", "dedupe_percentage=10"] {
        let name = option.split('=').next().unwrap_or(option);
        assert!(file_error(option).contains(&format!("unsupported fio option '{name}'")), "{option}");
    }
}

#[test]
fn a_bad_size_names_the_argument_and_the_value() {
    assert_eq!(cli_error("--name=a --size=1m --bs=4q"), "--bs=4q: bad size '4q': unknown unit 'q'");
    assert_eq!(file_error("bs=4q"), "job file study.fio line 4: bad size '4q' for bs: unknown unit 'q'");
    assert_eq!(file_error("size=1.5g"), "job file study.fio line 4: bad size '1.5g' for size: unknown unit '.5g'");
}

#[test]
fn bad_times_booleans_and_choices_are_named() {
    assert_eq!(
        file_error("runtime=10min"),
        "job file study.fio line 4: bad time '10min' for runtime: unknown unit 'min' (use us, ms, s, m, h or d)"
    );
    assert_eq!(file_error("direct=yes"), "job file study.fio line 4: bad boolean 'yes' for direct: use 0 or 1");
    assert_eq!(file_error("rw=sideways"), "job file study.fio line 4: bad I/O pattern 'sideways' for rw: use read, write, randread, randwrite, rw, readwrite or randrw");
    assert_eq!(
        file_error("verify=foo"),
        "job file study.fio line 4: bad verify method 'foo' for verify: use crc32c, md5, 0 or null"
    );
    assert_eq!(
        file_error("kb_base=1001"),
        "job file study.fio line 4: bad kb_base '1001' for kb_base: use 1024 or 1000"
    );
    assert_eq!(
        file_error("percentile_list=50:x"),
        "job file study.fio line 4: bad number 'x' for percentile_list: expected a decimal number"
    );
}

#[test]
fn fio_values_nfsbench_does_not_implement_are_rejected_by_name() {
    assert_eq!(file_error("rw=randread:8"), "job file study.fio line 4: rw=randread:8 is not supported by nfsbench: the ':N' offset modifier (rw_sequencer) is not supported; use rw=randread");
    assert_eq!(
        file_error("rw=trim"),
        "job file study.fio line 4: rw=trim is not supported by nfsbench: trims need a block device; NFSv3 has no trim"
    );
    assert_eq!(
        file_error("verify=sha256"),
        "job file study.fio line 4: verify=sha256 is not supported by nfsbench: nfsbench verifies with crc32c or md5"
    );
    assert_eq!(file_error("offset=10%"), "job file study.fio line 4: offset=10% is not supported by nfsbench: a percentage is not supported for this option");
    assert_eq!(
        file_error("size=4z"),
        "job file study.fio line 4: bad size '4z' for size: zone counts ('z') need fio's zoned block device mode"
    );
    assert_eq!(file_error("filename=-"), "job file study.fio line 4: filename=- is not supported by nfsbench: '-' (stdin/stdout) is not a file on the NFS export");
}

#[test]
fn out_of_range_values_are_named() {
    assert_eq!(
        file_error("iodepth=0"),
        "job file study.fio line 4: iodepth=0 is out of range: must be at least 1 and below 2^32"
    );
    assert_eq!(
        file_error("numjobs=0"),
        "job file study.fio line 4: numjobs=0 is out of range: must be at least 1 and below 2^32"
    );
    assert_eq!(file_error("nrfiles=0"), "job file study.fio line 4: nrfiles=0 is out of range: must be 1..=1048576");
    assert_eq!(
        file_error("rwmixread=101"),
        "job file study.fio line 4: rwmixread=101 is out of range: must be 0..=100"
    );
    assert_eq!(file_error("bs=0"), "job file study.fio line 4: bs=0 is out of range: block sizes must be at least 1");
    assert_eq!(
        file_error("bssplit=4k/60:8k/50"),
        "job file study.fio line 4: bssplit=4k/60:8k/50 is out of range: percentages add up to 110, more than 100"
    );
    assert_eq!(
        file_error("size=0%"),
        "job file study.fio line 4: size=0% is out of range: a percentage must be 1..=100"
    );
    assert_eq!(
        file_error("verify_interval=16"),
        "job file study.fio line 4: verify_interval=16 is out of range: must be at least 80 (two verify headers)"
    );
    assert_eq!(
        file_error("percentile_list=99:101"),
        "job file study.fio line 4: percentile_list=101 is out of range: percentiles must be 0..=100"
    );
}

#[test]
fn options_that_need_a_value_say_so() {
    assert_eq!(file_error("direct"), "job file study.fio line 4: option 'direct' needs a value");
    assert_eq!(file_error("bs="), "job file study.fio line 4: option 'bs' needs a value");
}

#[test]
fn a_job_without_size_or_filesize_is_rejected_as_fio_does() {
    let err = parse(Some(("[seq]\nrw=read\n", "s.fio")), &[]).unwrap_err();
    assert_eq!(err.to_string(), "job file s.fio line 1: job 'seq': you need to specify size= (or filesize=): nfsbench creates the files it uses");
    let err = parse(None, &["--name=cli".to_string()]).unwrap_err();
    assert!(err.to_string().starts_with("--name=cli: job 'cli': you need to specify size="), "{err}");
    let err = parse(Some(("[p]\nsize=50%\n", "s.fio")), &[]).unwrap_err();
    assert!(err.to_string().contains("size=N% needs filesize="), "{err}");
}

#[test]
fn a_data_set_smaller_than_a_block_and_an_offset_past_the_file_are_rejected() {
    assert_eq!(file_error("size=2k"), "job file study.fio line 3: job 'job': blocksize 4096 is larger than the data set (2048 bytes per loop from size/filesize)");
    assert_eq!(
        file_error("filesize=1m\noffset=2m"),
        "job file study.fio line 3: job 'job': you need to specify valid offset=: 2097152 is past filesize 1048576"
    );
}

#[test]
fn errors_carry_their_location() {
    let err = parse(Some(("[j]\nsize=1m\nbogus=1\n", "x.fio")), &[]).unwrap_err();
    assert_eq!(err.location(), Some(&Location::File { file: "x.fio".into(), line: 3 }));
    assert!(matches!(err, JobError::UnsupportedOption { ref name, .. } if name == "bogus"));
    assert_eq!(JobError::NoJobs.location(), None);
}

#[test]
fn verify_on_a_read_only_job_is_allowed() {
    let set = parse(Some(("[r]\nsize=1m\nrw=randread\nverify=crc32c\n", "r.fio")), &[]).unwrap();
    assert!(set.jobs[0].verify.is_some());
}
