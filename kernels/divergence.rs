//! Branch divergence (documents 002 and 000 §5.4.2).
//!
//! A branch diverges in a warp when its lanes disagree; the warp then runs both sides one after
//! the other. `vector-add` diverges only in the warp that straddles `n`; `rgb-to-gray` only in the
//! warps straddling the image's right or bottom edge (002: 31 of 160 warps for a 76×62 image in
//! 16×16 blocks). `branch-by-lane` and `branch-by-warp` run the same heavy body chosen per lane
//! (`tid % 2`, every warp diverges, half its lanes idle on each side) or per warp
//! (`(tid / 32) % 2`, no divergence).

use crate::kernels::{Outcome, data, exact_outcome};
use crate::{Block, Device, Dim3, Error, F32s, Global, LaunchConfig, Mode};

/// `i = blockIdx.x*blockDim.x + threadIdx.x; if (i < n) C[i] = A[i] + B[i];`
pub fn vector_add(b: &mut Block<'_>, a: &Global<f32>, b_in: &Global<f32>, c: &Global<f32>, n: u32) {
    let i = b.global_idx_x();
    b.if_(i.lt(n), |b| {
        let v = b.load(a, i) + b.load(b_in, i);
        b.store(c, i, v);
    });
}

/// Run `vector-add` on `n` seeded floats.
pub fn run_vector_add(dev: &Device, n: usize, block: u32, mode: Mode) -> Result<Outcome, Error> {
    let (ha, hb) = (data::unit_floats(n, 11), data::unit_floats(n, 12));
    let (a, b) = (dev.alloc_from("A", &ha), dev.alloc_from("B", &hb));
    let c = dev.alloc_zeroed::<f32>("C", n);
    let cfg = LaunchConfig::new(n.div_ceil(block as usize).max(1) as u32, block)
        .name("vector-add")
        .mode(mode);
    let start = std::time::Instant::now();
    let report = dev.launch(&cfg, |blk: &mut Block<'_>| {
        vector_add(blk, &a, &b, &c, n as u32)
    })?;
    let time = start.elapsed();
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    Ok(exact_outcome(
        &c.to_vec(),
        &want,
        vec![report],
        time,
        n as u64,
        12 * n as u64,
    ))
}

/// 002's `colorToGreyscaleConversion`: `if (col < width && row < height)` the pixel's gray value
/// `0.21 r + 0.71 g + 0.07 b` from 8-bit RGB.
pub fn rgb_to_gray(
    b: &mut Block<'_>,
    rgb: &Global<u8>,
    gray: &Global<u8>,
    width: u32,
    height: u32,
) {
    let (col, row) = (b.global_idx_x(), b.global_idx_y());
    b.if_(col.lt(width) & row.lt(height), |b| {
        let idx = row * width + col;
        let at = idx * 3;
        let r = b.load(rgb, at).to_f32();
        let g = b.load(rgb, at + 1).to_f32();
        let bl = b.load(rgb, at + 2).to_f32();
        let v = r * 0.21 + g * 0.71 + bl * 0.07;
        b.store(gray, idx, v.to_u32());
    });
}

/// The CPU reference of [`rgb_to_gray`].
pub fn rgb_to_gray_reference(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks(3)
        .map(|p| (f32::from(p[0]) * 0.21 + f32::from(p[1]) * 0.71 + f32::from(p[2]) * 0.07) as u8)
        .collect()
}

/// Run `rgb-to-gray` on a seeded `width × height` image.
pub fn run_rgb_to_gray(
    dev: &Device,
    width: u32,
    height: u32,
    block: Dim3,
    mode: Mode,
) -> Result<Outcome, Error> {
    let pixels = width as usize * height as usize;
    let host = data::bytes(3 * pixels, 3);
    let rgb = dev.alloc_from("rgbImage", &host);
    let gray = dev.alloc_zeroed::<u8>("grayImage", pixels);
    let grid = (
        width.div_ceil(block.x.max(1)),
        height.div_ceil(block.y.max(1)),
    );
    let cfg = LaunchConfig::new(grid, block)
        .name("rgb-to-gray")
        .mode(mode);
    let start = std::time::Instant::now();
    let report = dev.launch(&cfg, |b: &mut Block<'_>| {
        rgb_to_gray(b, &rgb, &gray, width, height)
    })?;
    let time = start.elapsed();
    let want = rgb_to_gray_reference(&host);
    Ok(exact_outcome(
        &gray.to_vec(),
        &want,
        vec![report],
        time,
        pixels as u64,
        4 * pixels as u64,
    ))
}

/// How the branch kernels choose a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// `tid % 2 == 0`: lanes of one warp disagree.
    ByLane,
    /// `(tid / 32) % 2 == 0`: whole warps agree.
    ByWarp,
}

/// Iterations of the heavy body.
const HEAVY_STEPS: usize = 64;

/// The heavy arithmetic body both sides run: `v = v * 0.999f + k`, 64 times.
fn heavy(x: F32s, k: f32) -> F32s {
    (0..HEAVY_STEPS).fold(x, |v, _| v * 0.999 + k)
}

/// `if (cond) a = heavy(x, 1); else b = heavy(x, 2); c[tid] = a + b;` for `tid < n`.
pub fn branch(b: &mut Block<'_>, c: &Global<f32>, n: u32, split: Split) {
    let i = b.global_idx_x();
    b.exit_if(i.ge(n));
    let cond = match split {
        Split::ByLane => (i % 2).eq(0),
        Split::ByWarp => ((i / 32) % 2).eq(0),
    };
    let x = i.to_f32();
    let (first, second) = b.if_else(
        cond,
        |_| (heavy(x, 1.0), F32s::ZERO),
        |_| (F32s::ZERO, heavy(x, 2.0)),
    );
    b.store(c, i, first + second);
}

/// The CPU reference of [`branch`].
pub fn branch_reference(n: usize, split: Split) -> Vec<f32> {
    let heavy = |x: f32, k: f32| (0..HEAVY_STEPS).fold(x, |v, _| v * 0.999 + k);
    (0..n)
        .map(|i| {
            let first = match split {
                Split::ByLane => i % 2 == 0,
                Split::ByWarp => (i / 32) % 2 == 0,
            };
            let x = i as f32;
            if first {
                heavy(x, 1.0) + 0.0
            } else {
                0.0 + heavy(x, 2.0)
            }
        })
        .collect()
}

/// Run `branch-by-lane` or `branch-by-warp` for `n` threads.
pub fn run_branch(
    dev: &Device,
    split: Split,
    n: usize,
    block: u32,
    mode: Mode,
) -> Result<Outcome, Error> {
    let c = dev.alloc_zeroed::<f32>("c", n);
    let name = match split {
        Split::ByLane => "branch-by-lane",
        Split::ByWarp => "branch-by-warp",
    };
    let cfg = LaunchConfig::new(n.div_ceil(block as usize).max(1) as u32, block)
        .name(name)
        .mode(mode);
    let start = std::time::Instant::now();
    let report = dev.launch(&cfg, |b: &mut Block<'_>| branch(b, &c, n as u32, split))?;
    let time = start.elapsed();
    Ok(exact_outcome(
        &c.to_vec(),
        &branch_reference(n, split),
        vec![report],
        time,
        n as u64,
        4 * n as u64,
    ))
}
