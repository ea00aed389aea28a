//! Files before the I/O starts, as fio lays them out (their directories made by `paths`): each file is
//! opened — created when missing — and a file that a job reads but that is shorter than its region is
//! written out to full size ("Laying out IO file"), with verify units when the job verifies. fio's nfs
//! engine skips this and fails on read jobs; nfsbench must not. The open (NFSv4 OPEN with UNCHECKED4;
//! NFSv3 LOOKUP, then CREATE when missing) is the one every clone of the group does its I/O through, and
//! the engine closes it when the group is done.

use crate::error::EngineError;
use crate::offsets::Region;
use crate::verify::Verifier;
use bytes::Bytes;
use futures_util::stream::{FuturesUnordered, StreamExt};
use nfs_client::{Access, CreateHow, FileHandle, NfsClient, OpenFile, StableHow};

/// A file ready for a job: its open, name (relative to the job's directory) and the region it uses.
/// Clones share the open (a clone of it).
#[derive(Debug, Clone)]
pub struct PreparedFile {
    pub name: String,
    pub file: OpenFile,
    pub region: Region,
}

/// What the layout of one file must achieve.
#[derive(Debug, Clone)]
pub struct LayoutRequest {
    pub name: String,
    pub region: Region,
    /// The file must hold data up to the region's end (a job reads it).
    pub fill: bool,
    pub verifier: Option<Verifier>,
    /// No `size=` or `filesize=`: the file's own size (an existing file, a block device) sets the region.
    pub sized_by_file: bool,
    /// A job opens the file with O_DIRECT.
    pub direct: bool,
}

/// Writes in flight while laying out a file.
const LAYOUT_DEPTH: usize = 8;
/// Mode of files nfsbench creates.
const FILE_MODE: u32 = 0o644;

/// Open (and create) the file `leaf` in `dir` (the directory of `request.name`, already resolved), then
/// fill it if asked. Returns the file and the bytes written; a file whose filling failed is closed.
pub async fn prepare_file(
    client: &NfsClient,
    dir: &FileHandle,
    leaf: &str,
    request: &LayoutRequest,
    seed: u64,
) -> Result<(PreparedFile, u64), EngineError> {
    if leaf.is_empty() {
        return Err(EngineError::Usage(format!("file name '{}' names no file", request.name)));
    }
    let create = Some((CreateHow::Unchecked, FILE_MODE));
    let (file, attr) =
        client.open(dir, leaf, Access::ReadWrite, create).await.map_err(|e| EngineError::file(&request.name, e))?;
    let end = request.region.start + request.region.len;
    let mut written = 0;
    if request.fill && attr.size < end {
        let from = fill_start(attr.size, request.region, request.verifier.map_or(1, |v| v.interval()));
        let fill = Fill { client, file: &file, name: &request.name, from, end, verifier: request.verifier, seed };
        written = match fill.run().await {
            Ok(written) => written,
            Err(e) => {
                // The layout's error is the one to report; the file's CLOSE is done as best it can be.
                let _ = client.close(&file).await;
                return Err(e);
            }
        };
    }
    Ok((PreparedFile { name: request.name.clone(), file, region: request.region }, written))
}

/// Where filling resumes: the last whole unit below the current size, never before the region.
pub(crate) fn fill_start(size: u64, region: Region, unit: u64) -> u64 {
    if size <= region.start {
        region.start
    } else {
        region.start + (size - region.start) / unit * unit
    }
}

/// Layouts a server restart may interrupt before the data is given up on: each restart changes the
/// write verifier and costs one more pass.
const MAX_LAYOUT_PASSES: u32 = 4;

/// One range of a file to lay out: `[from, end)`, verify units from `verifier`, data from `seed`.
#[derive(Clone, Copy)]
struct Fill<'a> {
    client: &'a NfsClient,
    file: &'a OpenFile,
    name: &'a str,
    from: u64,
    end: u64,
    verifier: Option<Verifier>,
    seed: u64,
}

impl Fill<'_> {
    /// Writes the range and COMMITs it; when the write verifier changes before the COMMIT confirms it
    /// (RFC 1813 §3.3.7, §3.3.21: the server restarted and may have lost unstable data), writes the
    /// range again, as the Linux client re-sends uncommitted pages. The data is a function of the offset
    /// and the seed, so a second pass writes the same bytes. Returns the bytes written.
    async fn run(&self) -> Result<u64, EngineError> {
        let mut written = 0;
        for pass in 1..=MAX_LAYOUT_PASSES {
            let (bytes, stable) = self.pass().await?;
            written += bytes;
            if stable {
                return Ok(written);
            }
            tracing::warn!(
                file = self.name,
                pass,
                "the server's write verifier changed during layout (a restart): writing again"
            );
        }
        Err(EngineError::VerifierChanged { name: self.name.to_string() })
    }

    /// One pass: the bytes written and whether one write verifier held from the first WRITE to the
    /// COMMIT.
    async fn pass(&self) -> Result<(u64, bool), EngineError> {
        let Fill { client, file, name, from, end, verifier, seed } = *self;
        let unit = verifier.map_or(4096, |v| v.interval());
        let chunk = (u64::from(client.wsize()) / unit * unit).max(unit);
        let filler = Bytes::from(crate::buffers::random_bytes(chunk as usize, seed));
        let mut in_flight = FuturesUnordered::new();
        let mut offset = from;
        let mut written = 0;
        let mut write_verifier = None;
        let mut stable = true;
        while offset < end || !in_flight.is_empty() {
            while offset < end && in_flight.len() < LAYOUT_DEPTH {
                let len = chunk.min(end - offset);
                let data = layout_chunk(verifier, &filler, offset, len, seed);
                let pending = client.submit_write(file, offset, data, StableHow::Unstable);
                in_flight.push(async move { (offset, len, pending.await) });
                offset += len;
            }
            if let Some((at, asked, reply)) = in_flight.next().await {
                let reply = reply.map_err(|e| EngineError::file(name, e))?;
                if u64::from(reply.count) < asked {
                    let (name, written) = (name.to_string(), u64::from(reply.count));
                    return Err(EngineError::ShortWrite { name, offset: at, asked, written });
                }
                stable &= *write_verifier.get_or_insert(reply.verifier) == reply.verifier;
                written += asked;
            }
        }
        let committed = client.commit(file, 0, 0).await.map_err(|e| EngineError::file(name, e))?;
        stable &= write_verifier.is_none_or(|v| v == committed);
        Ok((written, stable))
    }
}

/// The bytes laid out at `offset`: verify units when the job verifies (a function of the offset and
/// the seed, so a second pass writes the same), else the filler's random bytes.
pub(crate) fn layout_chunk(verifier: Option<Verifier>, filler: &Bytes, offset: u64, len: u64, seed: u64) -> Bytes {
    match verifier {
        Some(v) => {
            let mut buf = vec![0u8; len as usize];
            v.fill(&mut buf, offset, seed ^ offset);
            Bytes::from(buf)
        }
        None => filler.slice(..len as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filling_resumes_at_the_last_whole_unit_inside_the_region() {
        let region = Region { start: 4096, len: 1 << 20 };
        assert_eq!(fill_start(0, region, 4096), 4096);
        assert_eq!(fill_start(4096 + 10_000, region, 4096), 4096 + 8192);
        assert_eq!(fill_start(4096 + 8192, region, 4096), 4096 + 8192);
    }
}
