//! Gather RDMA Writes ([`rdma::QueuePair::post_write_gather`]) on the verbs provider: the sources
//! become scatter/gather elements, with the pool's key where a source lies in the pool and a
//! registration of the source otherwise (counted, held with the source until the completion). More
//! sources than a work request takes go in several work requests to consecutive remote ranges; only
//! the last one completes to the caller (see `completion::Pending::GatherPart`).
#![allow(unsafe_code)]

use std::sync::atomic::Ordering;

use bytes::Bytes;
use rdma::{Access, MemoryRegion, RdmaError, RegBuf, RemoteSegment, WrId};
use rdma_sys as sys;

use crate::completion::Pending;
use crate::mr::register;
use crate::qp::VerbsQueuePair;

impl VerbsQueuePair {
    pub(crate) fn write_gather(&self, wr_id: WrId, sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
        rdma::check_gather(sources, remote)?;
        let sources: Vec<Bytes> = sources.iter().filter(|s| !s.is_empty()).cloned().collect();
        let parts = sources.len().div_ceil(self.send_sge as usize).max(1);
        let parts = u32::try_from(parts).map_err(|_| RdmaError::Invalid("too many sources".into()))?;
        self.send_queue_room_for(&self.lock(), parts)?;
        // Elements: the pool's key for a source inside the pool, else a registration of its own.
        let pool = self.pool.as_ref().map(|(region, _)| region);
        let mut regions = Vec::new();
        let mut sges = Vec::with_capacity(sources.len());
        for source in &sources {
            let start = source.as_ptr() as usize;
            let lkey =
                match pool.filter(|p| start >= p.start_addr() && start + source.len() <= p.start_addr() + p.len()) {
                    Some(pool) => pool.local_key(),
                    None => {
                        let region: MemoryRegion = register(&self.pd, RegBuf::ReadOnly(source.clone()), Access::NONE)?;
                        self.registrations.fetch_add(1, Ordering::Relaxed);
                        let lkey = region.local_key();
                        regions.push(region);
                        lkey
                    }
                };
            sges.push(sys::ibv_sge { addr: start as u64, length: source.len() as u32, lkey });
        }
        let mut st = self.lock();
        self.send_queue_room_for(&st, parts)?;
        let chunks: Vec<&mut [sys::ibv_sge]> =
            if sges.is_empty() { vec![&mut []] } else { sges.chunks_mut(self.send_sge as usize).collect() };
        let count = chunks.len();
        let ids: Vec<u64> = (0..count).map(|_| st.next_wr_id()).collect();
        let last = ids[count - 1];
        let mut remote_addr = remote.offset;
        let mut held = Some((sources, regions));
        for (i, chunk) in chunks.into_iter().enumerate() {
            let bytes: u64 = chunk.iter().map(|sge| u64::from(sge.length)).sum();
            let pending = if i + 1 == count {
                let (sources, regions) = held.take().unwrap_or_default();
                Pending::Gather { wr_id, _sources: sources, _regions: regions }
            } else {
                Pending::GatherPart { wr_id, last }
            };
            st.pending.insert(ids[i], pending);
            // SAFETY: every element lies in memory registered on this PD with its key: the pool (held
            // by this queue pair) or a registration of the source held, with the source, by the last
            // part's pending entry until its completion, which comes after every earlier part's.
            let result = unsafe { self.qp.post_write_sgl(ids[i], chunk, remote_addr, remote.handle) };
            if let Err(e) = result {
                st.pending.remove(&ids[i]);
                if i == 0 {
                    return Err(e);
                }
                // Earlier parts are on the wire: the connection cannot keep this write's order.
                tracing::warn!("posting part of a gather RDMA Write failed ({e}): disconnecting");
                self.go_down(&mut st);
                return Err(e);
            }
            st.send_queue += 1;
            remote_addr += bytes;
        }
        Ok(())
    }
}
