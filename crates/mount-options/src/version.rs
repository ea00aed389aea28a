//! [`NfsVersion`], the NFS version a mount speaks, and how `vers=`/`nfsvers=`/`vN` and `minorversion=`
//! choose it. The version is settled once every option is read (`vers=4,minorversion=1` and
//! `minorversion=1,vers=4` mean the same, as in the kernel), by [`Version::settle`].

use std::fmt;

use crate::error::{OptionsError, Origin};
use crate::options::Opt;

/// Why NFSv4.0 is refused, wherever it is asked for.
pub(crate) const NO_V4_0: &str =
    "NFSv4.0 has no sessions; nfsbench speaks NFSv3, NFSv4.1 and NFSv4.2 (vers=4.1 or vers=4.2)";
const VERSIONS: &str = "nfsbench speaks NFSv3, NFSv4.1 and NFSv4.2";

/// The NFS version of a mount.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum NfsVersion {
    /// NFSv3 (RFC 1813): port mapper, MOUNT, then NFS. Linux's default is v4, nfsbench's is v3.
    #[default]
    V3,
    /// `vers=4` with no minor version: the highest minor version both sides speak, as Linux's mount.nfs
    /// negotiates it (4.2, then 4.1 when the server answers NFS4ERR_MINOR_VERS_MISMATCH).
    V4,
    /// NFSv4.1 (RFC 8881): sessions, no port mapper, no MOUNT.
    V4_1,
    /// NFSv4.2 (RFC 7862): NFSv4.1 plus its optional operations.
    V4_2,
}

impl NfsVersion {
    /// True for every NFSv4 version (sessions, COMPOUND, port 2049 without the port mapper).
    pub fn is_v4(self) -> bool {
        self != NfsVersion::V3
    }

    /// The minor versions to try, in order, for a v4 mount (empty for v3): `vers=4` tries 4.2 then 4.1.
    pub fn minor_versions(self) -> &'static [u32] {
        match self {
            NfsVersion::V3 => &[],
            NfsVersion::V4 => &[2, 1],
            NfsVersion::V4_1 => &[1],
            NfsVersion::V4_2 => &[2],
        }
    }

    /// The version of a v4 minor version once negotiated (`V4_1` for 1, `V4_2` for 2).
    pub fn v4_minor(minor: u32) -> Option<NfsVersion> {
        match minor {
            1 => Some(NfsVersion::V4_1),
            2 => Some(NfsVersion::V4_2),
            _ => None,
        }
    }
}

impl fmt::Display for NfsVersion {
    /// As `vers=` takes it: `3`, `4`, `4.1`, `4.2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NfsVersion::V3 => "3",
            NfsVersion::V4 => "4",
            NfsVersion::V4_1 => "4.1",
            NfsVersion::V4_2 => "4.2",
        })
    }
}

/// The major version as written, or a minor version seen so far, with the entry that set it (for errors).
#[derive(Debug, Default)]
pub(crate) struct Version {
    /// 3 or 4; `None`: never given (v3).
    major: Option<u32>,
    /// A minor version from `vers=4.N`/`v4.N` or `minorversion=N`, and the entry as written.
    minor: Option<(u32, String, Origin)>,
    /// The minor version came from `vers=4.N`, which a later `vers=3` replaces (not from minorversion=).
    minor_from_vers: bool,
}

impl Version {
    /// `vers=`/`nfsvers=`/`version=` (URL) value `v`, or the `vN` flags (`v` is then the digits).
    /// fs/nfs/fs_context.c `nfs_parse_version_string`: `4` keeps any minorversion given, `4.N` sets it.
    pub(crate) fn vers(&mut self, o: &Opt<'_>, v: &str) -> Result<(), OptionsError> {
        let unsupported = |why: &str| Err(o.unsupported(why));
        match v {
            "3" => {
                self.major = Some(3);
                if self.minor_from_vers {
                    self.minor = None;
                }
            }
            "4" => self.major = Some(4),
            "4.1" | "4.2" => {
                self.major = Some(4);
                self.minor = Some((u32::from(v.as_bytes()[2] - b'0'), o.raw.to_owned(), o.origin));
                self.minor_from_vers = true;
            }
            "4.0" => return unsupported(NO_V4_0),
            "2" => return unsupported(VERSIONS),
            _ => return Err(o.bad(format!("'{v}' is not an NFS version (2, 3, 4, 4.0, 4.1 or 4.2); {VERSIONS}"))),
        }
        Ok(())
    }

    /// `minorversion=N` (fs/nfs/fs_context.c: at most NFS4_MAX_MINOR_VERSION, 2).
    pub(crate) fn minorversion(&mut self, o: &Opt<'_>) -> Result<(), OptionsError> {
        match o.number()? {
            0 => Err(o.unsupported(NO_V4_0)),
            n @ (1 | 2) => {
                self.minor = Some((n, o.raw.to_owned(), o.origin));
                self.minor_from_vers = false;
                Ok(())
            }
            _ => Err(o.bad("minorversion must be 0..=2")),
        }
    }

    /// The version once every option is read. A minor version on a v3 mount is refused as the kernel's
    /// `nfs_fs_context_validate` refuses it ("vers=3 does not support minorversion=1").
    pub(crate) fn settle(&self) -> Result<NfsVersion, OptionsError> {
        match (self.major, &self.minor) {
            (None | Some(3), None) => Ok(NfsVersion::V3),
            (None | Some(3), Some((_, raw, origin))) => Err(OptionsError::BadValue {
                origin: *origin,
                option: raw.clone(),
                reason: "a minor version is for NFSv4: add vers=4 (or write vers=4.1 / vers=4.2)".into(),
            }),
            (Some(_), None) => Ok(NfsVersion::V4),
            (Some(_), Some((minor, _, _))) => Ok(NfsVersion::v4_minor(*minor).unwrap_or(NfsVersion::V4)),
        }
    }
}
