//! The job-file lexer: fio's INI dialect turned into sections of raw `key[=value]` options.
//!
//! As fio 3.33 reads a job file: blank lines and lines whose first non-blank character is `;` or `#` are
//! skipped; anything from the first `;` or `#` on a line is a comment (so values cannot hold them);
//! `[name]` opens a section and a name starting with `global` makes it a global section; an option
//! line outside a section is an error; `include FILE` splices FILE's lines into the current section
//! (FILE may not open sections; a relative FILE is looked up as given, then beside the including file).
//! `${VAR}` and fio's `$ncpus`-style keywords are substituted in option lines. Unlike fio, blanks around
//! `=` are ignored (fio reads `bs = 4k` as 4 bytes).

use crate::error::{JobError, Location};
use crate::subst::{substitute, Host};
use std::path::Path;

/// One option as written: name, optional value, and where it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawOption {
    pub key: String,
    pub value: Option<String>,
    pub at: Location,
}

/// A `[global]`-type section, or a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SectionKind {
    Global,
    Job(String),
}

/// A section with its options in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub kind: SectionKind,
    pub at: Location,
    pub options: Vec<RawOption>,
}

/// What the lexer needs from the outside world (injectable for tests).
pub(crate) struct Context<'a> {
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub host: &'a Host,
    pub read_file: &'a dyn Fn(&Path) -> std::io::Result<String>,
}

const MAX_INCLUDE_DEPTH: usize = 16;
const MAX_SECTION_NAME: usize = 255;

/// Lexes a whole job file.
pub(crate) fn lex(text: &str, file: &str, cx: &Context<'_>) -> Result<Vec<Section>, JobError> {
    let mut sections: Vec<Section> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let at = Location::File { file: file.to_string(), line: index + 1 };
        let Some(line) = clean_line(raw) else { continue };
        if line.starts_with('[') {
            sections.push(section_header(line, at)?);
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(JobError::Syntax { at, message: format!("'{line}' is outside any [section]") });
        };
        option_line(line, at, file, cx, 0, &mut section.options)?;
    }
    Ok(sections)
}

/// Strips comments and blanks as fio does; None for a line with nothing left.
fn clean_line(raw: &str) -> Option<&str> {
    let cut = raw.find([';', '#']).unwrap_or(raw.len());
    let line = raw[..cut].trim();
    (!line.is_empty()).then_some(line)
}

fn section_header(line: &str, at: Location) -> Result<Section, JobError> {
    let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
        return Err(JobError::Syntax { at, message: format!("bad section header '{line}': expected [name]") });
    };
    if name.is_empty() || name.len() > MAX_SECTION_NAME {
        return Err(JobError::Syntax {
            at,
            message: format!("section name must be 1 to {MAX_SECTION_NAME} characters"),
        });
    }
    let kind = if name.starts_with("global") { SectionKind::Global } else { SectionKind::Job(name.to_string()) };
    Ok(Section { kind, at, options: Vec::new() })
}

/// An option or include line inside a section (of the job file or of an included file).
fn option_line(
    line: &str,
    at: Location,
    file: &str,
    cx: &Context<'_>,
    depth: usize,
    out: &mut Vec<RawOption>,
) -> Result<(), JobError> {
    if let Some(path) = include_target(line) {
        return include(path, at, file, cx, depth, out);
    }
    let line = substitute(line, cx.env, cx.host)
        .map_err(|detail| JobError::Syntax { at: at.clone(), message: format!("'{line}': {detail}") })?;
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
        None => (line.trim().to_string(), None),
    };
    out.push(RawOption { key, value, at });
    Ok(())
}

fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    rest.starts_with(char::is_whitespace).then(|| rest.trim())
}

fn include(
    path: &str,
    at: Location,
    file: &str,
    cx: &Context<'_>,
    depth: usize,
    out: &mut Vec<RawOption>,
) -> Result<(), JobError> {
    if depth >= MAX_INCLUDE_DEPTH {
        return Err(JobError::Syntax {
            at,
            message: format!("include {path}: nested more than {MAX_INCLUDE_DEPTH} deep"),
        });
    }
    let (resolved, text) = read_include(path, file, cx).map_err(|source| JobError::Include {
        at: at.clone(),
        path: path.to_string(),
        source,
    })?;
    for (index, raw) in text.lines().enumerate() {
        let inner_at = Location::File { file: resolved.clone(), line: index + 1 };
        let Some(line) = clean_line(raw) else { continue };
        if line.starts_with('[') {
            return Err(JobError::Syntax {
                at: inner_at,
                message: "an included file may not open sections".to_string(),
            });
        }
        option_line(line, inner_at, &resolved, cx, depth + 1, out)?;
    }
    Ok(())
}

/// fio tries the path as given first, then relative to the including file's directory.
fn read_include(path: &str, file: &str, cx: &Context<'_>) -> std::io::Result<(String, String)> {
    match (cx.read_file)(Path::new(path)) {
        Ok(text) => Ok((path.to_string(), text)),
        Err(first) => {
            let dir = Path::new(file).parent().filter(|d| !d.as_os_str().is_empty());
            match dir {
                Some(dir) if Path::new(path).is_relative() => {
                    let beside = dir.join(path);
                    let text = (cx.read_file)(&beside)?;
                    Ok((beside.display().to_string(), text))
                }
                _ => Err(first),
            }
        }
    }
}
