//! The delay on the path to one address: found, put on, taken off.

use crate::error::LinkError;
use crate::runner::Runner;
use mount_options::link::DEFAULT_TCP_WINDOW;
use mount_options::LinkSpec;
use std::net::IpAddr;

/// The root qdisc's handle, "NB" in hex: how [`sweep`] knows a qdisc is nfsbench's.
pub const HANDLE: &str = "4e42";
/// The netem qdisc's handle, under the prio qdisc's fourth band.
const NETEM_HANDLE: &str = "4e43";
/// Packets netem may hold: a 10 Gbit/s link's 140 ms (8,600 miles) in 1500-byte packets is ~117k.
const NETEM_LIMIT: u32 = 200_000;

/// Whether the kernel engine can put `link` on the path: the error names the first part it cannot.
pub fn kernel_link_spec(link: &LinkSpec) -> Result<(), LinkError> {
    if !link.jitter.is_zero() {
        return Err(LinkError::NotForKernel {
            part: "jitter",
            why: "netem reorders jittered packets, which the link spec rules out (RDMA's reliable connections \
                  take reordering for loss)",
        });
    }
    if link.tcp_window != DEFAULT_TCP_WINDOW {
        return Err(LinkError::NotForKernel {
            part: "tcp_window",
            why: "the kernel's TCP sizes its own window (net.ipv4.tcp_rmem)",
        });
    }
    Ok(())
}

/// netem's arguments for `link`: the whole round trip as delay on the way out, and rate and loss.
pub fn netem_args(link: &LinkSpec) -> Vec<String> {
    let mut args = vec!["netem".to_string(), "delay".to_string(), format!("{}us", link.rtt.as_micros())];
    if let Some(rate) = link.rate_bps {
        args.extend(["rate".to_string(), format!("{rate}bit")]);
    }
    if link.loss > 0.0 {
        args.extend(["loss".to_string(), format!("{}%", link.loss * 100.0)]);
    }
    args.extend(["limit".to_string(), NETEM_LIMIT.to_string()]);
    args
}

fn strings(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

/// The device the route to `addr` leaves by (`ip -o route get ADDR`: "... dev nfsb1 src ...").
fn route_device(addr: IpAddr, runner: &dyn Runner) -> Result<String, LinkError> {
    let out = runner.run("ip", &strings(&["-o", "route", "get", &addr.to_string()]))?;
    let mut words = out.split_whitespace();
    while let Some(w) = words.next() {
        if w == "dev" {
            if let Some(dev) = words.next() {
                return Ok(dev.to_string());
            }
        }
    }
    Err(LinkError::NoRoute { addr, output: out.trim().to_string() })
}

/// A delay on the path to one address, taken off when removed or dropped.
pub struct PathDelay {
    dev: String,
    addr: IpAddr,
    netem: Vec<String>,
    runner: Box<dyn Runner + Send>,
    applied: bool,
}

impl std::fmt::Debug for PathDelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathDelay")
            .field("dev", &self.dev)
            .field("addr", &self.addr)
            .field("applied", &self.applied)
            .finish()
    }
}

impl PathDelay {
    /// Put `link` on the path to `addr`. Anything made before a failure is taken off again.
    pub fn apply(addr: IpAddr, link: &LinkSpec, runner: Box<dyn Runner + Send>) -> Result<PathDelay, LinkError> {
        kernel_link_spec(link)?;
        let dev = route_device(addr, runner.as_ref())?;
        if dev == "lo" {
            return Err(LinkError::NotOnAWire { addr, dev });
        }
        let netem = netem_args(link);
        let mut delay = PathDelay { dev, addr, netem, runner, applied: false };
        let dev = delay.dev.clone();
        let root = format!("{HANDLE}:");
        let band = format!("{HANDLE}:4");
        // Three bands take all traffic as a plain prio qdisc would (its default priomap); the fourth,
        // behind netem, only what the filter sends there.
        delay.run("tc", &strings(&["qdisc", "add", "dev", &dev, "root", "handle", &root, "prio", "bands", "4"]))?;
        delay.applied = true;
        let mut netem = strings(&["qdisc", "add", "dev", &dev, "parent", &band, "handle", &format!("{NETEM_HANDLE}:")]);
        netem.extend(delay.netem.iter().cloned());
        delay.run("tc", &netem)?;
        let (protocol, matcher, prefix) = match addr {
            IpAddr::V4(_) => ("ip", "ip", 32),
            IpAddr::V6(_) => ("ipv6", "ip6", 128),
        };
        let dst = format!("{addr}/{prefix}");
        delay.run(
            "tc",
            &strings(&[
                "filter", "add", "dev", &dev, "parent", &root, "protocol", protocol, "prio", "1", "u32", "match",
                matcher, "dst", &dst, "flowid", &band,
            ]),
        )?;
        Ok(delay)
    }

    fn run(&self, program: &str, args: &[String]) -> Result<String, LinkError> {
        self.runner.run(program, args)
    }

    /// "netem delay 20000us limit 200000 on nfsb1 for packets to 10.99.0.1", for reports.
    pub fn describe(&self) -> String {
        format!("{} on {} for packets to {}", self.netem.join(" "), self.dev, self.addr)
    }

    /// Take the delay off (the root qdisc and everything under it).
    pub fn remove(mut self) -> Result<(), LinkError> {
        self.applied = false;
        delete_root(&self.dev, self.runner.as_ref())
    }
}

impl Drop for PathDelay {
    fn drop(&mut self) {
        if self.applied {
            self.applied = false;
            let _ = delete_root(&self.dev, self.runner.as_ref());
        }
    }
}

fn delete_root(dev: &str, runner: &dyn Runner) -> Result<(), LinkError> {
    runner.run("tc", &strings(&["qdisc", "del", "dev", dev, "root", "handle", &format!("{HANDLE}:")])).map(|_| ())
}

/// Take off a delay a killed run left on the path to `addr` (a root qdisc of nfsbench's handle on the
/// route's device); what was undone, one line each.
pub fn sweep(addr: IpAddr, runner: &dyn Runner) -> Result<Vec<String>, LinkError> {
    let dev = route_device(addr, runner)?;
    let shown = runner.run("tc", &strings(&["qdisc", "show", "dev", &dev, "root"]))?;
    let ours = shown.lines().any(|l| l.split_whitespace().nth(2) == Some(&format!("{HANDLE}:")));
    if !ours {
        return Ok(Vec::new());
    }
    delete_root(&dev, runner)?;
    Ok(vec![format!("the path delay on {dev} (root qdisc {HANDLE}:)")])
}

/// The address of `host` (a name or an address, IPv6 without brackets).
pub fn resolve(host: &str) -> Result<IpAddr, LinkError> {
    if let Ok(addr) = host.parse() {
        return Ok(addr);
    }
    use std::net::ToSocketAddrs;
    (host, 0)
        .to_socket_addrs()
        .map_err(|e| LinkError::Resolve { host: host.to_string(), why: e.to_string() })?
        .next()
        .map(|a| a.ip())
        .ok_or_else(|| LinkError::Resolve { host: host.to_string(), why: "no address".into() })
}
