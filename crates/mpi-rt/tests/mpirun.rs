//! Open MPI's mpirun starts 4 ranks of `mpi-check` on this host: MPI is found at run time, the ranks meet
//! at a barrier, agree on the largest of their values (all_max), and rank 0 gathers each rank's message (of a different length each) in rank order.
//! Needs Debian's openmpi-bin (scripts/install-deps.sh test installs it).

use std::process::Command;

#[test]
fn four_ranks_gather_their_messages_at_rank_0() {
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "4"])
        .arg(env!("CARGO_BIN_EXE_mpi-check"))
        .output()
        .expect("mpirun runs (scripts/install-deps.sh test installs openmpi-bin)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert_eq!(lines[4], "worst: 3, every rank agrees: true", "all_max gives every rank the largest value");
    for (rank, line) in lines[..4].iter().enumerate() {
        let mine = format!("rank {rank} of 4 on ");
        assert!(line.starts_with(&format!("{rank}: ")) && line.contains(&mine), "{line}");
    }
}

#[test]
fn without_mpirun_nothing_is_loaded() {
    let out = Command::new(env!("CARGO_BIN_EXE_mpi-check")).env_remove("OMPI_COMM_WORLD_SIZE").output().expect("runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "not started by mpirun");
}
