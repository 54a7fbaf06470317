//! Prefetching a load's next rows.
//!
//! A GPU runs thousands of threads at once, so the loads of a grid-stride loop
//! (`i += blockDim.x * gridDim.x`) sweep memory front to back. warpsim runs one block at a time
//! on each CPU thread, so the same loop's loads lie a whole grid's threads apart: too far for the
//! processor's prefetchers, which follow streams, and every load waits for memory. A load site
//! that moved since its last execution asks for its rows as far on again (a loop's step is
//! steady; the first load of a block's loop guesses from the block before). Prefetching is a
//! hint: it changes no value and no counter.

use crate::memory::Atomics;
use crate::site::Site;

/// Load sites remembered (a kernel's busiest loop has a few).
const SITES: usize = 8;

/// The index each recent load site started at: a worker's, kept from block to block.
pub(crate) struct Strides {
    /// `(site key, start)`; key 0 is no site (Rust sites are addresses, table sites odd).
    last: [(usize, u32); SITES],
    /// The entry a new site takes next (the oldest).
    next: usize,
}

impl Strides {
    pub fn new() -> Strides {
        Strides {
            last: [(0, 0); SITES],
            next: 0,
        }
    }

    /// The step from `site`'s last start to `start`, if the site was seen and moved; remembers
    /// `start`.
    #[inline]
    pub fn step(&mut self, site: Site, start: u32) -> Option<u32> {
        let key = site.key();
        if let Some(e) = self.last.iter_mut().find(|e| e.0 == key) {
            let last = std::mem::replace(&mut e.1, start);
            return (last != start).then(|| start.wrapping_sub(last));
        }
        self.last[self.next] = (key, start);
        self.next = (self.next + 1) % SITES;
        None
    }
}

/// Ask for the rows of a 4-byte load at element `a + b·warp + c·lane` (wrapping, as the load
/// computes it) of words from `base`, for each warp with a lane in `active`: a hint every 16 words
/// (a 64-byte line) of the row, for lanes at most 4 elements apart; wider rows are left to the
/// load. A row's tail line is mostly the next row's first: more hints per row measured slower.
pub(crate) fn rows(active: &[u32], words: &Atomics<'_>, base: usize, (a, b, c): (u32, u32, u32)) {
    if c > 4 {
        return;
    }
    let hints = 31 * c as usize / 16 + 1;
    for (w, &m) in active.iter().enumerate() {
        if m != 0 {
            let first = base + a.wrapping_add(b.wrapping_mul(w as u32)) as usize;
            for k in 0..hints {
                words.prefetch(first + 16 * k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn a_site_steps_from_its_last_start() {
        let (one, two) = (Site::packed(0, 3, 1), Site::packed(0, 4, 1));
        let mut s = Strides::new();
        assert_eq!(s.step(one, 100), None, "a site seen for the first time");
        assert_eq!(s.step(one, 100), None, "a site that did not move");
        assert_eq!(s.step(one, 65636), Some(65536));
        assert_eq!(s.step(two, 7), None);
        assert_eq!(
            s.step(one, 100),
            Some(100u32.wrapping_sub(65636)),
            "a step back wraps"
        );
        assert_eq!(s.step(two, 39), Some(32));
        for line in 10..10 + SITES as u32 - 2 {
            s.step(Site::packed(0, line, 1), 0);
        }
        assert_eq!(s.step(one, 164), Some(64), "{SITES} sites are remembered");
        s.step(Site::packed(0, 99, 1), 0);
        assert_eq!(s.step(two, 50), Some(11));
        assert_eq!(s.step(one, 50), None, "the first site seen made way");
    }

    #[test]
    fn hints_past_the_end_ask_for_nothing() {
        // Rows past the 64 words, wrapping below zero, of inactive warps: no index panics.
        let words: Vec<AtomicU32> = (0..64).map(AtomicU32::new).collect();
        let active = [u32::MAX, 0, 1, u32::MAX];
        for (a, b, c) in [
            (40, 32, 1),
            (u32::MAX - 20, 32, 1),
            (0, 32, 4),
            (60, 7, 3),
            (9, 0, 5),
        ] {
            rows(&active, &Atomics(&words), 3, (a, b, c));
        }
    }
}
