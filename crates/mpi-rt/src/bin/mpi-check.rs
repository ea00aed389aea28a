//! `mpirun -np 4 mpi-check`: every rank reports itself, rank 0 prints what it gathered (one line per rank:
//! "RANK: BYTES bytes: TEXT", then "worst: W", the largest rank number as every rank learned it from
//! all_max). The check that MPI, loaded at run time, works on this machine.
fn main() {
    let Some(mpi) = mpi_rt::Mpi::from_env() else {
        println!("not started by mpirun");
        return;
    };
    let mpi = mpi.expect("MPI comes up");
    mpi.barrier().expect("barrier");
    let mine = format!("rank {} of {} on {}", mpi.rank(), mpi.size(), mpi.host()).repeat(mpi.rank() + 1);
    let worst = mpi.all_max(mpi.rank() as i32).expect("all_max");
    let gathered = mpi.gather(format!("{worst}").as_bytes()).expect("gather");
    let agreed = gathered.map(|all| all.iter().all(|b| b == worst.to_string().as_bytes()));
    if let Some(all) = mpi.gather(mine.as_bytes()).expect("gather") {
        for (i, bytes) in all.iter().enumerate() {
            println!("{i}: {} bytes: {}", bytes.len(), String::from_utf8_lossy(&bytes[..bytes.len().min(40)]));
        }
        println!("worst: {worst}, every rank agrees: {}", agreed == Some(true));
    }
}
