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
    /// Run a kernel of a CUDA C file as written (`warpsim cu FILE.cu --list` shows its kernels).
    Cu(Box<CuArgs>),
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
    /// Also write a self-contained HTML report with pictures and charts to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
    /// Run every kernel in check mode instead (races, uninitialised reads, barrier and mask
    /// misuse, out-of-bounds accesses): one line per kernel, exit status 1 on any finding.
    #[arg(long, conflicts_with = "report")]
    pub check: bool,
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

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        // A limit a `Duration` can hold (a year is more than any launch needs).
        Ok(x) if x > 0.0 && x <= 3.2e7 => Ok(x),
        _ => Err(format!(
            "`{s}` is not a number of seconds above 0 and at most a year (e.g. 10 or 0.5)"
        )),
    }
}

/// `--engine`: the tier that runs CUDA C kernels.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum EngineArg {
    /// The compiled tier where it applies (fast mode, a kernel it compiles), else the
    /// interpreter.
    #[default]
    Auto,
    /// The interpreter, always.
    Interp,
    /// The compiled tier, always: a launch it cannot run is an error saying why.
    Jit,
}

/// `--event-time`: what a program's CUDA events measure.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum EventTimeArg {
    /// The predicted GPU time on the profile's GPU (counting and check modes; with
    /// --no-counters a launch adds its CPU time).
    #[default]
    Predicted,
    /// The CPU time warpsim spent.
    Cpu,
}

impl From<EventTimeArg> for warpsim::cuda::host::EventClock {
    fn from(e: EventTimeArg) -> warpsim::cuda::host::EventClock {
        match e {
            EventTimeArg::Predicted => warpsim::cuda::host::EventClock::Predicted,
            EventTimeArg::Cpu => warpsim::cuda::host::EventClock::Cpu,
        }
    }
}

impl From<EngineArg> for warpsim::cuda::Engine {
    fn from(e: EngineArg) -> warpsim::cuda::Engine {
        match e {
            EngineArg::Auto => warpsim::cuda::Engine::Auto,
            EngineArg::Interp => warpsim::cuda::Engine::Interp,
            EngineArg::Jit => warpsim::cuda::Engine::Jit,
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
    /// Also count per source line of the kernel: a table per launch (with `--json`, a "lines"
    /// array in each launch).
    #[arg(long, conflicts_with_all = ["csv", "no_counters"])]
    pub lines: bool,
    /// Also write a self-contained HTML report of this run, with its pictures, to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "no_counters")]
    pub report: Option<std::path::PathBuf>,
    /// Run even when the run's estimated memory exceeds the memory available (MemAvailable in
    /// /proc/meminfo, or WARPSIM_MEMORY_AVAILABLE bytes when set).
    #[arg(long)]
    pub force: bool,
}

/// `warpsim cu`: a whole CUDA program, or one kernel of a `.cu` file.
#[derive(Args, Debug)]
#[command(after_help = "WHOLE PROGRAMS (no --kernel):
  warpsim cu FILE.cu [MORE.cu|.cpp|.c ...] [-I DIR] [-D NAME=VALUE] [-- PROGRAM ARGS]
  builds the program's host code with the system C++ compiler ($CXX, c++, g++ or clang++;
  --cxx to choose), runs main() with the arguments after `--`, and serves its CUDA runtime
  calls; the program's stdin, stdout, stderr and exit status are its own. Every launch is
  counted; the profile summary goes to stderr when the program exits (--json-out FILE writes
  every launch as JSON, --report FILE.html the pictures).

ONE KERNEL (--kernel NAME --block N, one --arg per kernel parameter, in order):
  a number        for a scalar parameter: 4194304, -1, 0x10, 2.5
  TYPE[N]:INIT    for a pointer parameter: a new device buffer of N elements of TYPE (the
                  parameter's element type, or the struct it points to), N like 1024 or 1<<20;
                  INIT is zeros, iota (component k holds k), fill=V, rand (floats in [0, 1),
                  integers in [0, 100), seeded by --seed) or file=PATH (raw little-endian)
  {A,B,...}       for a struct passed by value: its fields in order

EXAMPLES:
  warpsim cu examples/vector_add.cu -- 100000
  warpsim cu examples/vector_add.cu --kernel vector_add --block 256 \\
      --arg 'float[1<<20]:rand' --arg 'float[1<<20]:iota' --arg 'float[1<<20]:zeros' --arg 1048576 \\
      --out C=c.bin")]
pub struct CuArgs {
    /// The program's source files (.cu, and .cpp/.c host code), or the one .cu file of --kernel.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<std::path::PathBuf>,
    /// Run one kernel instead of the program, with template arguments if it has any
    /// (`reduce<256>`).
    #[arg(long)]
    pub kernel: Option<String>,
    /// List the files' kernels and their parameters, then stop.
    #[arg(long)]
    pub list: bool,
    /// Blocks in the grid (--kernel): 4096 or 64x64 (default: enough blocks of --block threads
    /// to cover the largest buffer argument).
    #[arg(long, value_parser = parse_block)]
    pub grid: Option<Dim3>,
    /// Threads per block (--kernel): 256 or 32x8.
    #[arg(long, value_parser = parse_block)]
    pub block: Option<Dim3>,
    /// Dynamic shared memory per block in bytes (--kernel; `extern __shared__`).
    #[arg(long, default_value_t = 0)]
    pub smem: u32,
    /// A preprocessor definition, NAME or NAME=VALUE (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// An include directory, searched after the including file's own (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<std::path::PathBuf>,
    /// The C++ compiler for a program's host code (default: $CXX, else c++, g++ or clang++).
    #[arg(long, value_name = "COMPILER")]
    pub cxx: Option<String>,
    /// Fuse each product into the sum that uses it (one rounding), as nvcc's default
    /// --fmad=true does; --fmad=false rounds the product and the sum apart.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub fmad: bool,
    /// Options for the host compiler and linker, comma-separated, as nvcc's -Xcompiler
    /// (`-Xcompiler -fopenmp`; repeatable).
    #[arg(long = "Xcompiler", value_name = "OPTS", allow_hyphen_values = true)]
    pub xcompiler: Vec<String>,
    /// A library to link a program with (`-l gomp`; repeatable).
    #[arg(short = 'l', value_name = "LIB")]
    pub libs: Vec<String>,
    /// A directory to search for -l libraries (repeatable).
    #[arg(short = 'L', value_name = "DIR")]
    pub lib_dirs: Vec<String>,
    /// A kernel argument (--kernel; one per parameter, in order; see below).
    #[arg(long = "arg", value_name = "SPEC", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Write a buffer argument after the launch, raw little-endian: PARAM=FILE (repeatable).
    #[arg(long = "out", value_name = "PARAM=FILE")]
    pub outs: Vec<String>,
    /// Seed of `rand` buffers.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Registers per thread assumed for the occupancy figure.
    #[arg(long, default_value_t = 32)]
    pub regs: u32,
    #[command(flatten)]
    pub common: Common,
    /// Run R times (--kernel; fresh buffers each time) and report the median time.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Fast mode: no counters (timing only).
    #[arg(long, conflicts_with = "check")]
    pub no_counters: bool,
    /// The tier that runs kernels: auto (compiled where it applies), interp or jit (check
    /// mode runs on the interpreter).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Say on stderr which tier ran the launch, and why not the compiled one (with a program:
    /// each kernel's launches, once per tier and reason).
    #[arg(long)]
    pub verbose: bool,
    /// Stop a kernel still running after SECONDS with an error naming the loop it was in, or
    /// saying its grid still had blocks to run (every launch of a program); default: no limit.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds)]
    pub timeout: Option<f64>,
    /// What cudaEventElapsedTime returns in a program: the predicted GPU time of the work
    /// between the two events, or warpsim's CPU time.
    #[arg(long, value_enum, default_value_t = EventTimeArg::Predicted)]
    pub event_time: EventTimeArg,
    /// Check mode: report races, uninitialised reads and barrier misuse (every launch of a
    /// program); exit status 1 on any finding.
    #[arg(long)]
    pub check: bool,
    /// Print one JSON object (--kernel).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// A program's profile as JSON, written to this file (every launch with its counters);
    /// with --kernel, what --json prints.
    #[arg(long, value_name = "FILE")]
    pub json_out: Option<std::path::PathBuf>,
    /// Also write a self-contained HTML report with the pictures of each kernel to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<std::path::PathBuf>,
    /// Print one CSV row (--kernel).
    #[arg(long)]
    pub csv: bool,
    /// Only these metrics (comma-separated names, see the README).
    #[arg(long, value_delimiter = ',')]
    pub metrics: Option<Vec<String>>,
    /// Also count per source line of the kernel: a table (with `--json`, a "lines" array).
    #[arg(long, conflicts_with_all = ["csv", "no_counters"])]
    pub lines: bool,
    /// Run even if the buffers need more memory than the machine has available.
    #[arg(long)]
    pub force: bool,
    /// The program's arguments (after `--`).
    #[arg(last = true, value_name = "PROGRAM ARGS")]
    pub program_args: Vec<String>,
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
    /// Measure what whole programs cost beside their kernels instead: a cached rebuild,
    /// cudaMemcpy of 256 MiB each way against memcpy, and 10,000 empty launches (needs a C++
    /// compiler, as `warpsim cu` does).
    #[arg(long)]
    pub programs: bool,
    /// Measure how the CUDA C reductions scale instead: one CPU thread against N, a launch on
    /// each in turn in one process (a host's clock moves with its load, so runs minutes apart
    /// disagree), beside the native sum and a loop of arithmetic alone, what the host gives
    /// any code; `--runs` pairs, the median of their ratios.
    #[arg(
        long,
        value_name = "N",
        conflicts_with_all = ["programs", "pocl", "instructions", "threads"]
    )]
    pub scaling: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}
