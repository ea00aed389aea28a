#![no_main]
//! fio job files and fio-style command lines (crates/fio-job) on arbitrary text.
//!
//! Input: UTF-8 text (invalid sequences replaced), split on NUL: the first piece is the job file (none
//! when it is empty, i.e. the input starts with NUL), the others are command-line arguments. Parsed with
//! fixed outside inputs so every run is deterministic and touches no file: `${VAR}` sees a small fixed
//! environment, `include` sees a few in-memory files (one including itself), and `$ncpus` and friends a
//! fixed host. Must not panic; errors must print; and the O(1) file rules of each parsed job must not
//! panic either.
use std::io;
use std::path::Path;

use fio_job::{Host, Parser};
use libfuzzer_sys::fuzz_target;

fn env(name: &str) -> Option<String> {
    match name {
        "BS" => Some("4k".into()),
        "SIZE" => Some("64m".into()),
        "RW" => Some("randread".into()),
        "EMPTY" => Some(String::new()),
        "EXPR" => Some("$ncpus*2".into()),
        _ => None,
    }
}

fn read_file(path: &Path) -> io::Result<String> {
    let text = match path.to_str() {
        Some("common.fio") | Some("./common.fio") => "bs=4k\nrw=randread\n; comment\nsize=${SIZE}\n",
        Some("nested.fio") => "include common.fio\niodepth=$ncpus\n",
        Some("self.fio") => "include self.fio\n",
        Some("section.fio") => "[job]\nrw=read\n",
        _ => return Err(io::Error::new(io::ErrorKind::NotFound, "no such file (fuzz)")),
    };
    Ok(text.to_string())
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut pieces = text.split('\0');
    let job_file = pieces.next().filter(|t| !t.is_empty());
    let args: Vec<String> = pieces.map(str::to_string).collect();
    let host = Host { page_size: 4096, mb_memory: 2048, ncpus: 8 };
    let parser = Parser::new().env(env).read_file(read_file).host(host);
    match parser.parse(job_file.map(|t| (t, "fuzz.fio")), &args) {
        Ok(set) => {
            for job in &set.jobs {
                let _ = (job.min_bs(), job.file_count(), job.directories(), job.effective_verify_interval());
                for filenum in 0..job.file_count().min(4) {
                    let _ = (job.file_size(filenum), job.file_io_size(filenum));
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
