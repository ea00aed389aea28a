//! `nfsbench run`'s command line: nfsbench's own flags (`--target`, `-o`, `--output-format`,
//! `--output`, `--client-threads`, `--eta`, `--rdma-*`, `--wan`) are taken out; the job file is the positional argument that
//! names an existing file; everything else goes, in order, to the fio option parser, as fio reads its
//! own command line (`--name=a --rw=read --name=b ...`). `--directory DIR` is fio's option set for every
//! job: it goes first, before any `--name`, where fio options apply to all jobs.
//!
//! Without `--target` the jobs run on local paths through the file engine; the NFS-only flags (`-o`,
//! `--rdma-*`, `--wan`) are then refused by name.

use std::path::PathBuf;

pub use compare::plan::Engine;
use mount_options::ProviderChoice;

use mount_options::rdma::{parse_credits, parse_inline};

/// fio's output formats that nfsbench writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Normal,
    Json,
    JsonPlus,
}

/// When the live progress line is drawn (fio's `--eta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eta {
    Auto,
    Always,
    Never,
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub struct RunArgs {
    pub job_file: Option<PathBuf>,
    /// The NFS export; `None`: the file engine on the jobs' local paths.
    pub target: Option<String>,
    pub mount_options: Option<String>,
    pub formats: Vec<Format>,
    pub output: Option<PathBuf>,
    pub client_threads: Option<usize>,
    pub eta: Eta,
    /// `--rdma-provider` (auto: verbs when an RDMA device exists, else soft).
    pub rdma_provider: ProviderChoice,
    /// `--rdma-credits`: credits requested from the server (RFC 8166 §3.3); default 128 like Linux.
    pub rdma_credits: Option<u32>,
    /// `--rdma-inline`: the inline threshold offered (RFC 8797); default 4096.
    pub rdma_inline: Option<u32>,
    /// `--wan`: the long-distance link the client emulates.
    pub wan: Option<mount_options::LinkSpec>,
    pub fio_args: Vec<String>,
    pub help: bool,
    /// `--engine kernel`: mount the target with the OS's NFS client and run the jobs on the mount.
    pub engine: Engine,
}

impl RunArgs {
    /// The first `--rdma-*` flag given, for refusing them on a TCP mount.
    pub fn rdma_flag_given(&self) -> Option<&'static str> {
        if self.rdma_provider != ProviderChoice::Auto {
            Some("--rdma-provider")
        } else if self.rdma_credits.is_some() {
            Some("--rdma-credits")
        } else if self.rdma_inline.is_some() {
            Some("--rdma-inline")
        } else {
            None
        }
    }
}

/// What `--engine kernel` needs (a target) and refuses (nfsbench's own client's flags, `--directory`).
fn kernel_engine_args(parsed: &RunArgs, directory: bool) -> Result<(), String> {
    let block = parsed.target.as_deref().filter(|t| kernel_attach::Target::is_target_url(t));
    if parsed.engine != Engine::Kernel {
        return match block {
            Some(target) => Err(format!(
                "--target {target} is a block transport, attached by the kernel's own initiator: add --engine kernel"
            )),
            None => Ok(()),
        };
    }
    if parsed.target.is_none() {
        return Err("--engine kernel mounts an NFS export or SMB share or attaches a block target: give --target \
                    HOST:/EXPORT, //HOST/SHARE, nvme-tcp://HOST/NQN, nvme-rdma://HOST/NQN, iscsi://HOST/IQN or \
                    iser://HOST/IQN"
            .into());
    }
    // The kernel's transports get the link on the path (netem), for what netem can do.
    if let Some(wan) = &parsed.wan {
        kernel_link::kernel_link_spec(wan).map_err(|e| e.to_string())?;
    }
    let own_client_only = [parsed.rdma_flag_given(), directory.then_some("--directory")];
    match own_client_only.into_iter().flatten().next() {
        Some(flag) => Err(format!(
            "{flag} does not apply to --engine kernel (the kernel's client is set with -o mount options, and the \
             jobs run on its mount)"
        )),
        None => Ok(()),
    }
}

/// Split `args` (what follows `nfsbench run`).
pub fn parse(args: &[String]) -> Result<RunArgs, String> {
    let mut parsed = RunArgs {
        job_file: None,
        target: None,
        mount_options: None,
        formats: vec![Format::Normal],
        output: None,
        client_threads: None,
        eta: Eta::Auto,
        rdma_provider: ProviderChoice::Auto,
        rdma_credits: None,
        rdma_inline: None,
        wan: None,
        fio_args: Vec::new(),
        help: false,
        engine: Engine::Nfsbench,
    };
    let mut directory = None;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with('-') => (k, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{name} needs a value"))
        };
        match key {
            "-h" | "--help" => parsed.help = true,
            "--target" => parsed.target = Some(value("--target")?),
            "--engine" => {
                let name = value("--engine")?;
                parsed.engine =
                    Engine::parse(&name).ok_or_else(|| format!("--engine '{name}' is not nfsbench or kernel"))?;
            }
            "--directory" => directory = Some(value("--directory")?),
            "-o" | "--options" => parsed.mount_options = Some(value("-o")?),
            "--output-format" | "--output_format" => parsed.formats = parse_formats(&value("--output-format")?)?,
            "--output" => parsed.output = Some(PathBuf::from(value("--output")?)),
            "--client-threads" => parsed.client_threads = Some(parse_threads(&value("--client-threads")?)?),
            "--eta" => parsed.eta = parse_eta(&value("--eta")?)?,
            "--rdma-provider" => {
                parsed.rdma_provider = value("--rdma-provider")?.parse::<ProviderChoice>().map_err(|e| e.to_string())?
            }
            "--rdma-credits" => {
                parsed.rdma_credits = Some(parse_credits(&value("--rdma-credits")?).map_err(|e| e.to_string())?)
            }
            "--rdma-inline" => {
                parsed.rdma_inline = Some(parse_inline(&value("--rdma-inline")?).map_err(|e| e.to_string())?)
            }
            "--wan" => parsed.wan = Some(mount_options::LinkSpec::parse(&value("--wan")?).map_err(|e| e.to_string())?),
            _ if key.starts_with("-o") && !key.starts_with("--") => parsed.mount_options = Some(key[2..].to_string()),
            _ if !arg.starts_with('-') && parsed.job_file.is_none() && PathBuf::from(arg).is_file() => {
                parsed.job_file = Some(PathBuf::from(arg));
            }
            _ => parsed.fio_args.push(arg.clone()),
        }
        i += 1;
    }
    if parsed.help {
        return Ok(parsed);
    }
    kernel_engine_args(&parsed, directory.is_some())?;
    if let Some(dir) = directory {
        parsed.fio_args.insert(0, format!("--directory={dir}"));
    }
    if parsed.target.is_none() {
        let nfs_only = [
            parsed.mount_options.is_some().then_some("-o"),
            parsed.rdma_flag_given(),
            parsed.wan.is_some().then_some("--wan"),
        ];
        if let Some(flag) = nfs_only.into_iter().flatten().next() {
            return Err(format!(
                "{flag} applies to an NFS --target only (without --target the jobs run on local files)"
            ));
        }
    }
    if parsed.job_file.is_none() && !parsed.fio_args.iter().any(|a| a.starts_with("--name")) {
        return Err("no job: give a job file or fio options starting with --name=NAME".into());
    }
    Ok(parsed)
}

/// fio's `--output-format`: one or more of normal, json, json+ separated by commas (terse is not written).
pub fn parse_formats(text: &str) -> Result<Vec<Format>, String> {
    text.split(',')
        .map(|f| match f.trim() {
            "normal" => Ok(Format::Normal),
            "json" => Ok(Format::Json),
            "json+" => Ok(Format::JsonPlus),
            other => Err(format!("unsupported --output-format '{other}' (normal, json or json+)")),
        })
        .collect()
}

fn parse_eta(text: &str) -> Result<Eta, String> {
    match text {
        "auto" => Ok(Eta::Auto),
        "always" => Ok(Eta::Always),
        "never" => Ok(Eta::Never),
        other => Err(format!("unsupported --eta '{other}' (auto, always or never)")),
    }
}

fn parse_threads(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err(format!("--client-threads '{text}' is not a thread count from 1 to 256")),
    }
}

/// `nfsbench run --help`.
pub const HELP: &str = "\
Run fio-style jobs against an NFS export through nfsbench's own NFS client (NFSv3, NFSv4.1, NFSv4.2; no
mount, no root).

Usage: nfsbench run [JOBFILE.fio] [--name=NAME --rw=... --bs=... fio options]
                    --target HOST:/EXPORT | nfs://HOST/EXPORT?version=3&nfsport=P&mountport=P&nconnect=N
                    [-o MOUNT_OPTIONS] [--output-format=normal|json|json+] [--output FILE]
       nfsbench run [JOBFILE.fio] [fio options] --directory DIR | --filename=PATH
                    (no --target: the file engine, io_uring on any mounted file system or block device)

  --target T             the export: HOST:/EXPORT as mount.nfs takes it, or a libnfs nfs:// URL
  --engine kernel        mount the target with the OS's NFS client (mount.nfs, -o as written, a private
                         mount namespace; root) and run the jobs on the mount with the file engine; the
                         JSON gains what the kernel negotiated and its RPC counters over the run.
                         With a block target (nvme-tcp://HOST[:PORT]/NQN, nvme-rdma://..., iscsi://HOST[:PORT]/IQN,
                         iser://...) the kernel's initiator attaches it (nvme connect, iscsiadm login; -o takes
                         its options: nr_io_queues=,queue_size=,... or header_digest=,max_recv_dlength=,...),
                         the jobs run on the block device, and it is detached after the run
  --directory DIR        fio's directory= for every job; without --target the jobs' files are there
                         (the file engine: direct=1 is O_DIRECT, fio's io_uring engine's model)
  -o OPTIONS             mount.nfs options: vers=3|4|4.1|4.2,proto=tcp|rdma,port=,mountport=,nconnect=,
                         remoteports=A-B (or A~B~C),max_connect=,rsize=,wsize=,timeo=,retrans=,hard|soft,...
                         proto=rdma: RPC-over-RDMA v1 to port 20049 (NFSv3's MOUNT stays on TCP);
                         NFSv4 goes to port 2049 (20049 over RDMA) with no port mapper and no MOUNT
  --output-format F      normal (default), json, json+ or a comma list, as fio writes them
  --output FILE          write the results to FILE instead of stdout
  --client-threads N     client threads (default: half the cores, at most one per job clone)
  --eta auto|always|never
                         the live progress line on stderr (auto: when stderr is a terminal)
  --rdma-provider P      auto (default: verbs when an RDMA device exists, else soft), verbs
                         (rdma-core: InfiniBand, RoCE, iWARP, Soft-RoCE) or soft (shared memory,
                         client and server on one host, no RDMA device needed)
  --rdma-credits N       credits requested from the server, 1..=1024 (default 128, as Linux)
  --rdma-inline SIZE     inline threshold offered, 1KiB..=64KiB (default 4KiB, RFC 8797)
  --wan SPEC             emulate a long-distance link on the client side, e.g. rtt=20ms,rate=10gbit; with
                         --engine kernel it is put on the path to the target with tc netem (rtt, distance,
                         rate, loss; root), and taken off after the run
                         (rtt= or distance=8600mi|km at 5 us/km each way; rate=, jitter=, loss=0.1%,
                         tcp_window=6m): every NFS connection is delayed and paced as on that link;
                         MOUNT and the port mapper are not. proto=tcp only for now

fio options: name, description, rw/readwrite, rwmixread, rwmixwrite, bs, bsrange, bssplit, size,
filesize, nrfiles, filename, directory, offset, iodepth, numjobs, runtime, time_based, ramp_time,
startdelay, loops, direct, buffered, fsync, fdatasync, end_fsync, create_on_open, verify (crc32c, md5),
verify_fatal, verify_interval, do_verify, randrepeat, randseed, norandommap, group_reporting,
stonewall, new_group, percentile_list, ioengine (ignored: I/O goes through nfsbench's NFS client, or
io_uring for the file engine).
Any other option is refused by name.

Exit status: 0 success; 1 the run failed (verify or I/O error, server unreachable); 2 bad usage.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn nfsbench_flags_are_taken_out_and_fio_options_kept_in_order() {
        let parsed = parse(&args(&[
            "--name=a",
            "--rw=read",
            "--target",
            "h:/export",
            "-o",
            "vers=3,nconnect=4",
            "--bs",
            "4k",
            "--output-format=json+",
        ]))
        .expect("parses");
        assert_eq!(parsed.target.as_deref(), Some("h:/export"));
        assert_eq!(parsed.mount_options.as_deref(), Some("vers=3,nconnect=4"));
        assert_eq!(parsed.formats, vec![Format::JsonPlus]);
        assert_eq!(parsed.fio_args, args(&["--name=a", "--rw=read", "--bs", "4k"]));
    }

    #[test]
    fn a_wan_spec_is_parsed_and_a_bad_one_refused_by_name() {
        let parsed = parse(&args(&["--name=a", "--target", "h:/e", "--wan", "rtt=20ms,rate=10gbit"])).expect("parses");
        assert_eq!(parsed.wan.map(|w| w.to_string()).as_deref(), Some("rtt=20ms,rate=10gbit"));
        let e = parse(&args(&["--name=a", "--target", "h:/e", "--wan=rtt=20ms,rate=10gbps"])).unwrap_err();
        assert!(e.starts_with("--wan rate=10gbps") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn without_a_target_the_nfs_flags_are_refused_by_name() {
        assert_eq!(parse(&args(&["--name=a"])).expect("the file engine").target, None);
        for (flag, given) in [
            ("-o", &["-o", "vers=3"][..]),
            ("--rdma-credits", &["--rdma-credits", "32"]),
            ("--wan", &["--wan", "rtt=1ms"]),
        ] {
            let e =
                parse(&[&["--name=a"], given].concat().iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap_err();
            assert!(e.starts_with(&format!("{flag} applies to an NFS --target only")), "{e}");
        }
    }

    #[test]
    fn directory_applies_to_every_job() {
        let parsed = parse(&args(&["--name=a", "--directory", "/mnt/x", "--name=b"])).expect("parses");
        assert_eq!(parsed.fio_args, args(&["--directory=/mnt/x", "--name=a", "--name=b"]));
    }

    #[test]
    fn unknown_output_formats_are_refused_by_name() {
        assert!(parse_formats("terse").unwrap_err().contains("terse"));
        assert_eq!(parse_formats("normal,json").expect("two"), vec![Format::Normal, Format::Json]);
    }

    #[test]
    fn a_block_target_is_the_kernel_engines_and_says_so_without_it() {
        let url = "nvme-rdma://10.99.0.1/nqn.2026-11.io.nfsbench:ram0";
        let e = parse(&args(&["--name=a", "--target", url])).unwrap_err();
        assert!(e.contains(url) && e.contains("add --engine kernel"), "{e}");
        let parsed = parse(&args(&["--name=a", "--engine", "kernel", "--target", url, "-o", "queue_size=64"]));
        assert_eq!(parsed.expect("ok").mount_options.as_deref(), Some("queue_size=64"));
    }

    #[test]
    fn engine_kernel_needs_a_target_and_refuses_nfsbench_client_flags_by_name() {
        let parsed =
            parse(&args(&["--name=a", "--engine", "kernel", "--target", "h:/e", "-o", "vers=4.1"])).expect("ok");
        assert_eq!((parsed.engine, parsed.mount_options.as_deref()), (Engine::Kernel, Some("vers=4.1")));
        let e = parse(&args(&["--name=a", "--engine=kernel"])).unwrap_err();
        assert!(e.contains("give --target"), "{e}");
        let far = parse(&args(&["--name=a", "--engine", "kernel", "--target", "h:/e", "--wan", "rtt=20ms"]));
        assert!(far.expect("a link goes on the path").wan.is_some());
        let e = parse(&args(&["--name=a", "--engine", "kernel", "--target", "h:/e", "--wan", "rtt=2ms,jitter=1ms"]))
            .unwrap_err();
        assert!(e.starts_with("--wan jitter is not for the kernel engine"), "{e}");
        for flag in [&["--rdma-credits", "32"][..], &["--directory", "/mnt"]] {
            let mut line = args(&["--name=a", "--engine", "kernel", "--target", "h:/e"]);
            line.extend(args(flag));
            let e = parse(&line).unwrap_err();
            assert!(e.starts_with(&format!("{} does not apply to --engine kernel", flag[0])), "{e}");
        }
        assert!(parse(&args(&["--name=a", "--engine", "fuse"]))
            .unwrap_err()
            .contains("'fuse' is not nfsbench or kernel"));
    }
}
