//! The fake server's client state operations: EXCHANGE_ID (a client ID per owner and verifier),
//! CREATE_SESSION (its sequence, the slots granted) and OPEN (every create mode, CLAIM_NULL, CLAIM_FH,
//! CLAIM_PREVIOUS only in grace; no delegation ever).

use nfs4_proto::*;

use super::ops::{err, Eval};
use super::state::{Client, Session, Slot};

impl Eval<'_> {
    pub(super) fn exchange_id(&mut self, a: &ExchangeIdArgs<'_>) -> ExchangeIdResOk<'static> {
        let owner = a.clientowner.ownerid.0.to_vec();
        let verifier = a.clientowner.verifier.0;
        let found = self
            .st
            .clients
            .iter()
            .find(|(_, c)| c.owner == owner && c.verifier == verifier)
            .map(|(id, c)| (*id, c.cs_sequence));
        let (clientid, sequence) = match found {
            Some(found) => found,
            None => {
                self.st.clients.retain(|_, c| c.owner != owner);
                let id = self.st.unique();
                self.st.clients.insert(id, Client { owner, verifier, cs_sequence: 1, last_renewal: self.now });
                (id, 1)
            }
        };
        let (major, scope) = (self.cfg.major_id, self.cfg.scope);
        ExchangeIdResOk {
            clientid,
            sequenceid: sequence,
            flags: EXCHGID4_FLAG_USE_NON_PNFS,
            state_protect: StateProtect4R::None,
            server_owner: ServerOwner4 { minor_id: 0, major_id: Opaque4(major) },
            server_scope: Opaque4(scope),
            server_impl_id: None,
        }
    }

    pub(super) fn create_session(&mut self, a: &CreateSessionArgs<'_>) -> Result<CreateSessionResOk, NfsErr4> {
        let client = self.st.clients.get_mut(&a.clientid).ok_or(NfsErr4::StaleClientId)?;
        if a.sequence != client.cs_sequence {
            return err(NfsErr4::SeqMisordered);
        }
        client.cs_sequence += 1;
        client.last_renewal = self.now;
        let slots = a.fore_chan_attrs.maxrequests.min(self.cfg.slots).max(1);
        let mut id = [0u8; 16];
        id[..8].copy_from_slice(&self.st.unique().to_be_bytes());
        let sessionid = SessionId4(id);
        self.st
            .sessions
            .insert(sessionid, Session { clientid: a.clientid, slots: vec![Slot::default(); slots as usize] });
        let fore = ChannelAttrs4 { maxrequests: slots, ..a.fore_chan_attrs };
        Ok(CreateSessionResOk {
            sessionid,
            sequence: a.sequence,
            flags: 0,
            fore_chan_attrs: fore,
            back_chan_attrs: a.back_chan_attrs,
        })
    }

    pub(super) fn open(&mut self, a: &OpenArgs<'_>) -> Result<OpenResOk<'static>, NfsErr4> {
        let clientid = self.clientid.ok_or(NfsErr4::OpNotInSession)?;
        let cur = self.cur()?;
        let mut attrset = Bitmap4::EMPTY;
        let file = match &a.claim {
            OpenClaim4::Null(name) => {
                if self.st.grace {
                    return err(NfsErr4::Grace);
                }
                let name = String::from_utf8_lossy(name.0).into_owned();
                let found = self.st.nodes[&cur].entries.get(&name).copied();
                match (&a.openhow, found) {
                    (OpenFlag4::NoCreate, None) => return err(NfsErr4::NoEnt),
                    (OpenFlag4::NoCreate, Some(id)) | (OpenFlag4::Create(CreateHow4::Unchecked(_)), Some(id)) => id,
                    (OpenFlag4::Create(CreateHow4::Guarded(_)), Some(_)) => return err(NfsErr4::Exist),
                    (OpenFlag4::Create(CreateHow4::Exclusive41 { verf, .. }), Some(id)) => {
                        if self.st.nodes[&id].verifier != Some(verf.0) {
                            return err(NfsErr4::Exist);
                        }
                        id
                    }
                    (OpenFlag4::Create(how), None) => {
                        let (raw, verf) = match how {
                            CreateHow4::Unchecked(r) | CreateHow4::Guarded(r) => (r.clone(), None),
                            CreateHow4::Exclusive41 { verf, attrs } => (attrs.clone(), Some(verf.0)),
                            CreateHow4::Exclusive(v) => (RawFattr4::EMPTY, Some(v.0)),
                        };
                        let mode = raw.decode_attrs().ok().and_then(|f| f.mode).unwrap_or(0o644);
                        attrset = raw.attrmask;
                        let id = self.st.new_node(NfsFtype4::Reg, mode);
                        self.st.nodes.get_mut(&id).ok_or(NfsErr4::Stale)?.verifier = verf;
                        self.st.nodes.get_mut(&cur).ok_or(NfsErr4::Stale)?.entries.insert(name, id);
                        id
                    }
                    (OpenFlag4::Create(_), Some(_)) => return err(NfsErr4::Exist),
                }
            }
            OpenClaim4::Previous(_) if !self.st.grace => return err(NfsErr4::NoGrace),
            OpenClaim4::Previous(_) => cur,
            OpenClaim4::Fh if self.st.grace => return err(NfsErr4::Grace),
            OpenClaim4::Fh => cur,
            _ => return err(NfsErr4::NotSupp),
        };
        if self.st.nodes[&file].kind != NfsFtype4::Reg {
            return err(NfsErr4::IsDir);
        }
        self.current = Some(file);
        let stateid = self.st.open(clientid, file);
        Ok(OpenResOk { stateid, cinfo: ChangeInfo4::default(), rflags: 0, attrset, delegation: OpenDelegation4::None })
    }
}
