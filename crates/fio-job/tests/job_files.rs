//! Job files as published studies write them.

use fio_job::{BlockSize, Host, JobError, JobSpec, Parser, Rw};
use std::path::Path;
use std::time::Duration;

const STUDY: &str = "\
; a published NFS study
[global]
ioengine=libaio
direct=1
size=1g
runtime=60
time_based
group_reporting
iodepth=64
numjobs=4
[seq-read-1m]
rw=read
bs=1M
stonewall
[rand-read-4k]
rw=randread
bs=4k
stonewall
";

fn parse_file(text: &str) -> Result<fio_job::JobSet, JobError> {
    Parser::new().env(|_| None).parse(Some((text, "study.fio")), &[])
}

#[test]
fn the_public_study_file_gives_two_jobs_in_groups_zero_and_one() {
    let set = parse_file(STUDY).unwrap();
    assert_eq!(set.jobs.len(), 2);
    let (seq, rand) = (&set.jobs[0], &set.jobs[1]);
    assert_eq!((seq.name.as_str(), seq.group), ("seq-read-1m", 0));
    assert_eq!((rand.name.as_str(), rand.group), ("rand-read-4k", 1));
    assert_eq!(seq.rw, Rw::Read);
    assert_eq!(rand.rw, Rw::RandRead);
    assert_eq!(seq.bs, [BlockSize::Fixed(1 << 20), BlockSize::Fixed(1 << 20)]);
    assert_eq!(rand.bs, [BlockSize::Fixed(4096), BlockSize::Fixed(4096)]);
    for job in &set.jobs {
        assert_eq!(job.size, Some(1 << 30));
        assert_eq!(job.runtime, Some(Duration::from_secs(60)));
        assert!(job.time_based && job.direct && job.group_reporting);
        assert_eq!((job.iodepth, job.numjobs), (64, 4));
        assert_eq!(job.ioengine.as_deref(), Some("libaio"));
        assert_eq!(job.io_size(), 1 << 30);
    }
    assert_eq!(set.notices, ["ioengine=libaio: I/O goes through nfsbench's NFS client"]);
}

#[test]
fn the_study_records_fio_global_and_job_options() {
    let set = parse_file(STUDY).unwrap();
    assert_eq!(set.global.get("ioengine"), Some("libaio"));
    assert_eq!(set.global.get("time_based"), Some(""));
    assert_eq!(set.global.len(), 8);
    let seq = &set.jobs[0];
    let own: Vec<(&str, &str)> = seq.job_options.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(own, [("rw", "read"), ("bs", "1M"), ("stonewall", "")]);
    assert_eq!(seq.options.len(), 11);
    assert!(seq.options.contains(&("iodepth".into(), "64".into())));
}

#[test]
fn defaults_are_fios() {
    let set = parse_file("[job]\nsize=1m\n").unwrap();
    let job = &set.jobs[0];
    assert_eq!(job.rw, Rw::Read);
    assert_eq!(job.bs, [BlockSize::Fixed(4096), BlockSize::Fixed(4096)]);
    assert_eq!((job.iodepth, job.numjobs, job.nrfiles, job.loops, job.group), (1, 1, 1, 1, 0));
    assert_eq!(job.rwmixread, 50);
    assert!(!job.direct && job.randrepeat && job.do_verify && job.clat_percentiles && !job.lat_percentiles);
    assert_eq!((job.runtime, job.ramp_time, job.startdelay), (None, Duration::ZERO, Duration::ZERO));
    assert_eq!((job.verify, job.ioengine.as_deref(), job.kb_base), (None, None, 1024));
    assert!(set.global.is_empty() && set.notices.is_empty() && set.output_format.is_none());
    let mut default = JobSpec { size: Some(1 << 20), ..JobSpec::default() };
    default.options = job.options.clone();
    default.job_options = job.job_options.clone();
    assert_eq!(&default, job);
}

#[test]
fn a_later_global_section_affects_only_the_jobs_after_it() {
    let text = "[global]\nsize=1m\nbs=8k\n[a]\n[global]\nbs=16k\n[b]\n[c]\nbs=32k\n";
    let set = parse_file(text).unwrap();
    let bs: Vec<u64> = set.jobs.iter().map(|j| j.bs[0].min()).collect();
    assert_eq!(bs, [8192, 16384, 32768]);
}

#[test]
fn comments_blank_lines_and_bare_flags_are_read_as_fio_reads_them() {
    let text = "\n# header comment\n[job] \n  ; indented comment\nsize = 2m ; trailing comment\nnorandommap\n\
                rw=randwrite # another\ndescription=a job\n";
    let job = &parse_file(text).unwrap().jobs[0];
    assert_eq!(job.size, Some(2 << 20));
    assert!(job.norandommap);
    assert_eq!(job.rw, Rw::RandWrite);
    assert_eq!(job.description.as_deref(), Some("a job"));
}

#[test]
fn sections_whose_names_start_with_global_are_global() {
    let set = parse_file("[global-settings]\nsize=4m\n[job]\n").unwrap();
    assert_eq!(set.jobs.len(), 1);
    assert_eq!(set.jobs[0].size, Some(4 << 20));
}

#[test]
fn braced_environment_variables_are_expanded_and_bare_ones_are_not() {
    let env = |name: &str| match name {
        "SIZE" => Some("3m".to_string()),
        "MNT" => Some("/export".to_string()),
        _ => None,
    };
    let text = "[job]\nsize=${SIZE}\ndirectory=${MNT}/run${UNSET}\ndescription=$SIZE\n";
    let set = Parser::new().env(env).parse(Some((text, "env.fio")), &[]).unwrap();
    let job = &set.jobs[0];
    assert_eq!(job.size, Some(3 << 20));
    assert_eq!(job.directory.as_deref(), Some("/export/run"));
    assert_eq!(job.description.as_deref(), Some("$SIZE"));
    assert_eq!(job.job_options[0], ("size".to_string(), "3m".to_string()));
}

#[test]
fn fio_keywords_are_replaced_and_their_arithmetic_evaluated() {
    let host = Host { page_size: 4096, mb_memory: 1024, ncpus: 6 };
    let text = "[job]\nnumjobs=$ncpus/2\nbs=$pagesize\nsize=$mb_memory*1024\n";
    let set = Parser::new().host(host).parse(Some((text, "kw.fio")), &[]).unwrap();
    let job = &set.jobs[0];
    assert_eq!((job.numjobs, job.bs[0].min(), job.size), (3, 4096, Some(1 << 20)));
}

#[test]
fn include_splices_a_files_options_into_the_current_section() {
    let read = |path: &Path| match path.to_str() {
        Some("/jobs/common.fio") => Ok("size=1m\ninclude more.fio\n".to_string()),
        Some("/jobs/more.fio") => Ok("; nested\nbs=64k\n".to_string()),
        _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")),
    };
    let text = "[global]\ninclude common.fio\n[job]\nrw=write\n";
    let set = Parser::new().read_file(read).parse(Some((text, "/jobs/study.fio")), &[]).unwrap();
    let job = &set.jobs[0];
    assert_eq!((job.size, job.bs[1].min(), job.rw), (Some(1 << 20), 65536, Rw::Write));
}

#[test]
fn errors_inside_included_files_point_at_the_included_line() {
    let read = |path: &Path| match path.to_str() {
        Some("/jobs/bad.fio") => Ok("size=1m\nbogus=1\n".to_string()),
        _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")),
    };
    let text = "[job]\ninclude bad.fio\n";
    let err = Parser::new().read_file(read).parse(Some((text, "/jobs/study.fio")), &[]).unwrap_err();
    assert_eq!(err.to_string(), "job file /jobs/bad.fio line 2: unsupported fio option 'bogus'");
}

#[test]
fn a_missing_include_and_a_section_in_an_include_are_errors() {
    let read = |path: &Path| match path.to_str() {
        Some("sect.fio") => Ok("[other]\n".to_string()),
        _ => Err(std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")),
    };
    let parser = Parser::new().read_file(read);
    let err = parser.parse(Some(("[job]\ninclude gone.fio\n", "s.fio")), &[]).unwrap_err();
    assert!(err.to_string().starts_with("job file s.fio line 2: cannot read include file 'gone.fio'"), "{err}");
    let err = parser.parse(Some(("[job]\ninclude sect.fio\n", "s.fio")), &[]).unwrap_err();
    assert_eq!(err.to_string(), "job file sect.fio line 1: an included file may not open sections");
}

#[test]
fn options_outside_a_section_and_bad_headers_are_errors() {
    let err = parse_file("size=1m\n[job]\n").unwrap_err();
    assert_eq!(err.to_string(), "job file study.fio line 1: 'size=1m' is outside any [section]");
    let err = parse_file("[job\nsize=1m\n").unwrap_err();
    assert_eq!(err.to_string(), "job file study.fio line 1: bad section header '[job': expected [name]");
}

#[test]
fn a_file_with_only_global_options_defines_no_job() {
    assert!(matches!(parse_file("[global]\nsize=1m\n"), Err(JobError::NoJobs)));
    assert!(matches!(fio_job::parse(None, &[]), Err(JobError::NoJobs)));
}

#[test]
fn numjobs_clones_stay_in_their_group_and_new_group_starts_one() {
    let text = "[global]\nsize=1m\n[a]\nnumjobs=3\n[b]\n[c]\nnew_group\n[d]\nstonewall\nnumjobs=2\n[e]\n";
    let groups: Vec<u32> = parse_file(text).unwrap().jobs.iter().map(|j| j.group).collect();
    assert_eq!(groups, [0, 0, 1, 2, 2]);
}

#[test]
fn stonewall_on_the_first_job_does_not_open_an_empty_group() {
    let groups: Vec<u32> =
        parse_file("[a]\nsize=1m\nstonewall\n[b]\nsize=1m\n").unwrap().jobs.iter().map(|j| j.group).collect();
    assert_eq!(groups, [0, 0]);
}

#[test]
fn refill_buffers_is_read_bare_or_with_a_value_and_verify_implies_it_as_in_fio() {
    let text =
        "[global]\nsize=1m\nrw=randwrite\nrefill_buffers\n[on]\n[off]\nrefill_buffers=0\n[plain]\nrefill_buffers=1\n";
    let set = parse_file(text).unwrap();
    let refill: Vec<bool> = set.jobs.iter().map(|j| j.refill_buffers).collect();
    assert_eq!(refill, [true, false, true]);
    assert_eq!(set.global.get("refill_buffers"), Some(""));
    // fio's fixup_options: verify= turns it on unless the job set it.
    let set =
        parse_file("[global]\nsize=1m\nrw=write\nverify=crc32c\n[implied]\n[declined]\nrefill_buffers=0\n").unwrap();
    let refill: Vec<bool> = set.jobs.iter().map(|j| j.refill_buffers).collect();
    assert_eq!(refill, [true, false]);
    assert!(!parse_file("[plain]\nsize=1m\nrw=write\n").unwrap().jobs[0].refill_buffers);
}
