//! The source documents' kernels, each next to its CPU reference, and the catalogue the CLI,
//! tests and benchmarks run them from.
//!
//! One module per family: [`reduction`] (002), [`transpose`] (004), [`access`] (001: offset and
//! stride access, AoS vs SoA), [`divergence`] (002, 000 §5.4.2) and [`smem`] (004: bank
//! patterns). Every kernel is written against the public API as a CUDA programmer would write
//! it; every family has a `run` function that makes seeded input, launches, and verifies the
//! output against the reference. [`catalogue`] lists them with their parameters and defaults.

pub mod access;
pub mod divergence;
pub mod native;
pub mod reduction;
pub mod smem;
pub mod transpose;

use crate::{Device, Dim3, Error, LaunchReport, Mode};
use std::time::Duration;

/// What running a catalogue kernel gives.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Whether the output equals the CPU reference.
    pub verified: bool,
    /// A one-line account of the check (e.g. the sum and its reference, or the first mismatch).
    pub detail: String,
    /// Every launch, in order.
    pub launches: Vec<LaunchReport>,
    /// Wall-clock time of the launches.
    pub time: Duration,
    /// Elements processed (for elements/s).
    pub elements: u64,
    /// Bytes a perfect implementation moves to and from device memory (for GB/s).
    pub bytes: u64,
}

/// The families of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Sum reductions (002).
    Reduction,
    /// Matrix transposes and copies (004).
    Transpose,
    /// Offset and stride access, AoS and SoA (001).
    MemoryAccess,
    /// Branch divergence (002, 000).
    Divergence,
    /// Shared-memory bank patterns (004).
    SharedMemory,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 5] = [
        Family::Reduction,
        Family::Transpose,
        Family::MemoryAccess,
        Family::Divergence,
        Family::SharedMemory,
    ];

    /// A short title.
    pub fn title(self) -> &'static str {
        match self {
            Family::Reduction => "Reductions (002)",
            Family::Transpose => "Transposes (004)",
            Family::MemoryAccess => "Memory access (001)",
            Family::Divergence => "Divergence (002, 000)",
            Family::SharedMemory => "Shared-memory banks (004)",
        }
    }
}

/// The shared-memory access pattern of `smem-pattern`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `s[tid + c]`.
    Offset,
    /// `s[tid * c]`.
    Stride,
    /// `s[tid % c]`.
    Modulo,
}

/// Whether `smem-pattern` loads or stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmemOp {
    /// Loads, accumulated in a register.
    Load,
    /// Stores.
    Store,
}

/// Parameters of a catalogue kernel (each kernel uses some of them; see [`Entry::params`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Elements (`--n`).
    pub n: usize,
    /// Threads per block (`--block 256` or `--block 32x8`).
    pub block: Dim3,
    /// Element offset of the offset-access kernels (`--offset`).
    pub offset: u32,
    /// Columns of a matrix or image (`--width`).
    pub width: u32,
    /// Rows of a matrix or image (`--height`).
    pub height: u32,
    /// Shared-memory pattern (`--pattern`).
    pub pattern: Pattern,
    /// The pattern's constant (`--c`).
    pub c: u32,
    /// Element size of the shared-memory pattern, 4, 8 or 16 (`--elem-bytes`).
    pub elem_bytes: u32,
    /// Load or store (`--op`).
    pub op: SmemOp,
    /// Pattern accesses per thread (`--iters`).
    pub iters: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            n: 1 << 20,
            block: Dim3::new(256, 1, 1),
            offset: 0,
            width: 1024,
            height: 1024,
            pattern: Pattern::Stride,
            c: 1,
            elem_bytes: 4,
            op: SmemOp::Load,
            iters: 1000,
        }
    }
}

/// A parameter name a kernel takes (as the CLI spells it, without `--`).
pub type Param = &'static str;

/// Which kernel an [`Entry`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A reduction variant.
    Reduction(reduction::Variant),
    /// A transpose or copy variant.
    Transpose(transpose::Variant),
    /// An offset-access kernel.
    Offset(access::OffsetKind),
    /// AoS or SoA.
    Layout(access::Layout),
    /// `vector-add`.
    VectorAdd,
    /// `rgb-to-gray`.
    RgbToGray,
    /// `branch-by-lane` / `branch-by-warp`.
    Branch(divergence::Split),
    /// `smem-pattern`.
    SmemPattern,
}

/// One catalogue kernel.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The catalogue name (`reduce-sequential`).
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// Which kernel it is.
    pub kind: Kind,
    /// One line on what it does and where it comes from.
    pub summary: &'static str,
    /// The parameters it takes.
    pub params: &'static [Param],
    /// Its default parameters.
    pub defaults: Params,
    /// Registers per thread of the CUDA twin (for occupancy); an estimate.
    pub regs: u32,
}

impl Entry {
    /// Run with `params` in `mode`, verifying the output.
    pub fn run(&self, dev: &Device, p: &Params, mode: Mode) -> Result<Outcome, Error> {
        match self.kind {
            Kind::Reduction(v) => reduction::run(dev, v, p.n, p.block.x, mode),
            Kind::Transpose(v) => transpose::run(dev, v, p.width, p.height, mode),
            Kind::Offset(k) => access::run_offset(dev, k, p, mode),
            Kind::Layout(l) => access::run_layout(dev, l, p, mode),
            Kind::VectorAdd => divergence::run_vector_add(dev, p.n, p.block.x, mode),
            Kind::RgbToGray => divergence::run_rgb_to_gray(dev, p.width, p.height, p.block, mode),
            Kind::Branch(s) => divergence::run_branch(dev, s, p.n, p.block.x, mode),
            Kind::SmemPattern => smem::run(dev, p, mode),
        }
    }

    /// The memory a run with `p` in `mode` needs at its peak, in bytes, estimated before anything
    /// is allocated: the device buffers the kernel allocates, the host copies it makes and
    /// verifies against, and in [`Mode::Check`] the global-memory shadow (about 80 bytes per
    /// 4-byte word of every buffer, some 280 bytes per byte of byte buffers).
    pub fn memory_estimate(&self, p: &Params, mode: Mode) -> MemoryEstimate {
        let n = p.n as u64;
        let pixels = u64::from(p.width) * u64::from(p.height);
        // (bytes of buffers and host copies, words of 4-byte device buffers, bytes of byte
        // device buffers)
        let (data, words, byte_buffers) = match self.kind {
            Kind::Reduction(v) => {
                let partials = u64::from(v.grid(p.n, p.block.x.max(1)));
                // Host input, device input, partial sums (device and host) of each pass.
                (8 * n + 16 * partials, n + 2 * partials, 0)
            }
            // Host input, device input and output, the output read back, the reference.
            Kind::Transpose(_) => (20 * pixels, 2 * pixels, 0),
            // Two host inputs, three device buffers, the output read back, the reference.
            Kind::Offset(_) | Kind::VectorAdd => (28 * n, 3 * n, 0),
            // Points, reference, device in and out, read back (and split in two for SoA).
            Kind::Layout(access::Layout::Aos) => (40 * n, 4 * n, 0),
            Kind::Layout(access::Layout::Soa) => (56 * n, 4 * n, 0),
            // Host image, device image and gray, gray read back, reference.
            Kind::RgbToGray => (9 * pixels, 0, 4 * pixels),
            // Output, read back, reference.
            Kind::Branch(_) => (12 * n, n, 0),
            Kind::SmemPattern => (12 * u64::from(p.block.x), u64::from(p.block.x), 0),
        };
        let check = if mode == Mode::Check {
            80 * words + 280 * byte_buffers
        } else {
            0
        };
        MemoryEstimate {
            data,
            check,
            total: data + check,
        }
    }
}

/// What [`Entry::memory_estimate`] expects a run to need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Device buffers and host copies, bytes.
    pub data: u64,
    /// Check mode's shadow of global memory, bytes (0 in the other modes).
    pub check: u64,
    /// Their sum.
    pub total: u64,
}

fn entry(
    name: &'static str,
    family: Family,
    kind: Kind,
    summary: &'static str,
    params: &'static [Param],
    defaults: Params,
    regs: u32,
) -> Entry {
    Entry {
        name,
        family,
        kind,
        summary,
        params,
        defaults,
        regs,
    }
}

/// Every catalogue kernel, family by family.
pub fn catalogue() -> Vec<Entry> {
    use Family as F;
    use reduction::Variant as R;
    use transpose::Variant as T;
    let reduce = |v: R, summary, regs| {
        let defaults = Params {
            n: 1 << 22,
            ..Params::default()
        };
        entry(
            v.name(),
            F::Reduction,
            Kind::Reduction(v),
            summary,
            &["n", "block"],
            defaults,
            regs,
        )
    };
    let transpose = |v: T, summary, regs| {
        let defaults = Params {
            width: 2048,
            height: 2048,
            block: Dim3::new(transpose::TILE, transpose::BLOCK_ROWS, 1),
            ..Params::default()
        };
        entry(
            v.name(),
            F::Transpose,
            Kind::Transpose(v),
            summary,
            &["width", "height"],
            defaults,
            regs,
        )
    };
    let access = |name, kind, summary, offset| {
        let defaults = Params {
            block: Dim3::new(512, 1, 1),
            offset,
            ..Params::default()
        };
        entry(
            name,
            F::MemoryAccess,
            kind,
            summary,
            &["n", "block", "offset"],
            defaults,
            12,
        )
    };
    let one_d = |n: usize, block: u32| Params {
        n,
        block: Dim3::new(block, 1, 1),
        ..Params::default()
    };
    vec![
        reduce(
            R::Interleaved,
            "002 Fig 5.13: stride doubling, if (t % (2*stride) == 0): divergent every step",
            16,
        ),
        reduce(
            R::InterleavedStrided,
            "stride doubling, index = 2*stride*t: less divergence, bank conflicts",
            16,
        ),
        reduce(
            R::Sequential,
            "002 Fig 5.15: stride halving, if (t < stride): divergent only below 32",
            16,
        ),
        reduce(
            R::FirstAdd,
            "sequential, two elements added per thread while loading",
            16,
        ),
        reduce(
            R::UnrollWarp,
            "first add, last warp reduced with __syncwarp instead of barriers",
            16,
        ),
        reduce(
            R::Unrolled,
            "completely unrolled for a compile-time block size",
            16,
        ),
        reduce(
            R::Multi,
            "grid-stride loop, many elements per thread, then the tree",
            20,
        ),
        reduce(
            R::Shuffle,
            "grid-stride loop, warp sums by __shfl_down_sync",
            20,
        ),
        transpose(
            T::Copy,
            "004: row copy with the transpose's access pattern, the bandwidth reference",
            16,
        ),
        transpose(
            T::CopyStrided,
            "004: copy reading and writing columns (both strided)",
            16,
        ),
        transpose(
            T::Naive,
            "004: odata[x*n+y] = idata[y*n+x]: coalesced reads, strided writes",
            16,
        ),
        transpose(T::CopyShared, "004: copy through a shared tile", 18),
        transpose(
            T::Coalesced,
            "004: tile[32][32], coalesced both ways, 32-way bank conflicts",
            18,
        ),
        transpose(
            T::NoConflicts,
            "004: tile[32][33], padded: no bank conflicts",
            18,
        ),
        transpose(
            T::Diagonal,
            "004: diagonal block order on the padded tile (partition camping)",
            20,
        ),
        access(
            "read-offset",
            Kind::Offset(access::OffsetKind::Read),
            "001 readOffset: C[i] = A[i+offset] + B[i+offset]",
            11,
        ),
        access(
            "write-offset",
            Kind::Offset(access::OffsetKind::Write),
            "001 writeOffset: C[i+offset] = A[i] + B[i]",
            11,
        ),
        access(
            "read-offset-unroll4",
            Kind::Offset(access::OffsetKind::ReadUnroll4),
            "001 readOffsetUnroll4: four independent accesses per thread",
            11,
        ),
        access(
            "aos",
            Kind::Layout(access::Layout::Aos),
            "001 array of structs {x, y}: x += 10, y += 20",
            0,
        ),
        access(
            "soa",
            Kind::Layout(access::Layout::Soa),
            "001 struct of arrays: x[i] += 10, y[i] += 20",
            0,
        ),
        entry(
            "vector-add",
            F::Divergence,
            Kind::VectorAdd,
            "002: if (i < n) C[i] = A[i] + B[i]: only the last warp diverges",
            &["n", "block"],
            one_d(1003, 64),
            10,
        ),
        entry(
            "rgb-to-gray",
            F::Divergence,
            Kind::RgbToGray,
            "002: 8-bit RGB to gray, 16x16 blocks, if (col < width && row < height)",
            &["width", "height", "block"],
            Params {
                width: 76,
                height: 62,
                block: Dim3::new(16, 16, 1),
                ..Params::default()
            },
            12,
        ),
        entry(
            "branch-by-lane",
            F::Divergence,
            Kind::Branch(divergence::Split::ByLane),
            "000 5.4.2: the same heavy body chosen by tid % 2: every warp diverges",
            &["n", "block"],
            one_d(1 << 16, 256),
            12,
        ),
        entry(
            "branch-by-warp",
            F::Divergence,
            Kind::Branch(divergence::Split::ByWarp),
            "000 5.4.2: the same heavy body chosen by (tid / 32) % 2: no divergence",
            &["n", "block"],
            one_d(1 << 16, 256),
            12,
        ),
        entry(
            "smem-pattern",
            F::SharedMemory,
            Kind::SmemPattern,
            "004: iters accesses per thread at s[tid+c], s[tid*c] or s[tid%c]",
            &["block", "pattern", "c", "elem-bytes", "op", "iters"],
            Params {
                c: 2,
                ..Params::default()
            },
            14,
        ),
    ]
}

/// The catalogue entry called `name`.
pub fn find(name: &str) -> Option<Entry> {
    catalogue().into_iter().find(|e| e.name == name)
}

/// Seeded input data, the same on every run.
pub mod data {
    use rand::{RngExt, SeedableRng, rngs::SmallRng};

    /// `n` floats in `[0, 1)`.
    pub fn unit_floats(n: usize, seed: u64) -> Vec<f32> {
        let mut rng = SmallRng::seed_from_u64(seed);
        (0..n).map(|_| rng.random::<f32>()).collect()
    }

    /// `n` floats in `[-1, 1)`.
    pub fn signed_floats(n: usize, seed: u64) -> Vec<f32> {
        let mut rng = SmallRng::seed_from_u64(seed);
        (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
    }

    /// `n` random bytes.
    pub fn bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut rng = SmallRng::seed_from_u64(seed);
        (0..n).map(|_| rng.random::<u8>()).collect()
    }
}

/// The first index where `got` and `want` differ, as a message, or `None`.
pub fn first_mismatch<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} elements, expected {}", got.len(), want.len()));
    }
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|i| format!("element {i}: got {:?}, expected {:?}", got[i], want[i]))
}

/// An [`Outcome`] for an exact comparison of `got` with `want`.
pub(crate) fn exact_outcome<T: PartialEq + std::fmt::Debug>(
    got: &[T],
    want: &[T],
    launches: Vec<LaunchReport>,
    time: Duration,
    elements: u64,
    bytes: u64,
) -> Outcome {
    let mismatch = first_mismatch(got, want);
    Outcome {
        verified: mismatch.is_none(),
        detail: mismatch.unwrap_or_else(|| format!("{} elements match the reference", want.len())),
        launches,
        time,
        elements,
        bytes,
    }
}
