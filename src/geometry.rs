//! Grid and block shapes: [`Dim3`], and which thread each lane of each warp is.
//!
//! Threads of a block are numbered x fastest, then y, then z (`linear = x + y·bx + z·bx·by`),
//! and warp `w` holds linear threads `32w .. 32w + 31`; a partial last warp has lanes that are
//! not threads of the block (they never execute).

use crate::lanes::{Mask, U32x32, WARP_SIZE};
use crate::values::frame::{MAX_WARPS, Masks, R32};
use std::fmt;

/// A 3-D extent or index (`dim3`/`uint3`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x, the fastest-varying dimension.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// `x * y * z`, or `u64::MAX` past it (no launch takes such a grid: CUDA's largest has
    /// under 2^63 blocks).
    pub fn count(&self) -> u64 {
        (u64::from(self.x) * u64::from(self.y)).saturating_mul(u64::from(self.z))
    }

    /// The index whose linear number in `extent` is `i` (x fastest).
    pub fn from_linear(i: u64, extent: Dim3) -> Dim3 {
        let (x, y) = (u64::from(extent.x.max(1)), u64::from(extent.y.max(1)));
        Dim3::new((i % x) as u32, ((i / x) % y) as u32, (i / (x * y)) as u32)
    }

    /// This index's linear number in `extent` (x fastest).
    pub fn linear_in(&self, extent: Dim3) -> u64 {
        u64::from(self.x)
            + u64::from(extent.x) * (u64::from(self.y) + u64::from(extent.y) * u64::from(self.z))
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// One component of `threadIdx` for a block shape: an affine form when the shape allows it
/// (1-D blocks, rows of 32 threads), per-warp lane vectors otherwise.
#[derive(Clone, Debug)]
pub(crate) enum Component {
    Affine(R32),
    Rows(Vec<U32x32>),
}

/// The threads of a block shape, per warp.
#[derive(Clone, Debug)]
pub(crate) struct BlockShape {
    pub block: Dim3,
    pub warps: usize,
    /// Lanes that are threads of the block, per warp.
    pub exists: Masks,
    pub x: Component,
    pub y: Component,
    pub z: Component,
}

impl BlockShape {
    pub fn new(block: Dim3) -> BlockShape {
        let threads = block.count() as u32;
        let warps = threads.div_ceil(WARP_SIZE as u32) as usize;
        let mut exists = [0; MAX_WARPS];
        for (w, e) in exists.iter_mut().enumerate().take(warps) {
            *e = Mask::first_n(threads - w as u32 * 32).0;
        }
        let (bx, by) = (block.x, block.y);
        let rows = |f: &dyn Fn(u32) -> u32| {
            Component::Rows(
                (0..warps as u32)
                    .map(|w| U32x32::from_fn(|l| f(w * 32 + l as u32)))
                    .collect(),
            )
        };
        let one_d = block.y == 1 && block.z == 1;
        let x = if one_d {
            Component::Affine(R32::Aff { a: 0, b: 32, c: 1 })
        } else if bx == 32 {
            Component::Affine(R32::Aff { a: 0, b: 0, c: 1 })
        } else {
            rows(&|t| t % bx)
        };
        let y = if by == 1 {
            Component::Affine(R32::uniform(0))
        } else if bx == 32 && block.z == 1 {
            Component::Affine(R32::Aff { a: 0, b: 1, c: 0 })
        } else {
            rows(&|t| (t / bx) % by)
        };
        let z = if block.z == 1 {
            Component::Affine(R32::uniform(0))
        } else {
            rows(&|t| t / (bx * by))
        };
        BlockShape {
            block,
            warps,
            exists,
            x,
            y,
            z,
        }
    }

    /// The thread index of `lane` of warp `warp`.
    pub fn thread(&self, warp: u32, lane: u32) -> Dim3 {
        let t = warp * 32 + (lane & 31);
        let (bx, by) = (self.block.x, self.block.y);
        Dim3::new(t % bx, (t / bx) % by, t / (bx * by))
    }
}
