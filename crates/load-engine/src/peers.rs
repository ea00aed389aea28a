//! Several clients running the same jobs at once (MPI ranks, one engine each): they lay out their
//! files, start every group's clock together, and stop as one when any of them cannot go on.
//!
//! A job without `filename=` gets its files in a directory of its own per client (`rank3/` beside
//! where the files would be), so clients never write each other's files; a job that names its files
//! shares them, and client 0 lays them out before the others look at them.

/// How the clients of a many-clients run keep in step. Calls block until every client made the same
/// call, so each client must make them in the same order (the engine does: one or two per group).
pub trait Peers: Send + Sync + std::fmt::Debug {
    /// This client's number, 0 to clients − 1.
    fn rank(&self) -> usize;
    /// Waits for every client and tells whether all of them are fine (`ok` is this client's state).
    fn all_ok(&self, ok: bool) -> bool;
}

/// The path of a job's file for client `rank`: a `rankN` directory before the file's name.
pub fn private_path(name: &str, rank: usize) -> String {
    match name.rsplit_once('/') {
        Some((dir, leaf)) => format!("{dir}/rank{rank}/{leaf}"),
        None => format!("rank{rank}/{name}"),
    }
}

/// Whether a directory name is one [`private_path`] makes (`rank` and a number): an engine that makes no
/// directories of its own (the file engine, as fio) still makes these.
pub fn is_private_dir(name: &str) -> bool {
    name.strip_prefix("rank").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_gets_a_directory_beside_the_files() {
        assert_eq!(private_path("seq.0.0", 2), "rank2/seq.0.0");
        assert_eq!(private_path("/mnt/nfs/seq.0.0", 0), "/mnt/nfs/rank0/seq.0.0");
        assert_eq!(private_path("a/b/f", 13), "a/b/rank13/f");
        assert!(is_private_dir("rank13") && !is_private_dir("rank") && !is_private_dir("ranks"));
    }
}
