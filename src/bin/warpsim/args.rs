//! Command-line arguments.

use clap::{Args, Parser, Subcommand, ValueEnum};
use warpsim::Dim3;
use warpsim::kernels::{Pattern, SmemOp};

/// Run CUDA-style kernels on the CPU as 32-lane SIMD warps, with nvprof-like counters.
///
/// With no command, runs the documents' kernel suite (`warpsim suite`).
#[derive(Parser, Debug)]
#[command(name = "warpsim", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run every catalogue kernel at its default size, verify it, and report by family.
    Suite(SuiteArgs),
    /// List the catalogue's kernels with their parameters and defaults.
    List,
    /// Run one catalogue kernel and report its counters.
    Run(Box<RunArgs>),
    /// List the device profiles and their limits.
    Devices,
    /// Theoretical occupancy of a block configuration (the CUDA occupancy calculator).
    Occupancy(OccupancyArgs),
    /// Time kernels in fast and counting mode against native Rust in the same process.
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct Common {
    /// Device profile (see `warpsim devices`).
    #[arg(long, default_value = "sm_90")]
    pub device: String,
    /// CPU threads to run blocks on (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Args, Debug)]
pub struct SuiteArgs {
    #[command(flatten)]
    pub common: Common,
    /// Also write a self-contained HTML report with charts to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
    /// Print the results as JSON (one object per kernel, in a list).
    #[arg(long)]
    pub json: bool,
}

/// A block shape: `256` or `32x8` or `8x8x4`.
pub fn parse_block(s: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split(['x', 'X']).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "`{s}` is not a block shape; write 256, 32x8 or 8x8x4"
        ));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not a block shape; write 256, 32x8 or 8x8x4"))?;
        if d[i] == 0 {
            return Err(format!("block dimension {} of `{s}` is zero", i + 1));
        }
    }
    Ok(Dim3::new(d[0], d[1], d[2]))
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PatternArg {
    Offset,
    Stride,
    Modulo,
}

impl From<PatternArg> for Pattern {
    fn from(p: PatternArg) -> Pattern {
        match p {
            PatternArg::Offset => Pattern::Offset,
            PatternArg::Stride => Pattern::Stride,
            PatternArg::Modulo => Pattern::Modulo,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OpArg {
    Load,
    Store,
}

impl From<OpArg> for SmemOp {
    fn from(o: OpArg) -> SmemOp {
        match o {
            OpArg::Load => SmemOp::Load,
            OpArg::Store => SmemOp::Store,
        }
    }
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The catalogue kernel (see `warpsim list`).
    pub kernel: String,
    #[command(flatten)]
    pub common: Common,
    /// Elements.
    #[arg(long)]
    pub n: Option<usize>,
    /// Threads per block: 256, or 32x8 for 2-D blocks.
    #[arg(long, value_parser = parse_block)]
    pub block: Option<Dim3>,
    /// Element offset (offset-access kernels).
    #[arg(long)]
    pub offset: Option<u32>,
    /// Matrix or image width.
    #[arg(long)]
    pub width: Option<u32>,
    /// Matrix or image height.
    #[arg(long)]
    pub height: Option<u32>,
    /// Shared-memory pattern (smem-pattern).
    #[arg(long, value_enum)]
    pub pattern: Option<PatternArg>,
    /// The pattern's constant c (smem-pattern).
    #[arg(long)]
    pub c: Option<u32>,
    /// Element size in bytes: 4, 8 or 16 (smem-pattern).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["4", "8", "16"]))]
    pub elem_bytes: Option<String>,
    /// Load or store (smem-pattern).
    #[arg(long, value_enum)]
    pub op: Option<OpArg>,
    /// Pattern accesses per thread (smem-pattern).
    #[arg(long)]
    pub iters: Option<u32>,
    /// Run R times and report the median time.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Fast mode: no counters (timing only).
    #[arg(long, conflicts_with = "check")]
    pub no_counters: bool,
    /// Check mode: report races, uninitialised reads and barrier misuse.
    #[arg(long)]
    pub check: bool,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print one CSV row per launch.
    #[arg(long)]
    pub csv: bool,
    /// Only these metrics (comma-separated names, see the README).
    #[arg(long, value_delimiter = ',')]
    pub metrics: Option<Vec<String>>,
}

#[derive(Args, Debug)]
pub struct OccupancyArgs {
    /// Device profile.
    #[arg(long, default_value = "sm_90")]
    pub device: String,
    /// Threads per block (256 or 32x8).
    #[arg(long, value_parser = parse_block)]
    pub block: Dim3,
    /// Registers per thread.
    #[arg(long, default_value_t = 32)]
    pub regs: u32,
    /// Shared memory per block in bytes.
    #[arg(long, default_value_t = 0)]
    pub smem: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// CPU threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Timed runs per measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Small sizes only (a quick look, not the targets' sizes).
    #[arg(long)]
    pub quick: bool,
    /// Also time the same kernels under PoCL with this peer script (`pocl_peer.py`, which
    /// needs PoCL and pyopencl: see its README) and report warpsim's time over PoCL's.
    #[arg(long, value_name = "SCRIPT")]
    pub pocl: Option<std::path::PathBuf>,
    /// Also count the x86 instructions each warp instruction costs in fast mode (runs every
    /// kernel again under valgrind's callgrind, one CPU thread; slow: use with --quick).
    #[arg(long)]
    pub instructions: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
