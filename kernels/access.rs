//! Offset access and data layout (document 001).
//!
//! `readOffset` shifts every load by `offset` elements: at 0 or a multiple of 32 a warp's 128
//! bytes fill four 32-byte sectors (100 %); at 11 they straddle five sectors (80 %) and, on
//! Fermi's 128-byte L1 lines, two lines (50 %). `writeOffset` does the same to stores, and
//! `readOffsetUnroll4` issues four independent accesses per thread (001 prints it with `+ B[k]`
//! missing on the first line; here the sum is complete). The layout kernels add 10 to `x` and 20
//! to `y` of each point: as an array of `{x, y}` structs each field access touches every other
//! float (50 %), as two arrays every access is dense (100 %).

use crate::kernels::{Outcome, Params, data, exact_outcome};
use crate::{Block, Device, Error, Global, LaunchConfig, Mode};

/// Which offset kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetKind {
    /// `readOffset`.
    Read,
    /// `writeOffset`.
    Write,
    /// `readOffsetUnroll4`.
    ReadUnroll4,
}

/// `k = i + offset; if (k < n) C[i] = A[k] + B[k];`
pub fn read_offset(
    b: &mut Block<'_>,
    a: &Global<f32>,
    b_in: &Global<f32>,
    c: &Global<f32>,
    n: u32,
    offset: u32,
) {
    let i = b.global_idx_x();
    let k = i + offset;
    b.if_(k.lt(n), |b| {
        let v = b.load(a, k) + b.load(b_in, k);
        b.store(c, i, v);
    });
}

/// `k = i + offset; if (k < n) C[k] = A[i] + B[i];`
pub fn write_offset(
    b: &mut Block<'_>,
    a: &Global<f32>,
    b_in: &Global<f32>,
    c: &Global<f32>,
    n: u32,
    offset: u32,
) {
    let i = b.global_idx_x();
    let k = i + offset;
    b.if_(k.lt(n), |b| {
        let v = b.load(a, i) + b.load(b_in, i);
        b.store(c, k, v);
    });
}

/// `i = blockIdx.x*blockDim.x*4 + t; k = i + offset; if (k + 3*blockDim.x < n)` four sums.
pub fn read_offset_unroll4(
    b: &mut Block<'_>,
    a: &Global<f32>,
    b_in: &Global<f32>,
    c: &Global<f32>,
    n: u32,
    offset: u32,
) {
    let bd = b.block_dim().x;
    let i = b.thread_idx().x + b.block_idx().x * bd * 4;
    let k = i + offset;
    b.if_((k + 3 * bd).lt(n), |b| {
        for u in 0..4 {
            let v = b.load(a, k + u * bd) + b.load(b_in, k + u * bd);
            b.store(c, i + u * bd, v);
        }
    });
}

/// The CPU reference of the offset kernels (`c` starts zeroed).
pub fn offset_reference(
    kind: OffsetKind,
    a: &[f32],
    b: &[f32],
    offset: usize,
    block: usize,
) -> Vec<f32> {
    let n = a.len();
    let mut c = vec![0.0; n];
    match kind {
        OffsetKind::Read => {
            for i in 0..n.saturating_sub(offset) {
                c[i] = a[i + offset] + b[i + offset];
            }
        }
        OffsetKind::Write => {
            for i in 0..n.saturating_sub(offset) {
                c[i + offset] = a[i] + b[i];
            }
        }
        OffsetKind::ReadUnroll4 => {
            for i in (0..n.div_ceil(4 * block))
                .flat_map(|blk| (0..block).map(move |t| blk * 4 * block + t))
            {
                let k = i + offset;
                if k + 3 * block < n {
                    for u in 0..4 {
                        c[i + u * block] = a[k + u * block] + b[k + u * block];
                    }
                }
            }
        }
    }
    c
}

/// Run an offset kernel on `n` seeded floats.
pub fn run_offset(
    dev: &Device,
    kind: OffsetKind,
    p: &Params,
    mode: Mode,
) -> Result<Outcome, Error> {
    let (n, block, offset) = (p.n, p.block.x, p.offset);
    let ha = data::unit_floats(n, 1);
    let hb = data::unit_floats(n, 2);
    let (a, b) = (dev.alloc_from("A", &ha), dev.alloc_from("B", &hb));
    let c = dev.alloc_zeroed::<f32>("C", n);
    let per_block = if kind == OffsetKind::ReadUnroll4 {
        4 * block
    } else {
        block
    };
    let grid = (n.div_ceil(per_block as usize).max(1)) as u32;
    let name = match kind {
        OffsetKind::Read => "read-offset",
        OffsetKind::Write => "write-offset",
        OffsetKind::ReadUnroll4 => "read-offset-unroll4",
    };
    let cfg = LaunchConfig::new(grid, block).name(name).mode(mode);
    let n32 = n as u32;
    let start = std::time::Instant::now();
    let report = match kind {
        OffsetKind::Read => dev.launch(&cfg, |blk: &mut Block<'_>| {
            read_offset(blk, &a, &b, &c, n32, offset)
        }),
        OffsetKind::Write => dev.launch(&cfg, |blk: &mut Block<'_>| {
            write_offset(blk, &a, &b, &c, n32, offset)
        }),
        OffsetKind::ReadUnroll4 => dev.launch(&cfg, |blk: &mut Block<'_>| {
            read_offset_unroll4(blk, &a, &b, &c, n32, offset)
        }),
    }?;
    let time = start.elapsed();
    let want = offset_reference(kind, &ha, &hb, offset as usize, block as usize);
    Ok(exact_outcome(
        &c.to_vec(),
        &want,
        vec![report],
        time,
        n as u64,
        12 * n as u64,
    ))
}

/// Array of structs or struct of arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `struct {float x; float y;} data[n]`: `x` of point `i` at float `2i`, `y` at `2i + 1`.
    Aos,
    /// `float x[n], y[n]`.
    Soa,
}

/// `tmp = data[i]; tmp.x += 10; tmp.y += 20; result[i] = tmp;` with the struct's fields read
/// and written one float at a time, as nvcc compiles it (the struct is only 4-byte aligned).
pub fn aos(b: &mut Block<'_>, data: &Global<f32>, result: &Global<f32>, n: u32) {
    let i = b.global_idx_x();
    b.if_(i.lt(n), |b| {
        let (xi, yi) = (i * 2, i * 2 + 1);
        let x = b.load(data, xi) + 10.0;
        let y = b.load(data, yi) + 20.0;
        b.store(result, xi, x);
        b.store(result, yi, y);
    });
}

/// `rx[i] = x[i] + 10; ry[i] = y[i] + 20;`
pub fn soa(
    b: &mut Block<'_>,
    x: &Global<f32>,
    y: &Global<f32>,
    rx: &Global<f32>,
    ry: &Global<f32>,
    n: u32,
) {
    let i = b.global_idx_x();
    b.if_(i.lt(n), |b| {
        let vx = b.load(x, i) + 10.0;
        let vy = b.load(y, i) + 20.0;
        b.store(rx, i, vx);
        b.store(ry, i, vy);
    });
}

/// Run a layout kernel on `n` seeded points; verified as the interleaved `[x0, y0, x1, …]`.
pub fn run_layout(dev: &Device, layout: Layout, p: &Params, mode: Mode) -> Result<Outcome, Error> {
    let (n, block) = (p.n, p.block.x);
    let points = data::unit_floats(2 * n, 7);
    let want: Vec<f32> = points
        .chunks(2)
        .flat_map(|xy| [xy[0] + 10.0, xy[1] + 20.0])
        .collect();
    let grid = (n.div_ceil(block as usize).max(1)) as u32;
    let n32 = n as u32;
    let (report, got) = match layout {
        Layout::Aos => {
            let data = dev.alloc_from("data", &points);
            let result = dev.alloc_zeroed::<f32>("result", 2 * n);
            let cfg = LaunchConfig::new(grid, block).name("aos").mode(mode);
            let r = dev.launch(&cfg, |b: &mut Block<'_>| aos(b, &data, &result, n32))?;
            (r, result.to_vec())
        }
        Layout::Soa => {
            let hx: Vec<f32> = points.iter().step_by(2).copied().collect();
            let hy: Vec<f32> = points.iter().skip(1).step_by(2).copied().collect();
            let (x, y) = (dev.alloc_from("x", &hx), dev.alloc_from("y", &hy));
            let (rx, ry) = (
                dev.alloc_zeroed::<f32>("rx", n),
                dev.alloc_zeroed::<f32>("ry", n),
            );
            let cfg = LaunchConfig::new(grid, block).name("soa").mode(mode);
            let r = dev.launch(&cfg, |b: &mut Block<'_>| soa(b, &x, &y, &rx, &ry, n32))?;
            let got = rx
                .to_vec()
                .into_iter()
                .zip(ry.to_vec())
                .flat_map(|(a, b)| [a, b])
                .collect();
            (r, got)
        }
    };
    // The launch alone: allocating and copying the points is host work.
    let time = report.elapsed;
    Ok(exact_outcome(
        &got,
        &want,
        vec![report],
        time,
        n as u64,
        16 * n as u64,
    ))
}
