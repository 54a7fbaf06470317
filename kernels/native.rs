//! Native Rust implementations of the catalogue's jobs: the baselines warpsim's speed is
//! measured against (`warpsim bench`, `benches/`).
//!
//! Each is what a Rust programmer would write for the job with rayon, not a port of the CUDA
//! kernel: a parallel iterator sum, a cache-blocked parallel transpose, a parallel copy.
//!
//! Two more walk memory in the order warpsim's executor does for a kernel ([`sum_in_warp_order`],
//! [`copy_in_tile_order`]): plain Rust with no simulation, they show what the GPU's access
//! order alone costs on a CPU, apart from the cost of simulating the instructions.

use rayon::prelude::*;

/// The sum of `x` (`x.par_iter().sum()`).
pub fn sum(x: &[f32]) -> f32 {
    x.par_iter().sum()
}

/// Edge of the square blocks the transpose moves at a time (fits L1 twice over).
const BLOCK: usize = 32;

/// `out = transpose(input)` for `height` rows of `width`, blocked: each task transposes a band
/// of `BLOCK` output rows, block by block.
pub fn transpose(input: &[f32], out: &mut [f32], width: usize, height: usize) {
    assert_eq!(input.len(), width * height);
    assert_eq!(out.len(), width * height);
    out.par_chunks_mut(BLOCK * height)
        .enumerate()
        .for_each(|(band, rows)| {
            let x0 = band * BLOCK;
            let xs = (width - x0).min(BLOCK);
            for y0 in (0..height).step_by(BLOCK) {
                for y in y0..(y0 + BLOCK).min(height) {
                    let src = &input[y * width + x0..y * width + x0 + xs];
                    for (dx, &v) in src.iter().enumerate() {
                        rows[dx * height + y] = v;
                    }
                }
            }
        });
}

/// `out = input`, in parallel chunks.
pub fn copy(input: &[f32], out: &mut [f32]) {
    out.par_chunks_mut(1 << 16)
        .zip(input.par_chunks(1 << 16))
        .for_each(|(o, i)| o.copy_from_slice(i));
}

/// The grid-stride sum (`for (i = blockIdx.x*blockDim.x + t; i < n; i += blockDim.x*gridDim.x)`)
/// in the order warpsim runs it: blocks in contiguous parallel chunks, and in each block one
/// warp after another, each warp walking every `grid * block`-th run of 32 floats to the end.
/// A GPU runs thousands of threads at once, so its loads sweep the array front to back; here a
/// warp's consecutive loads lie `4 * grid * block` bytes apart.
pub fn sum_in_warp_order(x: &[f32], grid: usize, block: usize) -> f32 {
    sum_in_warp_order_by(x, grid, block, |v| *v)
}

/// [`sum_in_warp_order`] over any storage, reading each element with `value`: e.g. relaxed
/// atomic loads of `AtomicU32` words, the loads warpsim makes.
pub fn sum_in_warp_order_by<T: Sync>(
    x: &[T],
    grid: usize,
    block: usize,
    value: impl Fn(&T) -> f32 + Sync,
) -> f32 {
    let step = grid * block;
    (0..grid)
        .into_par_iter()
        .map(|b| {
            let mut total = 0.0;
            for warp in (0..block).step_by(32) {
                let mut lanes = [0.0f32; 32];
                for start in (b * block + warp..x.len()).step_by(step) {
                    let run = &x[start..(start + 32).min(x.len())];
                    for (acc, v) in lanes.iter_mut().zip(run) {
                        *acc += value(v);
                    }
                }
                total += lanes.iter().sum::<f32>();
            }
            total
        })
        .sum()
}

/// The tiled copy (`TILE_DIM` 32, `BLOCK_ROWS` 8) in the order warpsim runs it: 32 x 32 tiles in
/// `blockIdx` order, bands of tiles in parallel, and in each tile the block's 8 warps one after
/// another, warp `w` copying rows `w, w + 8, w + 16, w + 24`. Every tile touches 32 rows, as on
/// the GPU, where the other blocks' rows are in flight at the same time.
pub fn copy_in_tile_order(input: &[f32], out: &mut [f32], width: usize, height: usize) {
    assert_eq!(input.len(), width * height);
    assert_eq!(out.len(), width * height);
    out.par_chunks_mut(BLOCK * width)
        .enumerate()
        .for_each(|(band, rows)| {
            let y0 = band * BLOCK;
            for x0 in (0..width).step_by(BLOCK) {
                let xs = (width - x0).min(BLOCK);
                for warp in 0..8 {
                    for y in (warp..BLOCK).step_by(8).filter(|y| y0 + y < height) {
                        let src = (y0 + y) * width + x0;
                        rows[y * width + x0..][..xs].copy_from_slice(&input[src..src + xs]);
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_compute_the_job() {
        let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        assert_eq!(sum(&x), 499_500.0);
        let (w, h) = (37, 27);
        let m: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let mut t = vec![0.0; w * h];
        transpose(&m, &mut t, w, h);
        assert_eq!(t, crate::kernels::transpose::reference(&m, w, h));
        let mut c = vec![0.0; w * h];
        copy(&m, &mut c);
        assert_eq!(c, m);
        let mut c = vec![0.0; w * h];
        copy_in_tile_order(&m, &mut c, w, h);
        assert_eq!(c, m);
        for (grid, block) in [(1, 32), (3, 64), (8, 256)] {
            assert_eq!(sum_in_warp_order(&x, grid, block), 499_500.0);
            let words: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
            let by_bits = sum_in_warp_order_by(&words, grid, block, |w| f32::from_bits(*w));
            assert_eq!(by_bits, 499_500.0);
        }
    }
}
