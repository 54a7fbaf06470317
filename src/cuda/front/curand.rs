//! The data behind warpsim's `curand_kernel.h` (`runtime/include/`): XORWOW's jump-ahead
//! matrices, which the header declares as `__device__ unsigned int __warpsim_xorwow_jump[]`
//! without an initializer and the lowering fills from here.
//!
//! XORWOW's xorshift part is linear over GF(2) on its five state words (160 bits): one draw is
//! a 160 × 160 bit matrix M, and `n` draws are M^n. `curand_init` and `skipahead` jump by
//! multiplying the state by the powers M^(2^k) of the set bits of `n` (offsets: k < 64;
//! subsequences of 2^67 draws: 67 ≤ k < 131), as cuRAND does with its precomputed tables. The
//! matrices are computed here from the generator's definition, by squaring, once per process.

use std::sync::OnceLock;

/// The name the header gives the table.
pub const XORWOW_JUMP: &str = "__warpsim_xorwow_jump";

/// Matrices in the table: M^(2^k) for k < 131.
const POWERS: usize = 131;

/// A linear map of the five state words: row `r` is the image of bit `r % 32` of word `r / 32`.
type Matrix = Vec<[u32; 5]>;

/// One draw's effect on the state words (the `d` counter is not part of the linear map).
fn step(v: [u32; 5]) -> [u32; 5] {
    let t = v[0] ^ (v[0] >> 2);
    [
        v[1],
        v[2],
        v[3],
        v[4],
        (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1)),
    ]
}

/// `v` times `m`: the XOR of the rows of `v`'s set bits.
fn apply(m: &Matrix, v: [u32; 5]) -> [u32; 5] {
    let mut r = [0u32; 5];
    for (i, &word) in v.iter().enumerate() {
        for j in 0..32 {
            if word >> j & 1 == 1 {
                for (x, y) in r.iter_mut().zip(&m[i * 32 + j]) {
                    *x ^= y;
                }
            }
        }
    }
    r
}

/// The table's bytes, as the header lays it out: matrix `k`'s row `r` at `u32` index
/// `800 k + 5 r`.
fn table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m: Matrix = (0..160)
            .map(|r| {
                let mut e = [0u32; 5];
                e[r / 32] = 1 << (r % 32);
                step(e)
            })
            .collect();
        let mut bytes = Vec::with_capacity(POWERS * 160 * 5 * 4);
        for _ in 0..POWERS {
            bytes.extend(m.iter().flatten().flat_map(|w| w.to_le_bytes()));
            // M^(2^(k+1)) = M^(2^k) · M^(2^k).
            m = m.iter().map(|&row| apply(&m, row)).collect();
        }
        bytes
    })
}

/// The initial bytes of the library variable `name`, if it is one whose contents warpsim
/// computes.
pub fn global_init(name: &str) -> Option<&'static [u8]> {
    (name == XORWOW_JUMP).then(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(k: usize) -> Matrix {
        let t = table();
        (0..160)
            .map(|r| {
                std::array::from_fn(|w| {
                    let at = (k * 800 + r * 5 + w) * 4;
                    u32::from_le_bytes(t[at..at + 4].try_into().expect("4 bytes"))
                })
            })
            .collect()
    }

    #[test]
    fn powers_jump_as_far_as_stepping_does() {
        let start = [123456789, 362436069, 521288629, 88675123, 5783321];
        let mut v = start;
        for n in 1..=300u32 {
            v = step(v);
            // n draws: the matrices of n's set bits, in any order (powers of M commute).
            let jumped = (0..9)
                .filter(|k| n >> k & 1 == 1)
                .fold(start, |s, k| apply(&matrix(k), s));
            assert_eq!(jumped, v, "{n} draws");
        }
        assert_eq!(table().len(), POWERS * 800 * 4);
        assert!(global_init("other").is_none());
    }

    #[test]
    fn a_subsequence_is_two_to_the_67_draws() {
        // M^(2^67) applied twice is M^(2^68).
        let v = [1, 2, 3, 4, 5];
        let twice = apply(&matrix(67), apply(&matrix(67), v));
        assert_eq!(twice, apply(&matrix(68), v));
        assert_ne!(twice, v);
    }
}
