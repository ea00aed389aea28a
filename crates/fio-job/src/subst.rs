//! fio's substitutions in job-file option lines: `${VAR}` from the environment (an unset variable becomes
//! the empty string, as in fio; a bare `$VAR` is left alone) and the reserved keywords `$pagesize`,
//! `$mb_memory` and `$ncpus`, after which fio runs the value through `bc` when it holds `+ - * /`.

use crate::units::{eval_expr, ArithmeticError};

/// The machine facts behind fio's reserved keywords.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// `$pagesize`.
    pub page_size: u64,
    /// `$mb_memory`: physical memory in MiB.
    pub mb_memory: u64,
    /// `$ncpus`.
    pub ncpus: u64,
}

impl Host {
    /// This machine: CPUs from the scheduler's view, memory from /proc/meminfo (0 where unknown), and a
    /// 4 KiB page (what every Linux platform nfsbench targets uses).
    pub fn detect() -> Host {
        let ncpus = std::thread::available_parallelism().map(|n| n.get() as u64).unwrap_or(1);
        let mb_memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                text.lines().find_map(|l| {
                    let rest = l.strip_prefix("MemTotal:")?;
                    rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok()
                })
            })
            .map_or(0, |kib| kib / 1024);
        Host { page_size: 4096, mb_memory, ncpus }
    }
}

/// Applies the substitutions to one `key=value` line; the error is about the arithmetic.
pub(crate) fn substitute(
    line: &str,
    env: &dyn Fn(&str) -> Option<String>,
    host: &Host,
) -> Result<String, ArithmeticError> {
    let expanded = expand_env(line, env);
    let keywords = [("$pagesize", host.page_size), ("$mb_memory", host.mb_memory), ("$ncpus", host.ncpus)];
    let mut out = expanded;
    let mut replaced = false;
    for (word, value) in keywords {
        if out.contains(word) {
            out = out.replace(word, &value.to_string());
            replaced = true;
        }
    }
    if !replaced || !out.contains(['+', '-', '*', '/']) || out.contains('\'') {
        return Ok(out);
    }
    match out.split_once('=') {
        Some((key, value)) => {
            let v = eval_expr(value)?;
            Ok(format!("{key}={v}"))
        }
        None => Ok(out),
    }
}

/// `${NAME}` → the variable's value, or nothing when it is unset. `${` without a closing brace stays.
fn expand_env(line: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        out.push_str(&rest[..start]);
        let name = &rest[start + 2..start + 2 + len];
        if let Some(value) = env(name) {
            out.push_str(&value);
        }
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "SIZE" => Some("1g".into()),
            "DIR" => Some("/data".into()),
            _ => None,
        }
    }

    const HOST: Host = Host { page_size: 4096, mb_memory: 2048, ncpus: 8 };

    #[test]
    fn braced_variables_are_expanded_and_unset_ones_vanish() {
        assert_eq!(substitute("size=${SIZE}", &env, &HOST).unwrap(), "size=1g");
        assert_eq!(substitute("filename=${DIR}/f${NOPE}.dat", &env, &HOST).unwrap(), "filename=/data/f.dat");
        assert_eq!(substitute("description=${unclosed", &env, &HOST).unwrap(), "description=${unclosed");
    }

    #[test]
    fn bare_dollar_names_are_left_alone() {
        assert_eq!(substitute("description=$SIZE", &env, &HOST).unwrap(), "description=$SIZE");
    }

    #[test]
    fn reserved_keywords_are_replaced_and_arithmetic_evaluated() {
        assert_eq!(substitute("numjobs=$ncpus", &env, &HOST).unwrap(), "numjobs=8");
        assert_eq!(substitute("numjobs=$ncpus*2", &env, &HOST).unwrap(), "numjobs=16");
        assert_eq!(substitute("bs=$pagesize", &env, &HOST).unwrap(), "bs=4096");
        assert_eq!(substitute("size=$mb_memory/2", &env, &HOST).unwrap(), "size=1024");
        assert_eq!(substitute("size=$mb_memory/2m", &env, &HOST), Err(ArithmeticError::Unparsed("2048/2m".into())));
    }
}
