//! fio-style command-line options → the same raw sections a job file gives.
//!
//! As fio's `getopt_long_only` loop: `--opt=value`, or `--opt value` for options that need a value;
//! flags such as `--time_based` never take the next argument (only `--time_based=0`). Options before
//! the first `--name` are global; each `--name=JOB` starts a job (`--name=global...` a global section)
//! and is itself recorded as the job's `name` option, as fio records it. `--output-format` (also spelt
//! `--output_format`) is the one non-job option taken here. No `${VAR}` substitution: the shell did it.

use crate::error::{JobError, Location};
use crate::ini::{RawOption, Section, SectionKind};
use crate::spec::OutputFormat;
use crate::table;

/// The command line split into its parts.
#[derive(Debug, Default)]
pub(crate) struct CmdLine {
    /// Options before the first `--name`.
    pub globals: Vec<RawOption>,
    /// `--name=...` sections in order.
    pub sections: Vec<Section>,
    pub output_format: Option<Vec<OutputFormat>>,
}

pub(crate) fn parse(args: &[String]) -> Result<CmdLine, JobError> {
    let mut cmd = CmdLine::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(body) = arg.strip_prefix("--") else {
            return Err(JobError::Syntax {
                at: Location::Arg(arg.clone()),
                message: "unexpected argument: fio options are written --option=value".to_string(),
            });
        };
        let (name, value, shown) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string()), arg.clone()),
            None if takes_value(body) => match args.get(i) {
                Some(next) => {
                    i += 1;
                    (body, Some(next.clone()), format!("{arg} {next}"))
                }
                None => {
                    return Err(JobError::MissingValue { at: Location::Arg(arg.clone()), option: body.to_string() })
                }
            },
            None => (body, None, arg.clone()),
        };
        let at = Location::Arg(shown);
        if name == "output-format" || name == "output_format" {
            cmd.output_format = Some(output_formats(value.as_deref().unwrap_or(""), &at)?);
            continue;
        }
        if name == "name" {
            let job = match value.as_deref() {
                Some(v) if !v.is_empty() => v.to_string(),
                _ => return Err(JobError::MissingValue { at, option: "name".into() }),
            };
            let global = job.starts_with("global");
            let kind = if global { SectionKind::Global } else { SectionKind::Job(job.clone()) };
            let mut section = Section { kind, at: at.clone(), options: Vec::new() };
            if !global {
                section.options.push(RawOption { key: "name".into(), value: Some(job), at });
            }
            cmd.sections.push(section);
            continue;
        }
        if table::lookup(name).is_none() {
            // Unknown here means we cannot tell whether it took the next argument: stop at it.
            return Err(JobError::UnsupportedOption { at, name: name.to_string(), suggestion: table::suggest(name) });
        }
        let option = RawOption { key: name.to_string(), value, at };
        match cmd.sections.last_mut() {
            Some(section) => section.options.push(option),
            None => cmd.globals.push(option),
        }
    }
    Ok(cmd)
}

/// Whether `--opt` without `=` consumes the next argument (fio: every option but the flags does).
fn takes_value(name: &str) -> bool {
    match name {
        "name" | "output-format" | "output_format" => true,
        _ => table::lookup(name).is_some_and(|def| !def.flag),
    }
}

/// fio's `--output-format` list: `normal`, `json`, `json+`, comma separated.
fn output_formats(value: &str, at: &Location) -> Result<Vec<OutputFormat>, JobError> {
    if value.is_empty() {
        return Err(JobError::MissingValue { at: at.clone(), option: "output-format".into() });
    }
    value
        .split(',')
        .map(|f| match f {
            "normal" => Ok(OutputFormat::Normal),
            "json" => Ok(OutputFormat::Json),
            "json+" => Ok(OutputFormat::JsonPlus),
            "terse" | "minimal" | "csv" => Err(JobError::UnsupportedValue {
                at: at.clone(),
                option: "output-format",
                value: f.to_string(),
                why: "use normal, json or json+".into(),
            }),
            _ => Err(JobError::BadValue {
                at: at.clone(),
                option: "output-format",
                what: "output format",
                value: f.to_string(),
                detail: "use normal, json or json+ (comma separated)".into(),
            }),
        })
        .collect()
}
