//! The pieces of a connection's pool ([`rdma::QueuePair::pool`], registered once when the connection
//! is made) lent to calls as the targets of their RDMA Reads (WRITE data, long calls), so that pulling
//! a call's Read chunks registers nothing. First fit from the lowest offset (the pool's low pages stay
//! the ones in use, so a lazily backed pool touches no more memory than the calls in flight need);
//! pieces given back merge with their free neighbours. Sans I/O: offsets only.

/// Pieces start on this boundary (a cache line: two calls' targets never share one).
const ALIGN: usize = 64;

/// A piece of the pool: `len` bytes from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub offset: usize,
    pub len: usize,
}

/// The free ranges of a pool of `size` bytes.
#[derive(Debug)]
pub(crate) struct Arena {
    /// Free (offset, len) ranges, sorted by offset, never adjacent (merged when given back).
    free: Vec<(usize, usize)>,
}

impl Arena {
    /// A pool of `size` bytes, all free.
    pub(crate) fn new(size: usize) -> Arena {
        let size = size - size % ALIGN;
        Arena { free: if size == 0 { Vec::new() } else { vec![(0, size)] } }
    }

    /// A piece of `len` bytes (rounded up to the alignment), or `None` when no free range holds it.
    pub(crate) fn take(&mut self, len: usize) -> Option<Piece> {
        let rounded = len.checked_add(ALIGN - 1)? / ALIGN * ALIGN;
        let rounded = rounded.max(ALIGN);
        let i = self.free.iter().position(|&(_, free)| free >= rounded)?;
        let (offset, free) = self.free[i];
        if free == rounded {
            self.free.remove(i);
        } else {
            self.free[i] = (offset + rounded, free - rounded);
        }
        Some(Piece { offset, len: rounded })
    }

    /// Gives `piece` back (as [`take`](Self::take) returned it), merged with the free ranges around it.
    pub(crate) fn give(&mut self, piece: Piece) {
        let Piece { offset, len } = piece;
        let i = self.free.partition_point(|&(at, _)| at < offset);
        let joins_previous = i > 0 && self.free.get(i - 1).is_some_and(|&(at, n)| at + n == offset);
        let joins_next = self.free.get(i).is_some_and(|&(at, _)| offset + len == at);
        match (joins_previous, joins_next) {
            (true, true) => {
                let (_, next) = self.free.remove(i);
                self.free[i - 1].1 += len + next;
            }
            (true, false) => self.free[i - 1].1 += len,
            (false, true) => self.free[i] = (offset, len + self.free[i].1),
            (false, false) => self.free.insert(i, (offset, len)),
        }
    }

    /// Bytes free now.
    #[cfg(test)]
    pub(crate) fn free_bytes(&self) -> usize {
        self.free.iter().map(|&(_, n)| n).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_come_from_the_low_end_and_go_back_merged() {
        let mut arena = Arena::new(1 << 20);
        let a = arena.take(100).expect("a");
        let b = arena.take(4096).expect("b");
        let c = arena.take(1).expect("c");
        assert_eq!((a.offset, b.offset, c.offset), (0, 128, 128 + 4096));
        arena.give(b);
        assert_eq!(arena.take(4000).map(|p| p.offset), Some(128), "the freed hole is reused first");
        arena.give(Piece { offset: 128, len: 4032 });
        arena.give(a);
        arena.give(c);
        assert_eq!(arena.free, vec![(0, 1 << 20)], "everything merged back into one range");
    }

    #[test]
    fn an_exhausted_pool_says_so_and_recovers_when_pieces_return() {
        let mut arena = Arena::new(3 * 1024);
        let pieces: Vec<Piece> = (0..3).map(|_| arena.take(1024).expect("fits")).collect();
        assert_eq!(arena.take(1), None);
        assert_eq!(arena.take(usize::MAX), None, "no overflow on a huge request");
        arena.give(pieces[1]);
        assert_eq!(arena.take(2048), None, "1 KiB free is not 2 KiB");
        assert_eq!(arena.take(1024).map(|p| p.offset), Some(1024));
        assert_eq!(arena.free_bytes(), 0);
    }

    #[test]
    fn an_empty_pool_lends_nothing() {
        let mut arena = Arena::new(10);
        assert_eq!((arena.free_bytes(), arena.take(1)), (0, None));
    }
}
