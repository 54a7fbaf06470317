//! Native Rust implementations of the catalogue's jobs: the baselines warpsim's speed is
//! measured against (`warpsim bench`, `benches/`).
//!
//! Each is what a Rust programmer would write for the job with rayon, not a port of the CUDA
//! kernel: a parallel iterator sum, a cache-blocked parallel transpose, a parallel copy.

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
    }
}
