//! Why PoCL led on the naive transpose: the same 32×32-tile transpose in five memory orders,
//! native Rust, timed on this CPU (median of 9; `cargo run --release --example
//! transpose_orders -- 4096`).
//!
//! The naive kernel (`transpose_naive` in `cuda/kernels.cu`: 32 × 8 threads per tile, each
//! thread moving 4 elements `j` rows apart) has one store order per execution strategy:
//! * warp order — one warp instruction at a time (warpsim before its queue): for each row
//!   `ly` and each `j`, the 32 lanes `x` store one element into each of 32 output rows;
//! * warp order, queued — warpsim's compiled tier now (`src/cuda/jit/translate/queue.rs`):
//!   a warp's four rows loaded as they come, their stores then written thread by thread;
//! * work-item order — PoCL's (read from the machine code it caches for the kernel): each
//!   work-item runs its whole body before the next, so for each `ly` and each `x`, the four
//!   `j` stores land in one output row together;
//! * column order — each output row of the tile whole, its 32 loads strided;
//! * the native baseline of `warpsim bench` (`kernels::native::transpose`: rows read whole,
//!   each element stored to its output row).

use rayon::prelude::*;
use std::time::Instant;
use warpsim::kernels::native;

/// Tile edge.
const T: usize = 32;

/// The order a tile's elements are moved in (see the module's doc).
#[derive(Clone, Copy)]
enum Order {
    Warp,
    Queued,
    WorkItem,
    Column,
}

/// Transposes `inp` (`n` × `n`) into `out` a tile at a time in `order`, each band of `T`
/// output rows in parallel.
fn by_tiles(inp: &[f32], out: &mut [f32], n: usize, order: Order) {
    out.par_chunks_mut(T * n)
        .enumerate()
        .for_each(|(bx, band)| {
            for by in 0..n / T {
                let mut put = |x: usize, y: usize| {
                    let y = by * T + y;
                    band[x * n + y] = inp[y * n + bx * T + x];
                };
                match order {
                    Order::Warp => {
                        for ly in 0..8 {
                            for j in (0..T).step_by(8) {
                                for x in 0..T {
                                    put(x, ly + j);
                                }
                            }
                        }
                    }
                    Order::WorkItem => {
                        for ly in 0..8 {
                            for x in 0..T {
                                for j in (0..T).step_by(8) {
                                    put(x, ly + j);
                                }
                            }
                        }
                    }
                    Order::Queued => {
                        let row0 = by * T;
                        for ly in 0..8 {
                            let mut q = [[0f32; 32]; 4];
                            for (k, j) in (0..T).step_by(8).enumerate() {
                                let y = row0 + ly + j;
                                q[k].copy_from_slice(&inp[y * n + bx * T..y * n + bx * T + 32]);
                                // A real queue: not fused into the work-item order.
                                std::hint::black_box(&mut q[k]);
                            }
                            for x in 0..T {
                                for (k, j) in (0..T).step_by(8).enumerate() {
                                    band[x * n + row0 + ly + j] = q[k][x];
                                }
                            }
                        }
                    }
                    Order::Column => {
                        for x in 0..T {
                            for y in 0..T {
                                put(x, y);
                            }
                        }
                    }
                }
            }
        });
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(4096, |s| s.parse().expect("a size, a multiple of 32"));
    assert!(
        n > 0 && n.is_multiple_of(T),
        "the size must be a multiple of {T}"
    );
    let inp: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let mut out = vec![0f32; n * n];
    type Run = Box<dyn Fn(&[f32], &mut [f32])>;
    let tiles = |order: Order| -> Run { Box::new(move |i, o| by_tiles(i, o, n, order)) };
    let runs: [(&str, Run); 5] = [
        ("warp order", tiles(Order::Warp)),
        ("warp order, queued (warpsim)", tiles(Order::Queued)),
        ("work-item order (PoCL)", tiles(Order::WorkItem)),
        ("column order", tiles(Order::Column)),
        (
            "native baseline",
            Box::new(move |i, o| native::transpose(i, o, n, n)),
        ),
    ];
    let mut ms = vec![Vec::new(); runs.len()];
    for _ in 0..9 {
        for (times, (_, run)) in ms.iter_mut().zip(&runs) {
            out.fill(0.0);
            let start = Instant::now();
            run(&inp, &mut out);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(out[5 * n + 7], inp[7 * n + 5], "not a transpose");
        }
    }
    println!(
        "{n}×{n} floats, {} threads, median of 9:",
        rayon::current_num_threads()
    );
    for (times, (name, _)) in ms.iter_mut().zip(&runs) {
        times.sort_by(f64::total_cmp);
        println!("  {name:30} {:7.2} ms", times[times.len() / 2]);
    }
}
