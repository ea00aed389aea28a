//! Sections → [`JobSet`]: global inheritance, fio's group ids, option records.
//!
//! Each job starts from fio's defaults plus the `[global]` sections that precede it (a later
//! `[global]` affects only the jobs after it), then the command-line options given before the first
//! `--name`, then its own options. Within a job-file section options apply in fio's priority order
//! (`kb_base` first, `filename` last); command-line options apply in the order given. Command-line
//! jobs follow the job file's and inherit all of its `[global]` sections.

use crate::apply::apply;
use crate::cmdline::CmdLine;
use crate::error::{JobError, Location};
use crate::ini::{RawOption, Section, SectionKind};
use crate::spec::{JobSet, JobSpec, Options};
use crate::state::{Notices, State};
use crate::table;

type Record = (String, String);

/// A job on its way out, with what group assignment needs.
struct Pending {
    spec: JobSpec,
    new_group: bool,
}

pub(crate) fn build(file: &[Section], cmd: &CmdLine) -> Result<JobSet, JobError> {
    let mut b =
        Builder { def: State::default(), def_records: Vec::new(), global: Vec::new(), notices: Notices::default() };
    let mut jobs = Vec::new();
    for section in file {
        let options = by_priority(&section.options);
        match &section.kind {
            SectionKind::Global => b.global_options(&options)?,
            SectionKind::Job(name) => jobs.push(b.job(name, &section.at, &cmd.globals, &options)?),
        }
    }
    let cmd_globals: Vec<&RawOption> = cmd.globals.iter().collect();
    b.global_options(&cmd_globals)?;
    for section in &cmd.sections {
        let options: Vec<&RawOption> = section.options.iter().collect();
        match &section.kind {
            SectionKind::Global => b.global_options(&options)?,
            SectionKind::Job(name) => jobs.push(b.job(name, &section.at, &[], &options)?),
        }
    }
    if jobs.is_empty() {
        return Err(JobError::NoJobs);
    }
    Ok(JobSet {
        jobs: assign_groups(jobs),
        global: Options(b.global),
        notices: b.notices.0,
        output_format: cmd.output_format.clone(),
    })
}

struct Builder {
    /// fio's `def_thread`: defaults plus the global options seen so far.
    def: State,
    def_records: Vec<Record>,
    /// Every global option, for JSON "global options".
    global: Vec<Record>,
    notices: Notices,
}

impl Builder {
    fn global_options(&mut self, options: &[&RawOption]) -> Result<(), JobError> {
        for option in options {
            let record = apply(&mut self.def, option, &mut self.notices)?;
            self.def_records.push(record.clone());
            self.global.push(record);
        }
        Ok(())
    }

    fn job(
        &mut self,
        name: &str,
        at: &Location,
        extra_globals: &[RawOption],
        own: &[&RawOption],
    ) -> Result<Pending, JobError> {
        let mut state = self.def.clone();
        // fio names a job after its section (or --name); a global name= does not carry over.
        state.name = None;
        let mut merged = self.def_records.clone();
        for option in extra_globals {
            merged.push(apply(&mut state, option, &mut self.notices)?);
        }
        let mut job_options = Vec::new();
        for option in own {
            let record = apply(&mut state, option, &mut self.notices)?;
            job_options.push(record.clone());
            merged.push(record);
        }
        let mut spec = state.finish(name, at, &mut self.notices)?;
        spec.options = last_values(merged);
        spec.job_options = job_options;
        Ok(Pending { spec, new_group: state.stonewall || state.new_group })
    }
}

/// fio's parse order within a job-file section: higher priority first, otherwise as written.
fn by_priority(options: &[RawOption]) -> Vec<&RawOption> {
    let mut sorted: Vec<&RawOption> = options.iter().collect();
    sorted.sort_by_key(|o| std::cmp::Reverse(table::lookup(&o.key).map_or(0, |d| d.prio)));
    sorted
}

/// One entry per option name, where it first appeared, holding its last value.
fn last_values(records: Vec<Record>) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::with_capacity(records.len());
    for (key, value) in records {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => out.push((key, value)),
        }
    }
    out
}

/// fio's `add_job`: a job with `stonewall` or `new_group` starts a new group when the current group
/// already has jobs (clones from `numjobs` never do).
fn assign_groups(pending: Vec<Pending>) -> Vec<JobSpec> {
    let mut group = 0u32;
    let mut jobs_in_group = 0u64;
    pending
        .into_iter()
        .map(|p| {
            let mut spec = p.spec;
            if p.new_group && jobs_in_group > 0 {
                group += 1;
                jobs_in_group = 0;
            }
            spec.group = group;
            jobs_in_group += u64::from(spec.numjobs);
            spec
        })
        .collect()
}
