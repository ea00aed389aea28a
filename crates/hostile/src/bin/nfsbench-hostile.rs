//! `nfsbench-hostile ATTACK --target ADDR:PORT [--export PATH] [--rdma ADDR:PORT] [--connections N]
//! [--seconds S] [--per-second N]`: runs one of the security suite's attacks against a server (only ever one you run
//! yourself), then prints what it did as one line of JSON. The RDMA attacks need `--rdma`, the server's
//! soft-RDMA listener (`nfsbench serve --rdma --rdma-provider soft`), and run on the server's host. The
//! NFSv4.1 attacks (`v4-*`) also print the outcomes they saw and the answers that were wrong.
//! Exit status: 0 the attack ran, 1 it could not start, 2 bad usage.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Parser;
use hostile::{Attack, Target};

#[derive(Parser, Debug)]
#[command(name = "nfsbench-hostile", about = "Hostile NFS clients for testing a server you run")]
struct Args {
    /// trickle | idle | unread-replies | bad-version | rdma-busy-counters | v4-bad-compounds |
    /// v4-slot-hammer | v4-client-storm | v4-client-hoard | v4-forged-stateids | v4-open-flood |
    /// v4-lock-storm | v4-lock-owner-storm | v4-relock | v4-backchannel-silent | v4-backchannel-garbage | v4-reply-flood
    attack: String,
    /// The server's NFS and MOUNT port
    #[arg(long)]
    target: SocketAddr,
    /// The export the attacks that need a file mount
    #[arg(long, default_value = "/export")]
    export: String,
    /// The server's soft-RDMA listener, for the RDMA attacks
    #[arg(long, value_name = "ADDR:PORT")]
    rdma: Option<SocketAddr>,
    /// Connections the attack holds or floods on
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// How long to attack
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// NFSv4.1 attacks: requests per second per connection (default: as fast as the server answers)
    #[arg(long, value_name = "N")]
    per_second: Option<u32>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let Some(attack) = Attack::parse(&args.attack, args.connections) else {
        eprintln!("nfsbench-hostile: unknown attack {:?} (one of {})", args.attack, Attack::NAMES.join(", "));
        return ExitCode::from(2);
    };
    if attack.needs_rdma() && args.rdma.is_none() {
        eprintln!("nfsbench-hostile: {} needs --rdma ADDR:PORT (the server's soft-RDMA listener)", attack.name());
        return ExitCode::from(2);
    }
    let Ok(seconds) = Duration::try_from_secs_f64(args.seconds) else {
        eprintln!("nfsbench-hostile: --seconds {} is not a duration", args.seconds);
        return ExitCode::from(2);
    };
    let target = Target { addr: args.target, export: args.export };
    let stop = AtomicBool::new(false);
    if let Attack::V4(v4) = attack {
        let result = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(seconds);
                stop.store(true, Ordering::Relaxed);
            });
            v4.run_paced(&target, &stop, args.per_second)
        });
        return match result {
            Ok(report) => {
                println!("{}", report.to_json());
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("nfsbench-hostile: {} against {}: {err}", v4.name(), target.addr);
                ExitCode::FAILURE
            }
        };
    }
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(seconds);
            stop.store(true, Ordering::Relaxed);
        });
        attack.run_with_rdma(&target, args.rdma, &stop)
    });
    match result {
        Ok(r) => {
            println!(
                "{{\"attack\":\"{}\",\"connected\":{},\"refused\":{},\"closed_by_server\":{},\"calls\":{},\"bytes_sent\":{}}}",
                attack.name(),
                r.connected,
                r.refused,
                r.closed_by_server,
                r.calls,
                r.bytes_sent
            );
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("nfsbench-hostile: {} against {}: {err}", attack.name(), target.addr);
            ExitCode::FAILURE
        }
    }
}
