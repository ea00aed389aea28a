//! Applying one option to the option state, with fio's value rules per option (fio's `options.c`
//! table and callbacks). Lists for read/write (`bs=4k,64k`) follow fio's `handle_option`: an empty
//! entry keeps the previous value, a single entry sets both directions, a third entry (trims) is ignored.

use crate::error::{JobError, Location};
use crate::files::split_names;
use crate::ini::RawOption;
use crate::spec::{Rw, Verify};
use crate::state::{Notices, State};
use crate::table::{self, Opt, OptDef};
use crate::units::{parse_bool, parse_float, parse_size, parse_time_us, Size, ValueError};

/// fio's `FIO_IO_U_LIST_MAX_LEN`.
const MAX_PERCENTILES: usize = 20;
/// fio's `BSSPLIT_MAX`.
const MAX_BSSPLIT: usize = 64;
/// fio's minimum `verify_interval`: two verify headers.
const MIN_VERIFY_INTERVAL: u64 = 80;

/// What parsing one option needs to report errors well.
struct Ctx<'a> {
    at: &'a Location,
    def: &'static OptDef,
}

impl Ctx<'_> {
    fn bad(&self, value: &str, e: ValueError) -> JobError {
        JobError::BadValue {
            at: self.at.clone(),
            option: self.def.name,
            what: e.what,
            value: value.into(),
            detail: e.detail,
        }
    }

    fn range(&self, value: &str, rule: &str) -> JobError {
        JobError::OutOfRange { at: self.at.clone(), option: self.def.name, value: value.into(), rule: rule.into() }
    }

    fn unsupported(&self, value: &str, why: &str) -> JobError {
        JobError::UnsupportedValue { at: self.at.clone(), option: self.def.name, value: value.into(), why: why.into() }
    }

    fn bytes(&self, v: &str, kb_base: u32) -> Result<u64, JobError> {
        match parse_size(v, kb_base).map_err(|e| self.bad(v, e))? {
            Size::Bytes(b) => Ok(b),
            Size::Percent(_) => Err(self.unsupported(v, "a percentage is not supported for this option")),
        }
    }

    fn int(&self, v: &str, kb_base: u32, min: u32, max: u32) -> Result<u32, JobError> {
        let n = self.bytes(v, kb_base)?;
        match u32::try_from(n) {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ if max == u32::MAX => Err(self.range(v, &format!("must be at least {min} and below 2^32"))),
            _ => Err(self.range(v, &format!("must be {min}..={max}"))),
        }
    }

    fn bool(&self, v: &str) -> Result<bool, JobError> {
        parse_bool(v).map_err(|e| self.bad(v, e))
    }

    fn time(&self, v: &str) -> Result<u64, JobError> {
        parse_time_us(v, true).map_err(|e| self.bad(v, e))
    }
}

/// Applies `raw` to `state`; returns fio's record of it (canonical name, value; "" for a bare flag).
pub(crate) fn apply(state: &mut State, raw: &RawOption, notices: &mut Notices) -> Result<(String, String), JobError> {
    let Some(def) = table::lookup(&raw.key) else {
        return Err(JobError::UnsupportedOption {
            at: raw.at.clone(),
            name: raw.key.clone(),
            suggestion: table::suggest(&raw.key),
        });
    };
    let cx = Ctx { at: &raw.at, def };
    if def.opt == Opt::Thread {
        notices.push("thread: no effect: nfsbench runs every job clone as a task of one process".to_string());
    }
    let v = match raw.value.as_deref() {
        Some(v) if !v.is_empty() => v,
        None if def.flag => {
            set_flag(state, def.opt, true);
            return Ok((def.name.to_string(), String::new()));
        }
        _ => return Err(JobError::MissingValue { at: raw.at.clone(), option: raw.key.clone() }),
    };
    let kb = state.kb_base;
    match def.opt {
        Opt::Name => state.name = Some(v.to_string()),
        Opt::Description => state.description = Some(v.to_string()),
        Opt::Rw => state.rw = rw(&cx, v)?,
        Opt::RwMixRead => state.rwmixread = cx.int(v, kb, 0, 100)? as u8,
        Opt::RwMixWrite => state.rwmixread = 100 - cx.int(v, kb, 0, 100)? as u8,
        Opt::Bs => {
            for (dir, entry) in per_direction(&cx, v, true)? {
                let b = cx.bytes(entry, kb)?;
                if b == 0 {
                    return Err(cx.range(v, "block sizes must be at least 1"));
                }
                state.bs[dir] = b;
            }
        }
        Opt::BsRange => {
            for (dir, entry) in per_direction(&cx, v, false)? {
                state.range[dir] = Some(bs_range(&cx, entry, kb)?);
                state.split[dir] = None;
            }
        }
        Opt::BsSplit => {
            for (dir, entry) in per_direction(&cx, v, false)? {
                state.split[dir] = Some(bssplit(&cx, entry, kb)?);
                state.range[dir] = None;
            }
        }
        Opt::Size => {
            state.size = Some(match parse_size(v, kb).map_err(|e| cx.bad(v, e))? {
                Size::Percent(p) if !(1..=100).contains(&p) => return Err(cx.range(v, "a percentage must be 1..=100")),
                size => size,
            })
        }
        Opt::FileSize => state.filesize = Some(file_size(&cx, v, kb)?),
        // nfsbench creates and holds a handle for every file: a bound keeps memory in proportion to sense.
        Opt::NrFiles => state.nrfiles = cx.int(v, kb, 1, 1 << 20)?,
        Opt::FileName => {
            let names = split_names(v);
            if names.iter().any(|n| n == "-") {
                return Err(cx.unsupported(v, "'-' (stdin/stdout) is not a file on the NFS export"));
            }
            // fio adds the files to those the job already has (from [global], or an earlier filename=).
            state.filenames.extend(names);
        }
        Opt::Directory => state.directory = Some(v.to_string()),
        Opt::Offset => state.offset = cx.bytes(v, kb)?,
        Opt::IoDepth => state.iodepth = cx.int(v, kb, 1, u32::MAX)?,
        Opt::NumJobs => state.numjobs = cx.int(v, kb, 1, u32::MAX)?,
        Opt::Runtime => state.runtime_us = cx.time(v)?,
        Opt::RampTime => state.ramp_us = cx.time(v)?,
        Opt::StartDelay => state.startdelay_us = start_delay(&cx, v)?,
        Opt::Loops => state.loops = cx.int(v, kb, 0, u32::MAX)?,
        Opt::Direct => state.direct = cx.bool(v)?,
        Opt::Buffered => state.direct = !cx.bool(v)?,
        Opt::Fsync => state.fsync = cx.int(v, kb, 0, u32::MAX)?,
        Opt::Fdatasync => state.fdatasync = cx.int(v, kb, 0, u32::MAX)?,
        Opt::EndFsync => state.end_fsync = cx.bool(v)?,
        Opt::CreateOnOpen => state.create_on_open = cx.bool(v)?,
        Opt::Verify => state.verify = verify(&cx, v)?,
        Opt::VerifyFatal => state.verify_fatal = cx.bool(v)?,
        Opt::VerifyInterval => {
            let n = cx.int(v, kb, 0, u32::MAX)?;
            if u64::from(n) < MIN_VERIFY_INTERVAL {
                return Err(cx.range(v, &format!("must be at least {MIN_VERIFY_INTERVAL} (two verify headers)")));
            }
            state.verify_interval = Some(u64::from(n));
        }
        Opt::DoVerify => state.do_verify = cx.bool(v)?,
        Opt::RandRepeat => state.randrepeat = cx.bool(v)?,
        Opt::RandSeed => state.randseed = Some(cx.bytes(v, kb)?),
        Opt::IoEngine => {
            notices.push(format!("ioengine={v}: I/O goes through nfsbench's NFS client"));
            state.ioengine = Some(v.to_string());
        }
        Opt::Invalidate => {
            cx.bool(v)?;
            notices.push("invalidate: no effect: nfsbench's NFS client keeps no page cache".to_string());
        }
        Opt::GtodReduce => state.gtod_reduce = cx.bool(v)?,
        Opt::PercentileList => state.percentile_list = Some(percentiles(&cx, v)?),
        Opt::ClatPercentiles => state.clat_percentiles = cx.bool(v)?,
        Opt::LatPercentiles => state.lat_percentiles = cx.bool(v)?,
        Opt::KbBase => {
            state.kb_base = match v {
                "1024" => 1024,
                "1000" => 1000,
                _ => return Err(cx.bad(v, ValueError::new("kb_base", "use 1024 or 1000"))),
            }
        }
        Opt::TimeBased
        | Opt::NoRandomMap
        | Opt::RefillBuffers
        | Opt::GroupReporting
        | Opt::Stonewall
        | Opt::NewGroup
        | Opt::Thread => set_flag(state, def.opt, cx.bool(v)?),
    }
    Ok((def.name.to_string(), v.to_string()))
}

fn set_flag(state: &mut State, opt: Opt, on: bool) {
    match opt {
        Opt::TimeBased => state.time_based = on,
        Opt::NoRandomMap => state.norandommap = on,
        Opt::RefillBuffers => state.refill_buffers = Some(on),
        Opt::GroupReporting => state.group_reporting = on,
        Opt::Stonewall => state.stonewall = on,
        Opt::NewGroup => state.new_group = on,
        _ => {}
    }
}

/// Splits a read,write[,trim] list into `(direction, entry)` pairs that set something. With
/// `colon_dash` (fio's plain integer options such as `bs`) `:` or `-` separate too when there is no `,`.
fn per_direction<'v>(cx: &Ctx<'_>, v: &'v str, colon_dash: bool) -> Result<Vec<(usize, &'v str)>, JobError> {
    let sep = if v.contains(',') || !colon_dash {
        ','
    } else if v.contains(':') {
        ':'
    } else {
        '-'
    };
    let entries: Vec<&str> = v.split(sep).collect();
    if entries.len() > 3 {
        return Err(cx.bad(v, ValueError::new("list", "give at most read,write,trim")));
    }
    Ok(match entries.as_slice() {
        [one] => vec![(0, *one), (1, *one)],
        [read, write, ..] => [(0, *read), (1, *write)].into_iter().filter(|(_, e)| !e.is_empty()).collect(),
        [] => Vec::new(),
    })
}

fn rw(cx: &Ctx<'_>, v: &str) -> Result<Rw, JobError> {
    if let Some((pattern, _)) = v.split_once(':') {
        return Err(
            cx.unsupported(v, &format!("the ':N' offset modifier (rw_sequencer) is not supported; use rw={pattern}"))
        );
    }
    Ok(match v {
        "read" => Rw::Read,
        "write" => Rw::Write,
        "randread" => Rw::RandRead,
        "randwrite" => Rw::RandWrite,
        "rw" | "readwrite" => Rw::ReadWrite,
        "randrw" => Rw::RandRw,
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => {
            return Err(cx.unsupported(v, "trims need a block device; NFSv3 has no trim"))
        }
        _ => {
            return Err(cx.bad(
                v,
                ValueError::new("I/O pattern", "use read, write, randread, randwrite, rw, readwrite or randrw"),
            ))
        }
    })
}

fn bs_range(cx: &Ctx<'_>, entry: &str, kb: u32) -> Result<(u64, u64), JobError> {
    let Some((a, b)) = entry.split_once('-').or_else(|| entry.split_once(':')) else {
        return Err(cx.bad(entry, ValueError::new("range", "expected MIN-MAX, e.g. 4k-64k")));
    };
    let (a, b) = (cx.bytes(a, kb)?, cx.bytes(b, kb)?);
    if a == 0 || b == 0 {
        return Err(cx.range(entry, "block sizes must be at least 1"));
    }
    Ok((a.min(b), a.max(b)))
}

/// `bs/percent:bs/percent...`: blank percentages share what is left evenly; sorted by percentage.
fn bssplit(cx: &Ctx<'_>, entry: &str, kb: u32) -> Result<Vec<(u64, u32)>, JobError> {
    let mut split: Vec<(u64, Option<u32>)> = Vec::new();
    for item in entry.split(':').filter(|i| !i.is_empty()) {
        let (bs, perc) = match item.split_once('/') {
            Some((bs, "")) => (bs, None),
            Some((bs, p)) => {
                let p: u32 = p.parse().map_err(|_| cx.bad(item, ValueError::new("percentage", "expected 0..=100")))?;
                // fio: 0 means "fill in", more than 100 is cut to 100.
                (bs, (p > 0).then_some(p.min(100)))
            }
            None => (item, None),
        };
        let bs = cx.bytes(bs, kb)?;
        if bs == 0 {
            return Err(cx.range(item, "block sizes must be at least 1"));
        }
        split.push((bs, perc));
    }
    if split.is_empty() {
        return Err(cx.bad(entry, ValueError::new("bssplit", "expected bs/percent[:bs/percent...]")));
    }
    if split.len() > MAX_BSSPLIT {
        return Err(cx.range(entry, &format!("at most {MAX_BSSPLIT} block sizes")));
    }
    let given: u32 = split.iter().filter_map(|&(_, p)| p).sum();
    if given > 100 {
        return Err(cx.range(entry, &format!("percentages add up to {given}, more than 100")));
    }
    let missing = split.iter().filter(|(_, p)| p.is_none()).count() as u32;
    let fill = (100 - given).checked_div(missing).unwrap_or(0);
    let mut out: Vec<(u64, u32)> = split.into_iter().map(|(b, p)| (b, p.unwrap_or(fill))).collect();
    out.sort_by_key(|&(_, p)| p);
    Ok(out)
}

/// `filesize=N` or a range `LOW-HIGH` (also `LOW:HIGH`, `LOW,HIGH`), swapped when given high first.
fn file_size(cx: &Ctx<'_>, v: &str, kb: u32) -> Result<(u64, u64), JobError> {
    let (a, b) = match v.split_once([',', ':', '-']) {
        Some((a, b)) => (cx.bytes(a, kb)?, cx.bytes(b, kb)?),
        None => {
            let n = cx.bytes(v, kb)?;
            (n, n)
        }
    };
    if a == 0 || b == 0 {
        return Err(cx.range(v, "file sizes must be at least 1"));
    }
    Ok((a.min(b), a.max(b)))
}

fn start_delay(cx: &Ctx<'_>, v: &str) -> Result<(u64, Option<u64>), JobError> {
    match v.split_once([',', ':', '-']) {
        Some((a, b)) => {
            let (a, b) = (cx.time(a)?, cx.time(b)?);
            Ok((a.min(b), Some(a.max(b))))
        }
        None => Ok((cx.time(v)?, None)),
    }
}

fn verify(cx: &Ctx<'_>, v: &str) -> Result<Option<Verify>, JobError> {
    Ok(match v {
        "0" | "null" => None,
        "md5" => Some(Verify::Md5),
        "crc32c" | "crc32c-intel" => Some(Verify::Crc32c),
        "crc64" | "crc32" | "crc16" | "crc7" | "sha1" | "sha256" | "sha512" | "sha3-224" | "sha3-256" | "sha3-384"
        | "sha3-512" | "xxhash" | "meta" | "pattern" => {
            return Err(cx.unsupported(v, "nfsbench verifies with crc32c or md5"))
        }
        _ => return Err(cx.bad(v, ValueError::new("verify method", "use crc32c, md5, 0 or null"))),
    })
}

fn percentiles(cx: &Ctx<'_>, v: &str) -> Result<Vec<f64>, JobError> {
    let list = v
        .split(':')
        .map(|p| {
            let f = parse_float(p).map_err(|e| cx.bad(p, e))?;
            if (0.0..=100.0).contains(&f) {
                Ok(f)
            } else {
                Err(cx.range(p, "percentiles must be 0..=100"))
            }
        })
        .collect::<Result<Vec<f64>, JobError>>()?;
    if list.len() > MAX_PERCENTILES {
        return Err(cx.range(v, &format!("at most {MAX_PERCENTILES} percentiles")));
    }
    Ok(list)
}
