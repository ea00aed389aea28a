//! Mount options for nfsbench's NFS client (NFSv3, NFSv4.1, NFSv4.2): a target plus a `mount.nfs -o`
//! string become a validated [`MountSpec`], the way Linux would read them, so a mount line copied from a
//! published study means the same thing here.
//!
//! - Targets: `HOST:/EXPORT` (`[IPv6]:/EXPORT`) as mount.nfs takes them, or libnfs URLs
//!   `nfs://HOST[:PORT]/EXPORT?version=3&nfsport=P&mountport=P&nconnect=N&uid=U&gid=G` (the authority's
//!   port is the NFS port; the path is percent-decoded). `-o` options override URL parameters.
//! - Options: comma separated `key`, `key=value`, `nokey`, split by [`entries`]; the last occurrence
//!   wins, as in the kernel (fs/nfs/fs_context.c). Applied: vers/nfsvers/v3/v4/v4.1/v4.2 and
//!   minorversion (an [`NfsVersion`]; `vers=4` alone negotiates 4.2 then 4.1, as Linux), proto/tcp/rdma
//!   (read by [`Proto::from_entry`], which callers may use too), port, mountport, mountproto, mountvers,
//!   nconnect, max_connect, remoteports, addr, rsize/wsize (rounded like Linux: [`kernel_io_size`]),
//!   timeo, retrans, hard/soft/softerr, ro/rw, sec=sys.
//! - NFSv4 uses no port mapper and no MOUNT: the port is 2049 ([`NFS_PORT`]; 20049 with rdma) unless
//!   given, and mountport/mountproto/mountvers are accepted with a notice, as Linux ignores them.
//!   `max_connect=N` trunks the session over up to N of the `remoteports` addresses (at least one
//!   connection to each), Linux 5.15's session trunking with the addresses named instead of discovered.
//! - Options that change nothing in nfsbench's client (attribute/lookup cache, locking, bg/fg, VFS
//!   flags such as noatime, ...) are accepted after their value is checked, and each leaves one line in
//!   [`MountSpec::notices`] saying why. So does any value Linux would change (`rsize=1000000` →
//!   999424) and any libnfs URL knob that is a no-op here.
//! - Everything else is refused with an [`OptionsError`] naming the option as written: NFSv2, NFSv4.0
//!   (no sessions), UDP, Kerberos, TLS, unknown options, out-of-range values.
//!
//! [`MountSpec::option_string`] prints the canonical form for reports; parsing it again with the same
//! target gives the same spec (notices aside). [`MountSpec::connection_addrs`] spreads `nconnect`
//! connections over `remoteports` round-robin (and over `max_connect` of them for NFSv4).
//!
//! A whole mount is a [`MountConfig`]: the [`MountSpec`], the [`RdmaSettings`] that are flags rather
//! than mount options (`--rdma-provider` as a [`ProviderChoice`], `--rdma-credits`, `--rdma-inline`,
//! parsed by [`rdma::parse_credits`] and [`rdma::parse_inline`]; defaults: what the Linux client asks
//! and offers), and the long-distance link the client emulates, a [`LinkSpec`] (`--wan rtt=20ms,...`,
//! parsed by [`LinkSpec::parse`]; its units in [`link`]). `run`, `compare`'s test cases, the client's
//! mount builder and `model` all take this one type. Nothing here does I/O except resolving a server
//! name in [`MountSpec::connection_addrs`] / [`MountSpec::server_addr`].

mod addrs;
mod config;
mod entries;
mod error;
pub mod link;
mod noop;
mod options;
mod proto;
pub mod rdma;
mod target;
mod url;
mod version;

#[cfg(test)]
mod tests;

use std::net::IpAddr;
use std::time::Duration;

pub use addrs::MAX_REMOTEPORTS;
pub use config::MountConfig;
pub use entries::{entries, Entry};
pub use error::{OptionsError, Origin};
pub use link::{LinkSpec, LinkSpecError};
pub use options::{
    kernel_io_size, DEFAULT_RETRANS, DEFAULT_TIMEO_DS, MAX_CONNECT, MAX_IO_SIZE, MAX_NCONNECT, MAX_TIMEO_DS,
};
pub use proto::Proto;
pub use rdma::{ProviderChoice, RdmaSettingError, RdmaSettings};
pub use version::NfsVersion;

/// IANA port `nfsrdma` (RFC 8267, IANA Considerations): what Linux uses for `proto=rdma` without `port=`.
pub const NFS_RDMA_PORT: u16 = 20049;
/// IANA port `nfs`: where NFSv4 listens over TCP (RFC 8881 §2.9.3: no port mapper needed).
pub const NFS_PORT: u16 = 2049;
/// The port mapper / rpcbind port (RFC 1833).
pub const PORTMAPPER_PORT: u16 = 111;
/// AUTH_SYS identity used when this process's cannot be read (`nobody`).
pub const NOBODY: u32 = 65534;

/// Everything nfsbench's client needs to mount an export and connect to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountSpec {
    /// The host as given: a name, an IPv4 address, or an IPv6 address without brackets.
    pub server: String,
    /// The absolute export path, e.g. `/export`.
    pub export: String,
    /// `vers=3` (default), `vers=4.1`, `vers=4.2`, or `vers=4` (the highest minor version both speak).
    pub vers: NfsVersion,
    /// `proto=tcp` (default) or `proto=rdma`, or the `tcp` / `rdma` flags.
    pub proto: Proto,
    /// The NFS port. NFSv3: `None` (or `port=0`) means ask the port mapper; with rdma, unset means
    /// 20049. NFSv4: always set, 2049 (20049 with rdma) unless given (`port=0` means the same).
    pub port: Option<u16>,
    /// The MOUNT port; `None` means ask the port mapper. Always `None` for NFSv4, which has no MOUNT.
    pub mountport: Option<u16>,
    /// MOUNT's transport: always tcp.
    pub mountproto: Proto,
    /// The port mapper's port: 111.
    pub portmapper_port: u16,
    /// Connections to open, 1..=16; default 1.
    pub nconnect: u16,
    /// `max_connect=N` (NFSv4.1+, Linux 5.15+): the session may be trunked over up to N server
    /// addresses, each connection bound to the one session; `None` when not given.
    pub max_connect: Option<u16>,
    /// Addresses to spread connections over; empty means the server's resolved address.
    pub remoteports: Vec<IpAddr>,
    /// Largest READ, as Linux would use it ([`kernel_io_size`]: 1024, 2048 or a multiple of 4096 up to
    /// 1048576); default 1048576.
    pub rsize: u32,
    /// Largest WRITE, as Linux would use it (like `rsize`); default 1048576.
    pub wsize: u32,
    /// Time before a call is retransmitted (`timeo=` deciseconds); default 60 s.
    pub timeo: Duration,
    /// Retransmissions before a major timeout; default 2.
    pub retrans: u32,
    /// `hard` (default): retry forever; `soft` / `softerr`: fail the call after `retrans` timeouts.
    pub hard: bool,
    /// `ro`, or `rw` (default).
    pub read_only: bool,
    /// AUTH_SYS uid; default this process's.
    pub uid: u32,
    /// AUTH_SYS gid; default this process's.
    pub gid: u32,
    /// One line per option accepted without effect (or changed, like a rounded rsize), saying why.
    pub notices: Vec<String>,
}

impl MountSpec {
    /// `target` is `HOST:/EXPORT` (IPv6 as `[::1]:/export`) or a libnfs URL
    /// `nfs://HOST[:PORT]/EXPORT?version=3&nfsport=P&mountport=P&nconnect=N&uid=U&gid=G`.
    /// `options` is a mount.nfs `-o` string; options given there override URL parameters.
    ///
    /// ```
    /// use mount_options::MountSpec;
    /// let spec = MountSpec::parse("127.0.0.1:/export", Some("nconnect=4,remoteports=127.0.0.1-127.0.0.2,noac"))?;
    /// assert_eq!(spec.connection_addrs()?.len(), 4);
    /// assert_eq!(spec.notices, ["mount option 'noac' has no effect: nfsbench's client keeps no attribute cache"]);
    /// # Ok::<(), mount_options::OptionsError>(())
    /// ```
    pub fn parse(target: &str, options: Option<&str>) -> Result<MountSpec, OptionsError> {
        let target = target::parse(target.trim())?;
        let mut st = options::State::new();
        if let Some(port) = target.port {
            st.port = Some(Some(port).filter(|&p| p != 0));
        }
        for (key, value) in &target.params {
            url::apply(&mut st, key, value.as_deref())?;
        }
        for entry in entries(options.unwrap_or("")) {
            options::apply(&mut st, &options::Opt::new(entry, Origin::MountOption))?;
        }
        finish(st, target.server, target.export)
    }

    /// The canonical option string for reports, e.g.
    /// `vers=3,proto=tcp,mountproto=tcp,nconnect=4,rsize=1048576,...,remoteports=127.0.0.1-127.0.0.4`;
    /// for NFSv4 `vers=4.1,proto=tcp,port=2049,nconnect=4,...` (no MOUNT options).
    pub fn option_string(&self) -> String {
        let mut out = vec![format!("vers={}", self.vers), format!("proto={}", self.proto)];
        // port=0 / mountport=0 ("ask the port mapper") are written out, so that re-parsing the string
        // with a URL target that names ports gives back the same spec.
        out.push(format!("port={}", self.port.unwrap_or(0)));
        if !self.vers.is_v4() {
            out.push(format!("mountport={}", self.mountport.unwrap_or(0)));
            out.push(format!("mountproto={}", self.mountproto));
        }
        out.push(format!("nconnect={}", self.nconnect));
        if let Some(n) = self.max_connect {
            out.push(format!("max_connect={n}"));
        }
        out.push(format!("rsize={}", self.rsize));
        out.push(format!("wsize={}", self.wsize));
        out.push(format!("timeo={}", self.timeo.as_millis() / 100));
        out.push(format!("retrans={}", self.retrans));
        out.push(if self.hard { "hard" } else { "soft" }.into());
        out.push(if self.read_only { "ro" } else { "rw" }.into());
        out.push("sec=sys".into());
        if !self.remoteports.is_empty() {
            out.push(format!("remoteports={}", addrs::format_remoteports(&self.remoteports)));
        }
        out.join(",")
    }

    /// The address of each connection: connection `i` goes to `remoteports[i % remoteports.len()]`, or,
    /// without remoteports, all go to the server's address (a name resolved once, IPv4 preferred).
    /// There are `nconnect` connections; an NFSv4 mount with `max_connect=M` uses the first `M`
    /// addresses of `remoteports` and opens at least one connection to each (session trunking).
    pub fn connection_addrs(&self) -> Result<Vec<IpAddr>, OptionsError> {
        if self.remoteports.is_empty() {
            return Ok(vec![addrs::resolve(&self.server)?; usize::from(self.nconnect.max(1))]);
        }
        let (used, n) = self.trunk_shape();
        Ok((0..n).map(|i| self.remoteports[i % used]).collect())
    }

    /// How many of `remoteports` are used, and how many connections there are (remoteports not empty).
    fn trunk_shape(&self) -> (usize, usize) {
        let nconnect = usize::from(self.nconnect.max(1));
        match self.max_connect.filter(|_| self.vers.is_v4()) {
            Some(m) => {
                let used = self.remoteports.len().min(usize::from(m.max(1)));
                (used, nconnect.max(used))
            }
            None => (self.remoteports.len(), nconnect),
        }
    }

    /// The address for the port mapper and MOUNT: the first connection's address (`remoteports[0]`,
    /// where `addr=` also lands, or the resolved server).
    pub fn server_addr(&self) -> Result<IpAddr, OptionsError> {
        match self.remoteports.first() {
            Some(ip) => Ok(*ip),
            None => addrs::resolve(&self.server),
        }
    }
}

fn finish(mut st: options::State, server: String, export: String) -> Result<MountSpec, OptionsError> {
    let vers = st.version.settle()?;
    let default_port = match st.proto {
        Proto::Rdma => NFS_RDMA_PORT,
        Proto::Tcp => NFS_PORT,
    };
    let port = match (st.port, st.proto) {
        // fs/nfs/fs_context.c: an NFSv4 mount goes to the well-known port; port=0 means it too.
        (Some(None) | None, _) if vers.is_v4() => Some(default_port),
        (Some(p), _) => p,
        (None, Proto::Rdma) => Some(NFS_RDMA_PORT),
        (None, Proto::Tcp) => None,
    };
    for side in std::mem::take(&mut st.mount_side) {
        match side.v3_refusal {
            Some(refusal) if !vers.is_v4() => return Err(refusal),
            _ if vers.is_v4() => {
                let (origin, raw) = (side.origin, side.raw);
                let line =
                    format!("{origin} '{raw}' has no effect: NFSv4 uses no MOUNT protocol (Linux ignores it too)");
                st.notice(&side.key, line);
            }
            _ => {}
        }
    }
    let mountport = if vers.is_v4() { None } else { st.mountport };
    let mut remoteports = std::mem::take(&mut st.remoteports);
    match st.addr {
        Some(addr) if remoteports.is_empty() => remoteports.push(addr),
        Some(addr) => {
            st.notice("addr", format!("mount option 'addr={addr}' has no effect: remoteports= names the addresses"))
        }
        None => {}
    }
    let trunked = st.max_connect.filter(|_| vers.is_v4()).map(usize::from);
    match (st.max_connect, trunked) {
        (Some(m), None) => {
            let line = format!("mount option 'max_connect={m}' has no effect: session trunking is NFSv4.1's");
            st.notice("max_connect", line);
        }
        (Some(m), Some(_)) if m > 1 && remoteports.len() < 2 => {
            let line = format!(
                "mount option 'max_connect={m}' has no effect: no other address of the server is named \
                 (remoteports=); nfsbench discovers none"
            );
            st.notice("max_connect", line);
        }
        _ => {}
    }
    let connections = usize::from(st.nconnect).max(trunked.map_or(0, |m| m.min(remoteports.len())));
    let used = trunked.unwrap_or(connections).min(connections);
    if remoteports.len() > used {
        let named = remoteports.len();
        let why = match trunked {
            Some(m) => format!("max_connect={m}"),
            None => format!("nconnect={connections}"),
        };
        let line = format!("remoteports names {named} addresses but {why}: only the first {used} are used");
        st.notice("remoteports", line);
    }
    let (uid, gid) = match (st.uid, st.gid, addrs::process_identity()) {
        (Some(u), Some(g), _) => (u, g),
        (u, g, Some((pu, pg))) => (u.unwrap_or(pu), g.unwrap_or(pg)),
        (u, g, None) => {
            st.notice("identity", format!("cannot read /proc/self: AUTH_SYS identity defaults to {NOBODY}"));
            (u.unwrap_or(NOBODY), g.unwrap_or(NOBODY))
        }
    };
    Ok(MountSpec {
        server,
        export,
        vers,
        proto: st.proto,
        port,
        mountport,
        mountproto: Proto::Tcp,
        portmapper_port: PORTMAPPER_PORT,
        nconnect: st.nconnect,
        max_connect: st.max_connect,
        remoteports,
        rsize: st.rsize,
        wsize: st.wsize,
        timeo: Duration::from_millis(u64::from(st.timeo_ds) * 100),
        retrans: st.retrans,
        hard: st.hard,
        read_only: st.read_only,
        uid,
        gid,
        notices: st.take_notices(),
    })
}
