//! Matrix transposes and copies (document 004, after NVIDIA's "Optimizing Matrix Transpose").
//!
//! The input is `height` rows of `width` floats, row-major; a transpose writes `width` rows of
//! `height`. Tiles are 32×32, blocks 32×8, so each thread handles four rows of a tile; every
//! access is guarded, so any size works. The copies are the bandwidth references: `copy` moves
//! rows with the transpose's block shape, `copy-strided` reads and writes columns. The transposes
//! go from `naive` (coalesced reads, column writes) to a shared tile read by column (`coalesced`,
//! a 32-way bank conflict), the padded tile (`no-conflicts`) and diagonal block order.

use crate::kernels::{Outcome, data, exact_outcome};
use crate::{Block, Device, Error, F32s, Global, LaunchConfig, LaunchReport, Mode, Shared, U32s};

/// Tile edge.
pub const TILE: u32 = 32;
/// Rows of a block (each thread handles `TILE / BLOCK_ROWS` of them).
pub const BLOCK_ROWS: u32 = 8;

/// The transpose variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Row copy.
    Copy,
    /// Column copy (reads and writes strided).
    CopyStrided,
    /// Direct transpose.
    Naive,
    /// Copy through a shared tile.
    CopyShared,
    /// Transpose through a `[32][32]` tile.
    Coalesced,
    /// Transpose through a `[32][33]` tile.
    NoConflicts,
    /// Padded tile, diagonal block order.
    Diagonal,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 7] = [
        Variant::Copy,
        Variant::CopyStrided,
        Variant::Naive,
        Variant::CopyShared,
        Variant::Coalesced,
        Variant::NoConflicts,
        Variant::Diagonal,
    ];

    /// The catalogue name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Copy => "transpose-copy",
            Variant::CopyStrided => "transpose-copy-strided",
            Variant::Naive => "transpose-naive",
            Variant::CopyShared => "transpose-copy-shared",
            Variant::Coalesced => "transpose-coalesced",
            Variant::NoConflicts => "transpose-no-conflicts",
            Variant::Diagonal => "transpose-diagonal",
        }
    }

    /// Whether the output is the transpose (else a copy of the input).
    pub fn transposes(self) -> bool {
        !matches!(
            self,
            Variant::Copy | Variant::CopyStrided | Variant::CopyShared
        )
    }
}

/// The matrix shape a kernel sees.
#[derive(Clone, Copy)]
struct Shape {
    width: u32,
    height: u32,
}

/// `for (j = 0; j < TILE; j += BLOCK_ROWS) if (x < cols && y + j < rows) body(y + j)`.
fn for_tile_rows(
    b: &mut Block<'_>,
    x: U32s,
    y: U32s,
    cols: u32,
    rows: u32,
    body: impl Fn(&mut Block<'_>, U32s, u32),
) {
    for j in (0..TILE).step_by(BLOCK_ROWS as usize) {
        let yj = y + j;
        b.if_(x.lt(cols) & yj.lt(rows), |b| body(b, yj, j));
    }
}

/// This block's tile origin: `(blockIdx.x * TILE, blockIdx.y * TILE)`.
fn tile_origin(b: &Block<'_>) -> (u32, u32) {
    let idx = b.block_idx();
    (idx.x * TILE, idx.y * TILE)
}

/// `odata[y*width + x] = idata[y*width + x]`, four rows per thread.
pub fn copy(b: &mut Block<'_>, input: &Global<f32>, output: &Global<f32>, width: u32, height: u32) {
    let (bx, by) = tile_origin(b);
    let t = b.thread_idx();
    let (x, y) = (t.x + bx, t.y + by);
    for_tile_rows(b, x, y, width, height, |b, yj, _| {
        let i = yj * width + x;
        let v = b.load(input, i);
        b.store(output, i, v);
    });
}

/// `odata[x*height + y] = idata[x*height + y]`: the same copy, walking columns.
pub fn copy_strided(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
) {
    let (bx, by) = tile_origin(b);
    let t = b.thread_idx();
    let (x, y) = (t.x + bx, t.y + by);
    for_tile_rows(b, x, y, width, height, |b, yj, _| {
        let i = x * height + yj;
        let v = b.load(input, i);
        b.store(output, i, v);
    });
}

/// `odata[x*height + y] = idata[y*width + x]`.
pub fn naive(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
) {
    let (bx, by) = tile_origin(b);
    let t = b.thread_idx();
    let (x, y) = (t.x + bx, t.y + by);
    for_tile_rows(b, x, y, width, height, |b, yj, _| {
        let v = b.load(input, yj * width + x);
        b.store(output, x * height + yj, v);
    });
}

/// Copy through a tile: `tile[ty+j][tx] = idata[...]; sync; odata[...] = tile[ty+j][tx]`.
pub fn copy_shared(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
) {
    let tile = b.shared::<f32>((TILE * TILE) as usize);
    let (bx, by) = tile_origin(b);
    let t = b.thread_idx();
    let (x, y) = (t.x + bx, t.y + by);
    for_tile_rows(b, x, y, width, height, |b, yj, j| {
        let v = b.load(input, yj * width + x);
        b.store(&tile, (t.y + j) * TILE + t.x, v);
    });
    b.sync_threads();
    for_tile_rows(b, x, y, width, height, |b, yj, j| {
        let v = b.load(&tile, (t.y + j) * TILE + t.x);
        b.store(output, yj * width + x, v);
    });
}

/// Transpose the tile at block position `(bx, by)` through `tile` of row pitch `pitch`:
/// rows read coalesced into `tile[ty+j][tx]`, written coalesced from `tile[tx][ty+j]`.
fn tiled(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    s: Shape,
    tile: Shared<f32>,
    pitch: u32,
    (bx, by): (u32, u32),
) {
    let t = b.thread_idx();
    let (x, y) = (t.x + bx * TILE, t.y + by * TILE);
    for_tile_rows(b, x, y, s.width, s.height, |b, yj, j| {
        let v = b.load(input, yj * s.width + x);
        b.store(&tile, (t.y + j) * pitch + t.x, v);
    });
    b.sync_threads();
    // The output tile: column block `by` becomes row block `by` of the transpose.
    let (x2, y2) = (t.x + by * TILE, t.y + bx * TILE);
    for_tile_rows(b, x2, y2, s.height, s.width, |b, yj, j| {
        let v: F32s = b.load(&tile, t.x * pitch + t.y + j);
        b.store(output, yj * s.height + x2, v);
    });
}

/// `tile[32][32]`: the column read is a 32-way bank conflict.
pub fn coalesced(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
) {
    let tile = b.shared::<f32>((TILE * TILE) as usize);
    let idx = b.block_idx();
    let shape = Shape { width, height };
    tiled(b, input, output, shape, tile, TILE, (idx.x, idx.y));
}

/// `tile[32][33]`: the padding puts each column in 32 different banks.
pub fn no_conflicts(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
) {
    let tile = b.shared::<f32>((TILE * (TILE + 1)) as usize);
    let idx = b.block_idx();
    let shape = Shape { width, height };
    tiled(b, input, output, shape, tile, TILE + 1, (idx.x, idx.y));
}

/// The padded tile with blocks renumbered diagonally, so concurrent blocks spread over memory
/// partitions: `bid = bx + gridDim.x*by; by' = bid % gridDim.y; bx' = (bid/gridDim.y + by') % gridDim.x`.
pub fn diagonal(
    b: &mut Block<'_>,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
) {
    let tile = b.shared::<f32>((TILE * (TILE + 1)) as usize);
    let (idx, g) = (b.block_idx(), b.grid_dim());
    let bid = idx.x + g.x * idx.y;
    let by = bid % g.y;
    let bx = (bid / g.y + by) % g.x;
    let shape = Shape { width, height };
    tiled(b, input, output, shape, tile, TILE + 1, (bx, by));
}

/// The CPU reference: the transpose of `height` rows of `width`.
pub fn reference(input: &[f32], width: usize, height: usize) -> Vec<f32> {
    let mut out = vec![0.0; input.len()];
    for y in 0..height {
        for x in 0..width {
            out[x * height + y] = input[y * width + x];
        }
    }
    out
}

/// Launch `variant` on `input` (`height` rows of `width`) into `output`.
pub fn launch(
    dev: &Device,
    variant: Variant,
    input: &Global<f32>,
    output: &Global<f32>,
    width: u32,
    height: u32,
    mode: Mode,
) -> Result<LaunchReport, Error> {
    let grid = (width.div_ceil(TILE), height.div_ceil(TILE));
    let cfg = LaunchConfig::new(grid, (TILE, BLOCK_ROWS))
        .name(variant.name())
        .mode(mode);
    let (i, o) = (input, output);
    match variant {
        Variant::Copy => dev.launch(&cfg, |b: &mut Block<'_>| copy(b, i, o, width, height)),
        Variant::CopyStrided => dev.launch(&cfg, |b: &mut Block<'_>| {
            copy_strided(b, i, o, width, height)
        }),
        Variant::Naive => dev.launch(&cfg, |b: &mut Block<'_>| naive(b, i, o, width, height)),
        Variant::CopyShared => dev.launch(&cfg, |b: &mut Block<'_>| {
            copy_shared(b, i, o, width, height)
        }),
        Variant::Coalesced => {
            dev.launch(&cfg, |b: &mut Block<'_>| coalesced(b, i, o, width, height))
        }
        Variant::NoConflicts => dev.launch(&cfg, |b: &mut Block<'_>| {
            no_conflicts(b, i, o, width, height)
        }),
        Variant::Diagonal => dev.launch(&cfg, |b: &mut Block<'_>| diagonal(b, i, o, width, height)),
    }
}

/// Run `variant` on a seeded `height × width` matrix and verify it exactly.
pub fn run(
    dev: &Device,
    variant: Variant,
    width: u32,
    height: u32,
    mode: Mode,
) -> Result<Outcome, Error> {
    let n = width as usize * height as usize;
    let host = data::unit_floats(n, 4004);
    let input = dev.alloc_from("idata", &host);
    let output = dev.alloc_zeroed::<f32>("odata", n);
    let start = std::time::Instant::now();
    let report = launch(dev, variant, &input, &output, width, height, mode)?;
    let time = start.elapsed();
    let want = if variant.transposes() {
        reference(&host, width as usize, height as usize)
    } else {
        host
    };
    Ok(exact_outcome(
        &output.to_vec(),
        &want,
        vec![report],
        time,
        n as u64,
        8 * n as u64,
    ))
}

/// A matrix size: `(width, height)`.
pub type Size = (u32, u32);

/// Sizes every transpose is verified at: a single element, one tile, tile ± 1, a prime,
/// non-square shapes, and a large square.
pub const EDGE_SIZES: [(u32, u32); 8] = [
    (1, 1),
    (32, 32),
    (31, 33),
    (33, 31),
    (97, 97),
    (64, 200),
    (200, 64),
    (1024, 1024),
];

/// Verify a transpose kernel at each `(width, height)`: `transpose(dev, input, output, width,
/// height)` must write the transpose of `input` into `output` and return its launches.
///
/// ```
/// use warpsim::kernels::transpose::{self, Variant};
/// use warpsim::{Device, Mode};
///
/// let dev = Device::default();
/// let results = transpose::verify(&dev, &[(33, 31), (64, 64)], |dev, i, o, w, h| {
///     // Your kernel here; this one is the catalogue's `transpose-no-conflicts`.
///     Ok(vec![transpose::launch(dev, Variant::NoConflicts, i, o, w, h, Mode::Count)?])
/// })?;
/// for (size, outcome) in &results {
///     assert!(outcome.verified, "{size:?}: {}", outcome.detail);
///     assert_eq!(outcome.launches[0].metrics().unwrap().shared_ld_bank_conflicts, 0);
/// }
/// # Ok::<(), warpsim::Error>(())
/// ```
pub fn verify<F>(
    dev: &Device,
    sizes: &[(u32, u32)],
    mut transpose: F,
) -> Result<Vec<(Size, Outcome)>, Error>
where
    F: FnMut(&Device, &Global<f32>, &Global<f32>, u32, u32) -> Result<Vec<LaunchReport>, Error>,
{
    sizes
        .iter()
        .map(|&(width, height)| {
            let n = width as usize * height as usize;
            let host = data::signed_floats(n, n as u64);
            let input = dev.alloc_from("idata", &host);
            let output = dev.alloc_zeroed::<f32>("odata", n);
            let start = std::time::Instant::now();
            let launches = transpose(dev, &input, &output, width, height)?;
            let want = reference(&host, width as usize, height as usize);
            let outcome = exact_outcome(
                &output.to_vec(),
                &want,
                launches,
                start.elapsed(),
                n as u64,
                8 * n as u64,
            );
            Ok(((width, height), outcome))
        })
        .collect()
}
