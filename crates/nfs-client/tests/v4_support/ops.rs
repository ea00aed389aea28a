//! The fake server's COMPOUND: each operation on the current file handle, stopping at the first error,
//! with SEQUENCE's slot rules and reply cache (a replay gets the cached reply), the grace period after a
//! restart, and leases that run out.

use std::time::Instant;

use nfs4_proto::*;
use xdr::{XdrEncode, XdrWriter};

use super::state::{handle, node_of, State, ROOT};

/// How the fake server is set up.
#[derive(Debug, Clone)]
pub struct Config {
    pub minor_versions: std::ops::RangeInclusive<u32>,
    pub slots: u32,
    pub major_id: &'static [u8],
    pub scope: &'static [u8],
    pub maxread: u64,
}

/// One COMPOUND's evaluation.
pub(super) struct Eval<'s> {
    pub(super) st: &'s mut State,
    pub(super) cfg: &'s Config,
    pub(super) current: Option<u64>,
    pub(super) clientid: Option<u64>,
    pub(super) now: Instant,
}

pub(super) fn err<T>(e: NfsErr4) -> Result<T, NfsErr4> {
    Err(e)
}

/// An operation's result; READ's data is owned here and borrowed by the reply being encoded.
enum Out {
    Res(NfsResOp<'static>),
    Read { eof: bool, data: Vec<u8> },
}

/// The COMPOUND4res body answering `body`, and the operation names seen (for the counters).
pub fn compound(st: &mut State, cfg: &Config, body: &[u8], now: Instant) -> (Vec<u8>, Vec<&'static str>) {
    let Ok(decoder) = CompoundDecoder::new(body, 64) else { return (Vec::new(), Vec::new()) };
    let tag = decoder.tag().to_vec();
    if !cfg.minor_versions.contains(&decoder.minorversion()) {
        let res = Compound4Res { status: NfsStat4::MinorVersMismatch, tag: &tag, resarray: Vec::new() };
        return (encode(&res), vec!["MINOR_VERS_MISMATCH"]);
    }
    let ops: Vec<NfsArgOp<'_>> = decoder.map_while(Result::ok).collect();
    let mut names: Vec<&'static str> = ops.iter().map(|op| op.op().name()).collect();
    for op in &ops {
        match op {
            NfsArgOp::Open(OpenArgs { claim: OpenClaim4::Previous(_), .. }) => names.push("CLAIM_PREVIOUS"),
            NfsArgOp::Open(OpenArgs { claim: OpenClaim4::Fh, .. }) => names.push("CLAIM_FH"),
            _ => {}
        }
    }
    let mut ev = Eval { st, cfg, current: None, clientid: None, now };
    // SEQUENCE first: a replay is answered from the slot's cache, before anything is done again.
    let mut slot_of = None;
    if let Some(NfsArgOp::Sequence(seq)) = ops.first() {
        match ev.sequence(seq) {
            Ok(Ok(ok)) => slot_of = Some((seq.sessionid, seq.slotid, ok)),
            Ok(Err(Some(cached))) => return (cached, vec!["REPLAY"]),
            Ok(Err(None)) => {
                // knfsd's nfsd4_enc_sequence_replay for a reply it did not cache: SEQUENCE replayed,
                // the next operation NFS4ERR_RETRY_UNCACHED_REP.
                let mut results = vec![NfsResOp::Sequence(Nfs4Result::Ok(ev.replayed(seq)))];
                if let Some(next) = ops.get(1) {
                    results.push(NfsResOp::error(next.op(), NfsErr4::RetryUncachedRep));
                }
                return (encode(&Compound4Res::new(&tag, results)), vec!["UNCACHED REPLAY"]);
            }
            Err(e) => {
                let res = Compound4Res::new(&tag, vec![NfsResOp::error(OpNum4::Sequence, e)]);
                return (encode(&res), names);
            }
        }
    }
    let mut outs = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let out = match (i, op, &slot_of) {
            (0, NfsArgOp::Sequence(_), Some((_, _, ok))) => Out::Res(NfsResOp::Sequence(Nfs4Result::Ok(*ok))),
            _ => match ev.op(op) {
                Ok(out) => out,
                Err(e) => Out::Res(NfsResOp::error(op.op(), e)),
            },
        };
        let failed = matches!(&out, Out::Res(res) if !res.status().is_ok());
        outs.push(out);
        if failed {
            break;
        }
    }
    let results = outs
        .iter()
        .map(|out| match out {
            Out::Res(res) => res.clone(),
            Out::Read { eof, data } => NfsResOp::Read(Nfs4Result::Ok(ReadResOk { eof: *eof, data })),
        })
        .collect();
    let reply = encode(&Compound4Res::new(&tag, results));
    if let Some((sessionid, slotid, _)) = slot_of {
        if let Some(slot) = ev.st.sessions.get_mut(&sessionid).and_then(|s| s.slots.get_mut(slotid as usize)) {
            slot.used = true;
            slot.reply = (!ev.st.uncached).then(|| reply.clone());
        }
    }
    (reply, names)
}

fn encode<T: XdrEncode>(value: &T) -> Vec<u8> {
    let mut w = XdrWriter::new();
    value.encode(&mut w);
    w.to_vec()
}

impl Eval<'_> {
    /// SEQUENCE (RFC 8881 §18.46.3): `Ok(Ok)` to go on, `Ok(Err(reply))` for a replay with its cached
    /// reply, if one was cached.
    fn sequence(&mut self, seq: &SequenceArgs) -> Result<Result<SequenceResOk, Option<Vec<u8>>>, NfsErr4> {
        self.st.expire(self.now);
        let target = self.st.target;
        let Some(session) = self.st.sessions.get_mut(&seq.sessionid) else { return err(NfsErr4::BadSession) };
        let top = session.slots.len() as u32 - 1;
        let Some(slot) = session.slots.get_mut(seq.slotid as usize) else { return err(NfsErr4::BadSlot) };
        let slotid = seq.slotid;
        if seq.sequenceid == slot.seq && slot.used {
            return Ok(Err(slot.reply.clone()));
        }
        if seq.sequenceid != slot.seq.wrapping_add(1) {
            return err(NfsErr4::SeqMisordered);
        }
        slot.seq = seq.sequenceid;
        slot.reply = None;
        self.st.max_slot_seen = self.st.max_slot_seen.max(slotid);
        let clientid = session.clientid;
        if let Some(client) = self.st.clients.get_mut(&clientid) {
            client.last_renewal = self.now;
        }
        self.clientid = Some(clientid);
        let target = target.unwrap_or(top).min(top);
        Ok(Ok(SequenceResOk {
            sessionid: seq.sessionid,
            sequenceid: seq.sequenceid,
            slotid: seq.slotid,
            highest_slotid: top,
            target_highest_slotid: target,
            status_flags: 0,
        }))
    }

    /// SEQUENCE's result for a replay of `seq`.
    fn replayed(&self, seq: &SequenceArgs) -> SequenceResOk {
        let top = self.st.sessions.get(&seq.sessionid).map_or(0, |s| s.slots.len() as u32 - 1);
        SequenceResOk {
            sessionid: seq.sessionid,
            sequenceid: seq.sequenceid,
            slotid: seq.slotid,
            highest_slotid: top,
            target_highest_slotid: top,
            status_flags: 0,
        }
    }

    pub(super) fn cur(&self) -> Result<u64, NfsErr4> {
        self.current.ok_or(NfsErr4::NoFileHandle)
    }

    fn attrs(&self, id: u64, requested: &Bitmap4) -> Result<RawFattr4<'static>, NfsErr4> {
        let node = self.st.nodes.get(&id).ok_or(NfsErr4::Stale)?;
        let a = Fattr4 {
            ftype: Some(node.kind),
            size: Some(node.data.len() as u64),
            fsid: Some(Fsid4 { major: 7, minor: 0 }),
            fileid: Some(id),
            mode: Some(node.mode),
            numlinks: Some(1),
            owner: Some(Utf8Str(b"0")),
            owner_group: Some(Utf8Str(b"0")),
            lease_time: Some(self.st.lease.as_secs() as u32),
            maxread: Some(self.cfg.maxread),
            maxwrite: Some(self.cfg.maxread),
            ..Fattr4::default()
        };
        Ok(a.to_raw_masked(requested))
    }

    fn stateid_ok(&self, sid: &Stateid4, file: u64) -> Result<(), NfsErr4> {
        if sid.is_anonymous() || sid.is_bypass() {
            return Ok(());
        }
        match self.st.opens.get(&sid.other) {
            Some(o) if o.file == file && (sid.seqid == 0 || sid.seqid == o.seqid) => Ok(()),
            Some(o) if o.file == file => err(NfsErr4::OldStateId),
            _ => err(NfsErr4::BadStateId),
        }
    }

    fn op(&mut self, op: &NfsArgOp<'_>) -> Result<Out, NfsErr4> {
        Ok(Out::Res(match op {
            NfsArgOp::Sequence(_) => return err(NfsErr4::SequencePos),
            NfsArgOp::ExchangeId(a) => NfsResOp::ExchangeId(Nfs4Result::Ok(self.exchange_id(a))),
            NfsArgOp::CreateSession(a) => NfsResOp::CreateSession(Nfs4Result::Ok(self.create_session(a)?)),
            NfsArgOp::BindConnToSession(a) => {
                if !self.st.sessions.contains_key(&a.sessionid) {
                    return err(NfsErr4::BadSession);
                }
                let dir = if a.dir == ChannelDirFromClient4::Fore {
                    ChannelDirFromServer4::Fore
                } else {
                    ChannelDirFromServer4::Both
                };
                NfsResOp::BindConnToSession(Nfs4Result::Ok(BindConnToSessionResOk {
                    sessionid: a.sessionid,
                    dir,
                    use_conn_in_rdma_mode: false,
                }))
            }
            NfsArgOp::DestroySession(a) => {
                self.st.sessions.remove(&a.sessionid).ok_or(NfsErr4::BadSession)?;
                NfsResOp::DestroySession(Nfs4Result::Ok(Void))
            }
            NfsArgOp::DestroyClientid(a) => {
                self.st.clients.remove(&a.clientid).ok_or(NfsErr4::StaleClientId)?;
                NfsResOp::DestroyClientid(Nfs4Result::Ok(Void))
            }
            NfsArgOp::ReclaimComplete(_) => {
                if !self.st.grace {
                    return err(NfsErr4::CompleteAlready);
                }
                self.st.grace = false;
                NfsResOp::ReclaimComplete(Nfs4Result::Ok(Void))
            }
            NfsArgOp::Putrootfh => {
                self.current = Some(ROOT);
                NfsResOp::Putrootfh(Nfs4Result::Ok(Void))
            }
            NfsArgOp::Putfh(a) => {
                let id = node_of(&a.object).filter(|id| self.st.nodes.contains_key(id)).ok_or(NfsErr4::Stale)?;
                self.current = Some(id);
                NfsResOp::Putfh(Nfs4Result::Ok(Void))
            }
            NfsArgOp::Getfh => NfsResOp::Getfh(Nfs4Result::Ok(GetfhResOk { object: handle(self.cur()?) })),
            NfsArgOp::Lookup(a) => {
                let dir = self.st.nodes.get(&self.cur()?).ok_or(NfsErr4::Stale)?;
                let name = String::from_utf8_lossy(a.objname.0).into_owned();
                self.current = Some(*dir.entries.get(&name).ok_or(NfsErr4::NoEnt)?);
                NfsResOp::Lookup(Nfs4Result::Ok(Void))
            }
            NfsArgOp::Getattr(a) => {
                let attrs = self.attrs(self.cur()?, &a.attr_request)?;
                NfsResOp::Getattr(Nfs4Result::Ok(GetattrResOk { obj_attributes: attrs }))
            }
            NfsArgOp::Create(a) => {
                let dir = self.cur()?;
                let name = String::from_utf8_lossy(a.objname.0).into_owned();
                if self.st.nodes[&dir].entries.contains_key(&name) {
                    return err(NfsErr4::Exist);
                }
                let mode = a.createattrs.decode_attrs().ok().and_then(|f| f.mode).unwrap_or(0o755);
                let id = self.st.new_node(NfsFtype4::Dir, mode);
                self.st.nodes.get_mut(&dir).ok_or(NfsErr4::Stale)?.entries.insert(name, id);
                self.current = Some(id);
                NfsResOp::Create(Nfs4Result::Ok(CreateResOk {
                    cinfo: ChangeInfo4::default(),
                    attrset: a.createattrs.attrmask,
                }))
            }
            NfsArgOp::Remove(a) => {
                let dir = self.cur()?;
                let name = String::from_utf8_lossy(a.target.0).into_owned();
                self.st.nodes.get_mut(&dir).ok_or(NfsErr4::Stale)?.entries.remove(&name).ok_or(NfsErr4::NoEnt)?;
                NfsResOp::Remove(Nfs4Result::Ok(RemoveResOk { cinfo: ChangeInfo4::default() }))
            }
            NfsArgOp::Open(a) => NfsResOp::Open(Nfs4Result::Ok(self.open(a)?)),
            NfsArgOp::Close(a) => {
                let file = self.cur()?;
                self.stateid_ok(&a.open_stateid, file)?;
                self.st.opens.remove(&a.open_stateid.other);
                NfsResOp::Close(Nfs4Result::Ok(CloseResOk { open_stateid: Stateid4::INVALID }))
            }
            NfsArgOp::Delegreturn(_) => NfsResOp::Delegreturn(Nfs4Result::Ok(Void)),
            NfsArgOp::Read(a) => {
                let file = self.cur()?;
                self.stateid_ok(&a.stateid, file)?;
                let data = &self.st.nodes[&file].data;
                let start = (a.offset as usize).min(data.len());
                let end = (start + a.count as usize).min(data.len());
                return Ok(Out::Read { eof: end == data.len(), data: data[start..end].to_vec() });
            }
            NfsArgOp::Write(a) => {
                let file = self.cur()?;
                self.stateid_ok(&a.stateid, file)?;
                let node = self.st.nodes.get_mut(&file).ok_or(NfsErr4::Stale)?;
                let end = a.offset as usize + a.data.len();
                if node.data.len() < end {
                    node.data.resize(end, 0);
                }
                node.data[a.offset as usize..end].copy_from_slice(a.data);
                let writeverf = Verifier4(self.st.write_verifier());
                NfsResOp::Write(Nfs4Result::Ok(WriteResOk {
                    count: a.data.len() as u32,
                    committed: a.stable,
                    writeverf,
                }))
            }
            NfsArgOp::Commit(_) => {
                self.cur()?;
                NfsResOp::Commit(Nfs4Result::Ok(CommitResOk { writeverf: Verifier4(self.st.write_verifier()) }))
            }
            NfsArgOp::Setattr(a) => {
                let file = self.cur()?;
                let set = a.obj_attributes.decode_attrs().map_err(|e| e.status())?;
                if set.size.is_some() {
                    self.stateid_ok(&a.stateid, file)?;
                }
                let node = self.st.nodes.get_mut(&file).ok_or(NfsErr4::Stale)?;
                if let Some(size) = set.size {
                    node.data.resize(size as usize, 0);
                }
                if let Some(mode) = set.mode {
                    node.mode = mode;
                }
                NfsResOp::Setattr(SetattrRes { status: NfsStat4::Ok, attrsset: a.obj_attributes.attrmask })
            }
            _ => return err(NfsErr4::NotSupp),
        }))
    }
}
