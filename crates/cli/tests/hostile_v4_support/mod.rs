//! What the NFSv4.1 hostile-client cases share: the server under attack (with its resident memory sampled
//! while an attack runs), the two good clients — the v3 one of `hostile_support` and the v4.1 session of
//! `hostile::v4::good` — and the judgement of both under attack against their undisturbed figures, with
//! the suite's tolerances.
#![allow(dead_code)]

use std::fs::File;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use hostile::proc_stat::rss_bytes;
use hostile::v4::checks::Verdicts;
use hostile::v4::good::{self, Figures, GoodV4};
use hostile::v4::{V4Attack, V4Report};
use hostile::Target;

use crate::cli_support::{scratch, serve};
use crate::hostile_support::{good_client, judge, new_client_mounts, Good, ATTACK_RAMP};

/// How long the v4 good client measures, each time.
pub const GOOD_V4_SECONDS: Duration = Duration::from_secs(3);

/// One case at a time: each judges a good client's share of the machine, which a second case running
/// beside it would take (`cargo test` runs tests in parallel unless told `--test-threads=1`).
pub fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// `nfsbench serve` on a free loopback port with a config file, its stderr kept in a file.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    dir: PathBuf,
}

impl Server {
    /// The server `name` exporting `/export` as `backend`, with `config` (TOML) besides.
    pub fn start(name: &str, backend: &str, config: &str) -> Server {
        let dir = scratch(&format!("v4-{name}"));
        let config_path = dir.join("serve.toml");
        std::fs::write(&config_path, config).expect("config");
        let export = format!("/export={backend}");
        let args = ["--listen", "127.0.0.1:0", "--export", &export, "--config", config_path.to_str().expect("utf-8")];
        let (child, addrs) = serve(
            &args,
            &dir.join("ready"),
            File::create(dir.join("serve.out")).expect("out"),
            File::create(dir.join("serve.log")).expect("log"),
        );
        Server { child, addr: addrs[0], dir }
    }

    pub fn target(&self) -> Target {
        Target { addr: self.addr, export: "/export".into() }
    }

    pub fn rss(&self) -> u64 {
        rss_bytes(self.child.id()).expect("the server is running")
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The server's log (stderr).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("serve.log")).unwrap_or_default()
    }

    /// The v4 good client, its file laid out.
    pub fn good_v4(&self) -> GoodV4 {
        GoodV4::prepare(self.addr, "/export").expect("the v4 good client's session and file")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Every verdict of a run of checks passed; all are printed either way.
pub fn assert_all_pass(what: &str, verdicts: &Verdicts) {
    eprintln!("{what}:\n{verdicts}");
    let failures = verdicts.failures();
    assert!(failures.is_empty(), "{what}: {} wrong answers:\n{}", failures.len(), {
        failures.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\n")
    });
}

/// The good clients' figures, once undisturbed and once under attack.
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    pub v3: Good,
    pub v4: Figures,
}

/// What the good clients saw beside an attack, and what the attack did.
pub struct Beside {
    /// The good clients' reference figures: undisturbed, or beside a control load ([`beside_control`]).
    pub undisturbed: Pair,
    pub attacked: Pair,
    pub reports: Vec<V4Report>,
    /// What the control load did, when the reference figures were measured beside one.
    pub control: Vec<V4Report>,
    pub mount_v3: Result<(), String>,
    pub mount_v4: Result<(), String>,
    /// The server's resident memory before the attack, and its largest sample during it.
    pub rss_before: u64,
    pub rss_peak: u64,
}

impl Beside {
    /// The suite's judgement of each good client (v3, then v4.1), with new clients mounting over its
    /// version.
    pub fn judge(&self, case: &str) -> Vec<Result<(), String>> {
        let what = format!(
            "server RSS {} → {} MiB; {}",
            self.rss_before >> 20,
            self.rss_peak >> 20,
            self.reports.iter().chain(&self.control).map(summary).collect::<Vec<_>>().join("; ")
        );
        // The reference figures are "undisturbed" in what is printed, or beside the control load.
        let against = if self.control.is_empty() { "" } else { ", reference beside the control load" };
        let v3 = judge(&format!("{case} (v3{against})"), self.undisturbed.v3, self.attacked.v3, &self.mount_v3, &what);
        // The v4.1 good client is judged by the same rule and bounds as the v3 one.
        let v4 = |f: Figures| Good { iops: f.iops, p99_us: f.p99_us };
        let (u, a) = (v4(self.undisturbed.v4), v4(self.attacked.v4));
        let v41 = judge(&format!("{case} (v4.1{against})"), u, a, &self.mount_v4, "the NFSv4.1 good client and mount");
        vec![v3, v41]
    }

    /// The report of the attack named `name`.
    pub fn report(&self, name: &str) -> &V4Report {
        let index = self.reports.iter().position(|r| r.name == name).expect("the attack ran");
        &self.reports[index]
    }
}

fn summary(r: &V4Report) -> String {
    format!(
        "{}: {} answers {:?}, {} unexpected{}, {} connections ({} closed by the server)",
        r.name,
        r.answers,
        r.outcomes,
        r.unexpected,
        r.first_unexpected.as_deref().map_or(String::new(), |f| format!(" (first: {f})")),
        r.attack.connected,
        r.attack.closed_by_server,
    )
}

/// An attack and its pace: requests per second per connection, or `None` for as fast as the server answers.
pub type Paced = (V4Attack, Option<u32>);

/// Both good clients undisturbed, then again while `attacks` run together (after `ramp`); new clients
/// mounting (v3 and v4.1) and the server's memory (sampled every 100 ms) during the attacks.
pub fn beside(server: &Server, good_v4: &mut GoodV4, attacks: &[Paced], ramp: Duration) -> Beside {
    let undisturbed = Pair {
        v3: good_client(server.addr.port()),
        v4: good_v4.measure(GOOD_V4_SECONDS).expect("the v4 good client, undisturbed"),
    };
    Loaded::measure(server, good_v4, attacks, ramp).against(undisturbed, Vec::new())
}

/// As [`beside`], with the good clients' reference figures measured beside `control` — a load of the
/// attack's pace and shape without the one thing the case is about — right before the attack, so the
/// judgement is of what that one thing costs the others, not of what any client at that pace costs a
/// loaded machine.
pub fn beside_control(
    server: &Server,
    good_v4: &mut GoodV4,
    control: &[Paced],
    attacks: &[Paced],
    ramp: Duration,
) -> Beside {
    let baseline = Loaded::measure(server, good_v4, control, ramp);
    let control_ok = baseline.mount_v3.clone().and(baseline.mount_v4.clone());
    control_ok.unwrap_or_else(|why| panic!("a new client could not mount beside the control load: {why}"));
    Loaded::measure(server, good_v4, attacks, ramp).against(baseline.pair, baseline.reports)
}

/// The good clients' figures while a load runs, and what the load and new clients saw meanwhile.
struct Loaded {
    pair: Pair,
    reports: Vec<V4Report>,
    mount_v3: Result<(), String>,
    mount_v4: Result<(), String>,
    rss_before: u64,
    rss_peak: u64,
}

impl Loaded {
    /// Both good clients measured while `load` runs (after `ramp`), new clients mounting, the server's
    /// memory sampled every 100 ms.
    fn measure(server: &Server, good_v4: &mut GoodV4, load: &[Paced], ramp: Duration) -> Loaded {
        let stop = AtomicBool::new(false);
        let sampling = AtomicBool::new(true);
        let peak = AtomicU64::new(0);
        let target = server.target();
        let rss_before = server.rss();
        std::thread::scope(|scope| {
            let sampler = scope.spawn(|| {
                while sampling.load(Ordering::Relaxed) {
                    peak.fetch_max(server.rss(), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
            let attackers: Vec<_> =
                load.iter().map(|(a, pace)| scope.spawn(|| a.run_paced(&target, &stop, *pace))).collect();
            std::thread::sleep(ramp);
            let v3 = good_client(server.addr.port());
            let v4 = good_v4.measure(GOOD_V4_SECONDS);
            let mount_v3 = new_client_mounts(server.addr);
            let mount_v4 = good::new_client_mounts(server.addr, "/export");
            stop.store(true, Ordering::Relaxed);
            let reports: Vec<V4Report> =
                attackers.into_iter().map(|a| a.join().expect("attack thread").expect("the attack started")).collect();
            sampling.store(false, Ordering::Relaxed);
            let _ = sampler.join();
            let v4 = v4.unwrap_or_else(|e| panic!("the v4 good client under attack: {e}; {reports:?}"));
            Loaded {
                pair: Pair { v3, v4 },
                reports,
                mount_v3,
                mount_v4,
                rss_before,
                rss_peak: peak.load(Ordering::Relaxed),
            }
        })
    }

    /// These figures as the attacked ones, judged against `reference`.
    fn against(self, reference: Pair, control: Vec<V4Report>) -> Beside {
        Beside {
            undisturbed: reference,
            attacked: self.pair,
            reports: self.reports,
            control,
            mount_v3: self.mount_v3,
            mount_v4: self.mount_v4,
            rss_before: self.rss_before,
            rss_peak: self.rss_peak,
        }
    }
}

/// [`beside`] after the suite's ramp, judged (and measured again if a judgement fails, as the suite
/// does).
pub fn judged_beside(server: &Server, good_v4: &mut GoodV4, attacks: &[Paced], case: &str) -> Beside {
    crate::hostile_support::judged(case, || {
        let run = beside(server, good_v4, attacks, ATTACK_RAMP);
        let verdict = run.judge(case);
        (run, verdict)
    })
}

/// [`beside_control`] after the suite's ramp, judged (and measured again, control and attack, if a
/// judgement fails).
pub fn judged_beside_control(
    server: &Server,
    good_v4: &mut GoodV4,
    control: &[Paced],
    attacks: &[Paced],
    case: &str,
) -> Beside {
    judged_beside_control_after(server, good_v4, control, attacks, case, ATTACK_RAMP)
}

/// [`judged_beside_control`] after `ramp` (attacks that must first run into the server's caps).
pub fn judged_beside_control_after(
    server: &Server,
    good_v4: &mut GoodV4,
    control: &[Paced],
    attacks: &[Paced],
    case: &str,
    ramp: Duration,
) -> Beside {
    crate::hostile_support::judged(case, || {
        let run = beside_control(server, good_v4, control, attacks, ramp);
        let verdict = run.judge(case);
        (run, verdict)
    })
}

/// Every answer each attack (and control load) checked was right, and it checked some.
pub fn assert_answers_right(run: &Beside) {
    for r in run.reports.iter().chain(&run.control) {
        assert!(r.answers > 0, "{}: no answer checked: {r:?}", r.name);
        assert_eq!(r.unexpected, 0, "{}: wrong answers, the first: {:?}", r.name, r.first_unexpected);
    }
}
