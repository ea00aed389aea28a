//! MPI for nfsbench, found at run time: when `mpirun` started this process (Open MPI sets
//! `OMPI_COMM_WORLD_SIZE`), Open MPI's `libmpi.so.40` is loaded with dlopen and used for what many
//! clients need — who am I (rank, size, host), start together (barrier), agree whether to go on (the
//! worst of every rank's status), and hand every rank's result to rank 0 (gather). Without mpirun nothing is loaded, so building and running nfsbench never needs an
//! MPI installation.
//!
//! Open MPI's ABI: a communicator or datatype handle is the address of a predefined object
//! (`MPI_COMM_WORLD` is `&ompi_mpi_comm_world`, `MPI_BYTE` `&ompi_mpi_byte`, `MPI_INT` `&ompi_mpi_int`,
//! `MPI_MAX` `&ompi_mpi_op_max`),
//! found here as data symbols of the library. MPICH-family libraries (integer handles) are not loaded.

use libloading::{Library, Symbol};
use std::ffi::{c_char, c_int, c_void};
use thiserror::Error;

/// What can go wrong bringing MPI up or using it.
#[derive(Debug, Error)]
pub enum MpiError {
    #[error("started by mpirun, but Open MPI's library could not be loaded ({0}); install Debian's openmpi-bin")]
    Load(String),
    #[error("MPI: {0} failed with error code {1}")]
    Call(&'static str, c_int),
    #[error("MPI: a result of {0} bytes is too large to gather")]
    TooLarge(usize),
}

/// Library names tried, Open MPI 4 first.
const LIBRARIES: [&str; 2] = ["libmpi.so.40", "libmpi.so"];

/// MPI brought up in this process; finalized when dropped.
#[derive(Debug)]
pub struct Mpi {
    lib: Library,
    rank: usize,
    size: usize,
    host: String,
}

type Comm = *mut c_void;
type Datatype = *mut c_void;
type Op = *mut c_void;

impl Mpi {
    /// MPI when this process was started by Open MPI's mpirun, `None` otherwise.
    pub fn from_env() -> Option<Result<Mpi, MpiError>> {
        std::env::var_os("OMPI_COMM_WORLD_SIZE")?;
        Some(Mpi::init())
    }

    fn init() -> Result<Mpi, MpiError> {
        let mut errors = Vec::new();
        let lib = LIBRARIES
            .iter()
            .find_map(|name| {
                // SAFETY: loading Open MPI runs its constructors, which only register the library.
                unsafe { Library::new(name) }.map_err(|e| errors.push(format!("{name}: {e}"))).ok()
            })
            .ok_or_else(|| MpiError::Load(errors.join("; ")))?;
        let mut mpi = Mpi { lib, rank: 0, size: 1, host: String::new() };
        // SAFETY: MPI_Init(NULL, NULL) is allowed by MPI-2 and later; called once per process.
        mpi.check("MPI_Init", unsafe {
            let init: Symbol<unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char) -> c_int> =
                mpi.sym(b"MPI_Init\0")?;
            init(std::ptr::null_mut(), std::ptr::null_mut())
        })?;
        let world = mpi.handle(b"ompi_mpi_comm_world\0")?;
        let (mut rank, mut size) = (0 as c_int, 0 as c_int);
        // SAFETY: world is MPI_COMM_WORLD; the out-pointers are valid c_ints.
        unsafe {
            let comm_rank: Symbol<unsafe extern "C" fn(Comm, *mut c_int) -> c_int> = mpi.sym(b"MPI_Comm_rank\0")?;
            mpi.check("MPI_Comm_rank", comm_rank(world, &mut rank))?;
            let comm_size: Symbol<unsafe extern "C" fn(Comm, *mut c_int) -> c_int> = mpi.sym(b"MPI_Comm_size\0")?;
            mpi.check("MPI_Comm_size", comm_size(world, &mut size))?;
        }
        // MPI_MAX_PROCESSOR_NAME is 256 in Open MPI.
        let mut name = vec![0 as c_char; 256];
        let mut len: c_int = 0;
        // SAFETY: the buffer holds MPI_MAX_PROCESSOR_NAME characters.
        unsafe {
            let get_name: Symbol<unsafe extern "C" fn(*mut c_char, *mut c_int) -> c_int> =
                mpi.sym(b"MPI_Get_processor_name\0")?;
            mpi.check("MPI_Get_processor_name", get_name(name.as_mut_ptr(), &mut len))?;
        }
        let bytes: Vec<u8> = name[..len.clamp(0, 255) as usize].iter().map(|c| *c as u8).collect();
        mpi.host = String::from_utf8_lossy(&bytes).into_owned();
        mpi.rank = rank.max(0) as usize;
        mpi.size = size.max(1) as usize;
        Ok(mpi)
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// This rank's host name as MPI knows it.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Wait until every rank got here.
    pub fn barrier(&self) -> Result<(), MpiError> {
        let world = self.handle(b"ompi_mpi_comm_world\0")?;
        // SAFETY: MPI_Barrier(MPI_COMM_WORLD) after MPI_Init.
        unsafe {
            let barrier: Symbol<unsafe extern "C" fn(Comm) -> c_int> = self.sym(b"MPI_Barrier\0")?;
            self.check("MPI_Barrier", barrier(world))
        }
    }

    /// The largest of every rank's `value`, at every rank (MPI_Allreduce with MPI_MAX): how ranks agree
    /// whether to go on — each gives its own status and all learn the worst. Also a barrier.
    pub fn all_max(&self, value: i32) -> Result<i32, MpiError> {
        let world = self.handle(b"ompi_mpi_comm_world\0")?;
        let (int, max) = (self.handle(b"ompi_mpi_int\0")?, self.handle(b"ompi_mpi_op_max\0")?);
        let mut out: c_int = 0;
        type Allreduce = unsafe extern "C" fn(*const c_void, *mut c_void, c_int, Datatype, Op, Comm) -> c_int;
        // SAFETY: one c_int in, one c_int out, MPI_INT with MPI_MAX over MPI_COMM_WORLD.
        unsafe {
            let allreduce: Symbol<Allreduce> = self.sym(b"MPI_Allreduce\0")?;
            let send = (&value as *const i32).cast();
            self.check("MPI_Allreduce", allreduce(send, (&mut out as *mut c_int).cast(), 1, int, max, world))?;
        }
        Ok(out)
    }

    /// Every rank's `bytes`, in rank order, at rank 0 (`None` at the other ranks).
    pub fn gather(&self, bytes: &[u8]) -> Result<Option<Vec<Vec<u8>>>, MpiError> {
        let world = self.handle(b"ompi_mpi_comm_world\0")?;
        let (int, byte) = (self.handle(b"ompi_mpi_int\0")?, self.handle(b"ompi_mpi_byte\0")?);
        let len = c_int::try_from(bytes.len()).map_err(|_| MpiError::TooLarge(bytes.len()))?;
        let root = self.rank == 0;
        let mut lens = vec![0 as c_int; if root { self.size } else { 0 }];
        type Gather =
            unsafe extern "C" fn(*const c_void, c_int, Datatype, *mut c_void, c_int, Datatype, c_int, Comm) -> c_int;
        type Gatherv = unsafe extern "C" fn(
            *const c_void,
            c_int,
            Datatype,
            *mut c_void,
            *const c_int,
            *const c_int,
            Datatype,
            c_int,
            Comm,
        ) -> c_int;
        // SAFETY: one c_int sent by each rank into `lens` (size entries at the root, unused elsewhere).
        unsafe {
            let gather: Symbol<Gather> = self.sym(b"MPI_Gather\0")?;
            let out = if root { lens.as_mut_ptr().cast() } else { std::ptr::null_mut() };
            self.check("MPI_Gather", gather((&len as *const c_int).cast(), 1, int, out, 1, int, 0, world))?;
        }
        let mut offsets = Vec::with_capacity(lens.len());
        let mut total = 0usize;
        for l in &lens {
            offsets.push(c_int::try_from(total).map_err(|_| MpiError::TooLarge(total))?);
            total += (*l).max(0) as usize;
        }
        let mut all = vec![0u8; total];
        // SAFETY: the root's buffer holds the sum of the lengths it gathered, at the offsets computed.
        unsafe {
            let gatherv: Symbol<Gatherv> = self.sym(b"MPI_Gatherv\0")?;
            let (out, counts, displs) = if root {
                (all.as_mut_ptr().cast(), lens.as_ptr(), offsets.as_ptr())
            } else {
                (std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
            };
            self.check("MPI_Gatherv", gatherv(bytes.as_ptr().cast(), len, byte, out, counts, displs, byte, 0, world))?;
        }
        if !root {
            return Ok(None);
        }
        Ok(Some(
            offsets
                .iter()
                .zip(&lens)
                .map(|(o, l)| all[*o as usize..*o as usize + (*l).max(0) as usize].to_vec())
                .collect(),
        ))
    }

    /// A function of the library.
    unsafe fn sym<T>(&self, name: &'static [u8]) -> Result<Symbol<'_, T>, MpiError> {
        let shown = String::from_utf8_lossy(&name[..name.len() - 1]).into_owned();
        // SAFETY: the caller names the symbol with its C type.
        unsafe { self.lib.get(name) }.map_err(|e| MpiError::Load(format!("{shown}: {e}")))
    }

    /// The address of a predefined object (a communicator or datatype handle in Open MPI's ABI).
    fn handle(&self, name: &'static [u8]) -> Result<*mut c_void, MpiError> {
        // SAFETY: a data symbol looked up as `*mut c_void` is its address (libloading); only the address
        // is used, as the handle, never read through here.
        unsafe { self.sym::<*mut c_void>(name).map(|s| *s) }
    }

    fn check(&self, what: &'static str, code: c_int) -> Result<(), MpiError> {
        if code == 0 {
            Ok(())
        } else {
            Err(MpiError::Call(what, code))
        }
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        // SAFETY: MPI_Finalize once, after every other MPI call of this process.
        unsafe {
            if let Ok(finalize) = self.sym::<unsafe extern "C" fn() -> c_int>(b"MPI_Finalize\0") {
                finalize();
            }
        }
    }
}
