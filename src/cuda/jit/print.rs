//! `printf` on the compiled tier. Compiled code hands a warp's arguments to [`print()`], which
//! keeps them unformatted, a line per executing lane; once the block is done the launch formats
//! them with the interpreter's code (a block that stops on a fault runs again on the
//! interpreter, which prints it then). A line's place in the launch's output is the
//! interpreter's: by block, warp, the warp's `printf`s before it, lane. (The interpreter counts
//! a block's `printf`s and the compiled code a warp's; within a warp both follow the warp's own
//! order, so the sorted lines come out the same.)
//!
//! The helper is called from compiled code (a `helper!`): it must not panic.

/// The most arguments a compiled `printf` takes (with more, the kernel runs on the
/// interpreter).
pub(crate) const MAX_ARGS: usize = 16;

/// A `printf`'s arguments as compiled code hands them over: per argument its 32 lanes' bits
/// (a 32-bit value zero-extended), then zeros.
pub(crate) type Args = [[u64; 32]; MAX_ARGS];

/// One lane's `printf`, unformatted.
pub(crate) struct Line {
    /// Which `printf` of the kernel ([`super::Compiled::printfs`]).
    pub id: u32,
    pub warp: u32,
    /// The warp's `printf`s before this one.
    pub seq: u32,
    pub lane: u32,
    /// The arguments' bits.
    pub args: Vec<u64>,
}

/// What a block's `printf`s printed.
#[derive(Default)]
pub(crate) struct Prints {
    pub lines: Vec<Line>,
    /// Per warp, the `printf`s it has run.
    ran: Vec<u32>,
}

impl Prints {
    /// Empty, for a block of `warps` warps.
    pub fn reset(&mut self, warps: usize) {
        self.lines.clear();
        self.ran.clear();
        self.ran.resize(warps, 0);
    }
}

helper! {
    /// Warp `warp` runs `printf` number `id`, of `args` arguments, with the lanes of `mask`.
    fn print(
        prints: &mut Prints,
        id: u32,
        warp: u32,
        mask: u32,
        values: &Args,
        args: u32,
    ) {
        let Some(ran) = prints.ran.get_mut(warp as usize) else {
            return;
        };
        let seq = *ran;
        *ran += 1;
        let values = &values[..(args as usize).min(MAX_ARGS)];
        for lane in 0..32 {
            if mask >> lane & 1 != 0 {
                prints.lines.push(Line {
                    id,
                    warp,
                    seq,
                    lane,
                    args: values.iter().map(|v| v[lane as usize]).collect(),
                });
            }
        }
    }
}
