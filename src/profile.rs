//! Device profiles and theoretical occupancy.
//!
//! A [`Profile`] describes one GPU architecture the simulator can pretend to be: the limits a
//! launch must respect (threads and dimensions per block, grid dimensions, shared memory per
//! block), the resources an SM shares among resident blocks (warp slots, block slots, the
//! register file, shared memory), and the parameters that change how memory accesses are counted
//! (number of shared-memory banks, how many lanes one shared request serves, and whether global
//! loads are counted as 128-byte L1 lines or as 32-byte sectors, see [`GlobalCaching`]).
//!
//! # Where the numbers come from
//!
//! Capacities (threads, warps, blocks and registers per SM, shared memory per SM and per block,
//! maximum registers per thread, grid and block dimensions) are those of NVIDIA's *CUDA C++
//! Programming Guide*, table "Technical Specifications per Compute Capability", together with the
//! values `cudaGetDeviceProperties` reports on the named boards (for example
//! `sharedMemPerMultiprocessor = 233472`, `sharedMemPerBlockOptin = 232448` and
//! `reservedSharedMemPerBlock = 1024` on an H100). SM counts, memory sizes, clocks, bus widths
//! and L2 sizes are those of the named boards (the H100's as its `cudaGetDeviceProperties` and
//! `cudaDeviceGetAttribute` report them, the others' from NVIDIA's data sheets).
//! Allocation granularities and the number of register-file sub-partitions are those of the CUDA
//! toolkit's stand-alone occupancy calculator, `cuda_occupancy.h`
//! (`cudaOccRegAllocationGranularity`, `cudaOccSMemAllocationGranularity`,
//! `cudaOccSubPartitionsPerMultiprocessor`, `cudaOccWarpAllocationGranularity`,
//! `cudaOccMaxBlocksPerMultiprocessor`); the compute capability 1.x and 2.x values come from the
//! toolkit releases that still supported those devices.
//!
//! # How occupancy is computed
//!
//! [`Profile::occupancy`] reproduces `cudaOccMaxActiveBlocksPerMultiprocessor` with the default
//! device state (no cache or carve-out preference, so the full `smem_per_sm` is available) and
//! partitioned global caching off. The number of resident blocks per SM is the minimum of four
//! limits:
//!
//! * **warps**: `floor(max_warps_per_sm / warps_allocated_per_block)`, where a block of `T`
//!   threads has `ceil(T / warp_size)` warps, rounded up to a multiple of 2 on compute capability
//!   1.x (warps were allocated in pairs there; see [`Profile::warp_alloc_granularity`]).
//! * **registers**, warp granularity (compute capability 2.0 and later): registers are allocated
//!   per warp, `regs_per_warp = round_up(regs_per_thread * warp_size, reg_alloc_unit)`, and the
//!   register file is split evenly among `sub_partitions`, so
//!   `warps_per_sub_partition = floor((regs_per_sm / sub_partitions) / regs_per_warp)` and the
//!   limit is `floor(warps_per_sub_partition * sub_partitions / warps_per_block)`. A block only
//!   launches if `regs_per_warp * round_up(warps_per_block, sub_partitions)` (the hardware check)
//!   and `regs_per_warp * warps_per_block` (the software check) both fit in the registers
//!   available to one block. On compute capability 2.x the allocation unit is 64 registers except
//!   for 21, 22, 29, 30, 37, 38, 45 and 46 registers per thread, which `cuda_occupancy.h`
//!   allocates in units of 128 (see [`Profile::reg_alloc_unit_for`]).
//! * **registers**, block granularity (compute capability 1.x): registers are allocated per block,
//!   `regs_per_block = round_up(regs_per_thread * warp_size * warps_allocated_per_block,
//!   reg_alloc_unit)` and the limit is `floor(regs_per_sm / regs_per_block)`.
//! * **shared memory**: each block is charged
//!   `round_up(smem_per_block + smem_reserved_per_block, smem_alloc_granularity)` bytes, and the
//!   limit is `floor(smem_per_sm / charged)`. From compute capability 8.0 on, the driver reserves
//!   1 KiB per block, so even a block that uses no shared memory is charged 1 KiB; where nothing
//!   is charged the limit does not apply.
//! * **blocks**: `max_blocks_per_sm`.
//!
//! Occupancy is then `100 * blocks_per_sm * warps_per_block / max_warps_per_sm` percent. A
//! configuration that cannot run at all (empty block, block too large, too many registers for
//! the block, too much shared memory) is reported as an [`OccupancyError`] rather than as zero
//! resident blocks, so an `Ok` result always has at least one resident block. Shared memory up to
//! the opt-in maximum is accepted, as if the kernel had raised its limit with
//! `cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)`.

use std::fmt;

const KIB: u32 = 1024;

/// Largest grid x dimension on compute capability 1.x and 2.x.
const OLD_GRID_X: u32 = 65_535;

/// Largest grid x dimension from compute capability 3.0 on: 2^31 - 1.
const GRID_X: u32 = 0x7fff_ffff;

/// How global loads are cached and therefore counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalCaching {
    /// Loads go through a 128-byte-line L1 cache (Fermi's default "cached loads", and the
    /// 128-byte segments of older devices): load transactions are counted as distinct 128-byte
    /// lines and load efficiency is measured against `lines * 128` bytes.
    L1Lines128,
    /// Loads are served in 32-byte sectors (the default from Pascal on): load transactions are
    /// counted as distinct 32-byte sectors and efficiency is measured against `sectors * 32`.
    Sectors32,
}

/// The unit in which the register file is allocated to resident work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegGranularity {
    /// Registers are allocated per warp (compute capability 2.0 and later), in units of
    /// `reg_alloc_unit` registers per warp.
    Warp,
    /// Registers are allocated per block (compute capability 1.x), in units of `reg_alloc_unit`
    /// registers per block; warps are also allocated in pairs on these devices.
    Block,
}

/// The description of one GPU architecture: launch limits, per-SM resources and the parameters
/// that shape the memory counters. See the [module documentation](self) for the sources.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Short name, e.g. `"sm_90"`.
    pub name: &'static str,
    /// Human-readable architecture and reference board, e.g. `"Hopper (H100 SXM)"`.
    pub description: &'static str,
    /// Compute capability as `(major, minor)`, e.g. `(9, 0)`.
    pub compute_capability: (u32, u32),
    /// Threads per warp (32 on every profile).
    pub warp_size: u32,
    /// Most threads one block may have.
    pub max_threads_per_block: u32,
    /// Largest block dimensions `[x, y, z]` (`x * y * z` is further limited by
    /// `max_threads_per_block`).
    pub max_block_dim: [u32; 3],
    /// Largest grid dimensions `[x, y, z]` in blocks.
    pub max_grid_dim: [u32; 3],
    /// Most threads resident on one SM.
    pub max_threads_per_sm: u32,
    /// Most warps resident on one SM (`max_threads_per_sm / warp_size`).
    pub max_warps_per_sm: u32,
    /// Most blocks resident on one SM.
    pub max_blocks_per_sm: u32,
    /// 32-bit registers in one SM's register file (also the most one block may use).
    pub regs_per_sm: u32,
    /// Register allocation unit: registers per warp ([`RegGranularity::Warp`]) or per block
    /// ([`RegGranularity::Block`]) are rounded up to a multiple of this.
    pub reg_alloc_unit: u32,
    /// Whether registers are allocated per warp or per block.
    pub reg_alloc_granularity: RegGranularity,
    /// Most registers one thread may use.
    pub max_regs_per_thread: u32,
    /// Number of sub-partitions the register file is split into (each warp's registers come from
    /// one sub-partition), as `cudaOccSubPartitionsPerMultiprocessor` in `cuda_occupancy.h`.
    pub sub_partitions: u32,
    /// Bytes of shared memory available to the blocks resident on one SM (largest carve-out).
    pub smem_per_sm: u32,
    /// Default maximum bytes of shared memory per block (48 KiB on most profiles).
    pub smem_per_block: u32,
    /// Maximum bytes of shared memory per block after opting in (equal to `smem_per_block` where
    /// there is no opt-in).
    pub smem_per_block_optin: u32,
    /// Bytes of shared memory the driver reserves for every block (1 KiB from `sm_80` on, 0
    /// before).
    pub smem_reserved_per_block: u32,
    /// Shared memory is charged per block in multiples of this many bytes.
    pub smem_alloc_granularity: u32,
    /// Number of 4-byte shared-memory banks (32, or 16 on `sm_13`).
    pub shared_banks: u32,
    /// Lanes served by one shared-memory request: 32 (a full warp), or 16 (a half-warp) on
    /// `sm_13`, where each half-warp's access is a separate request.
    pub shared_request_lanes: u32,
    /// Number of SMs on the reference board.
    pub sm_count: u32,
    /// How global loads are cached and counted.
    pub global_loads: GlobalCaching,
    /// The board's device memory in bytes (`totalGlobalMem`).
    pub global_mem_bytes: u64,
    /// SM clock in kHz (`cudaDevAttrClockRate`).
    pub clock_khz: u32,
    /// Memory clock in kHz (`cudaDevAttrMemoryClockRate`).
    pub mem_clock_khz: u32,
    /// Memory bus width in bits.
    pub mem_bus_bits: u32,
    /// L2 cache in bytes (0 where there is none).
    pub l2_bytes: u32,
}

/// The resource whose limit determines the number of resident blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// Warp slots per SM.
    Warps,
    /// The register file.
    Registers,
    /// Shared memory per SM.
    SharedMemory,
    /// Block slots per SM.
    Blocks,
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limiter::Warps => "warps",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared_memory",
            Limiter::Blocks => "blocks",
        })
    }
}

/// Theoretical occupancy of one launch configuration on one profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Occupancy {
    /// Blocks resident on one SM: the minimum of the four `limit_*` fields (at least 1).
    pub blocks_per_sm: u32,
    /// Warps resident on one SM: `blocks_per_sm * ceil(block_threads / warp_size)`.
    pub warps_per_sm: u32,
    /// `100 * warps_per_sm / max_warps_per_sm`.
    pub occupancy_pct: f64,
    /// The limit that binds; on a tie, the first of warps, registers, shared memory, blocks.
    pub limiter: Limiter,
    /// Blocks per SM allowed by the warp slots.
    pub limit_warps: u32,
    /// Blocks per SM allowed by the register file (`u32::MAX` when the kernel uses no register).
    pub limit_registers: u32,
    /// Blocks per SM allowed by shared memory (`u32::MAX` when a block is charged no shared
    /// memory: it uses none and the profile reserves none).
    pub limit_shared: u32,
    /// Blocks per SM allowed by the block slots (`max_blocks_per_sm`).
    pub limit_blocks: u32,
}

impl fmt::Display for Occupancy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} blocks/SM, {} warps/SM, {:.1}% occupancy (limited by {})",
            self.blocks_per_sm, self.warps_per_sm, self.occupancy_pct, self.limiter
        )
    }
}

/// Why a launch configuration cannot run on a profile at all.
#[derive(Clone, Debug, PartialEq)]
pub enum OccupancyError {
    /// The block has no thread.
    ZeroBlock,
    /// The block has more threads than the profile allows.
    BlockTooLarge {
        /// Threads requested per block.
        threads: u32,
        /// The profile's `max_threads_per_block`.
        max: u32,
    },
    /// The kernel uses more registers per thread than the profile allows, or more than a block of
    /// this size can be given.
    TooManyRegisters {
        /// Registers requested per thread.
        regs: u32,
        /// The most registers per thread a block of this size can use on this profile.
        max: u32,
    },
    /// The block uses more shared memory than the profile allows per block, even after opting in.
    TooMuchShared {
        /// Bytes of shared memory requested per block.
        bytes: u32,
        /// The profile's `smem_per_block_optin`.
        max: u32,
    },
}

impl fmt::Display for OccupancyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OccupancyError::ZeroBlock => f.write_str(
                "a block of 0 threads cannot be launched; give every block dimension at least 1",
            ),
            OccupancyError::BlockTooLarge { threads, max } => write!(
                f,
                "a block of {threads} threads exceeds this profile's limit of {max} threads per \
                 block; use smaller blocks and more of them"
            ),
            OccupancyError::TooManyRegisters { regs, max } => write!(
                f,
                "{regs} registers per thread do not fit: a block of this size can use at most \
                 {max} registers per thread on this profile; use fewer registers or smaller blocks"
            ),
            OccupancyError::TooMuchShared { bytes, max } => write!(
                f,
                "{bytes} bytes of shared memory per block exceed this profile's maximum of {max} \
                 bytes per block (opt-in included); use less shared memory per block"
            ),
        }
    }
}

impl std::error::Error for OccupancyError {}

impl Default for Profile {
    /// The H100 profile, [`Profile::sm_90`].
    fn default() -> Self {
        Profile::sm_90()
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name, self.description)
    }
}

/// `ceil(x / y)` for `y > 0`.
fn div_ceil(x: u64, y: u64) -> u64 {
    x.div_ceil(y)
}

/// `x` rounded up to a multiple of `y` (`y > 0`).
fn round_up(x: u64, y: u64) -> u64 {
    div_ceil(x, y) * y
}

/// Saturating conversion of a block count to `u32`.
fn to_u32(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

impl Profile {
    /// GT200 (GeForce GTX 280), compute capability 1.3: 30 SMs, 16 banks, shared accesses per
    /// half-warp, registers allocated per block. Its half-warp global coalescing (32/64/128-byte
    /// segments) is approximated by 128-byte lines.
    #[must_use]
    pub fn sm_13() -> Profile {
        Profile {
            name: "sm_13",
            description: "Tesla GT200 (GeForce GTX 280)",
            compute_capability: (1, 3),
            warp_size: 32,
            max_threads_per_block: 512,
            max_block_dim: [512, 512, 64],
            max_grid_dim: [OLD_GRID_X, OLD_GRID_X, 1],
            max_threads_per_sm: 1024,
            max_warps_per_sm: 32,
            max_blocks_per_sm: 8,
            regs_per_sm: 16_384,
            reg_alloc_unit: 512,
            reg_alloc_granularity: RegGranularity::Block,
            max_regs_per_thread: 124,
            sub_partitions: 1,
            smem_per_sm: 16 * KIB,
            smem_per_block: 16 * KIB,
            smem_per_block_optin: 16 * KIB,
            smem_reserved_per_block: 0,
            smem_alloc_granularity: 512,
            shared_banks: 16,
            shared_request_lanes: 16,
            sm_count: 30,
            global_loads: GlobalCaching::L1Lines128,
            global_mem_bytes: 1_073_741_824,
            clock_khz: 1_296_000,
            mem_clock_khz: 1_107_000,
            mem_bus_bits: 512,
            l2_bytes: 0,
        }
    }

    /// Fermi GF100 (Tesla M2070), compute capability 2.0: 14 SMs, 48 KiB of shared memory per SM
    /// (the 48 KiB shared / 16 KiB L1 split), global loads cached in 128-byte L1 lines.
    #[must_use]
    pub fn sm_20() -> Profile {
        Profile {
            name: "sm_20",
            description: "Fermi GF100 (Tesla M2070)",
            compute_capability: (2, 0),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [OLD_GRID_X, 65_535, 65_535],
            max_threads_per_sm: 1536,
            max_warps_per_sm: 48,
            max_blocks_per_sm: 8,
            regs_per_sm: 32_768,
            reg_alloc_unit: 64,
            reg_alloc_granularity: RegGranularity::Warp,
            max_regs_per_thread: 63,
            sub_partitions: 2,
            smem_per_sm: 48 * KIB,
            smem_per_block: 48 * KIB,
            smem_per_block_optin: 48 * KIB,
            smem_reserved_per_block: 0,
            smem_alloc_granularity: 128,
            shared_banks: 32,
            shared_request_lanes: 32,
            sm_count: 14,
            global_loads: GlobalCaching::L1Lines128,
            global_mem_bytes: 6_442_450_944,
            clock_khz: 1_150_000,
            mem_clock_khz: 1_566_000,
            mem_bus_bits: 384,
            l2_bytes: 786_432,
        }
    }

    /// Pascal GP104 (GeForce GTX 1080), compute capability 6.1: 20 SMs, 96 KiB of shared memory
    /// per SM, 48 KiB per block.
    #[must_use]
    pub fn sm_61() -> Profile {
        Profile {
            name: "sm_61",
            description: "Pascal GP104 (GeForce GTX 1080)",
            compute_capability: (6, 1),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [GRID_X, 65_535, 65_535],
            max_threads_per_sm: 2048,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            regs_per_sm: 65_536,
            reg_alloc_unit: 256,
            reg_alloc_granularity: RegGranularity::Warp,
            max_regs_per_thread: 255,
            sub_partitions: 4,
            smem_per_sm: 96 * KIB,
            smem_per_block: 48 * KIB,
            smem_per_block_optin: 48 * KIB,
            smem_reserved_per_block: 0,
            smem_alloc_granularity: 256,
            shared_banks: 32,
            shared_request_lanes: 32,
            sm_count: 20,
            global_loads: GlobalCaching::Sectors32,
            global_mem_bytes: 8_589_934_592,
            clock_khz: 1_733_500,
            mem_clock_khz: 5_005_000,
            mem_bus_bits: 256,
            l2_bytes: 2_097_152,
        }
    }

    /// Volta GV100 (Tesla V100), compute capability 7.0: 80 SMs, up to 96 KiB of shared memory
    /// per SM and per block (opt-in).
    #[must_use]
    pub fn sm_70() -> Profile {
        Profile {
            name: "sm_70",
            description: "Volta GV100 (Tesla V100)",
            compute_capability: (7, 0),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [GRID_X, 65_535, 65_535],
            max_threads_per_sm: 2048,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            regs_per_sm: 65_536,
            reg_alloc_unit: 256,
            reg_alloc_granularity: RegGranularity::Warp,
            max_regs_per_thread: 255,
            sub_partitions: 4,
            smem_per_sm: 96 * KIB,
            smem_per_block: 48 * KIB,
            smem_per_block_optin: 96 * KIB,
            smem_reserved_per_block: 0,
            smem_alloc_granularity: 256,
            shared_banks: 32,
            shared_request_lanes: 32,
            sm_count: 80,
            global_loads: GlobalCaching::Sectors32,
            global_mem_bytes: 17_179_869_184,
            clock_khz: 1_530_000,
            mem_clock_khz: 877_000,
            mem_bus_bits: 4096,
            l2_bytes: 6_291_456,
        }
    }

    /// Ampere GA100 (A100), compute capability 8.0: 108 SMs, 164 KiB of shared memory per SM,
    /// 163 KiB per block after opting in, 1 KiB reserved per block.
    #[must_use]
    pub fn sm_80() -> Profile {
        Profile {
            name: "sm_80",
            description: "Ampere GA100 (A100)",
            compute_capability: (8, 0),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [GRID_X, 65_535, 65_535],
            max_threads_per_sm: 2048,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            regs_per_sm: 65_536,
            reg_alloc_unit: 256,
            reg_alloc_granularity: RegGranularity::Warp,
            max_regs_per_thread: 255,
            sub_partitions: 4,
            smem_per_sm: 164 * KIB,
            smem_per_block: 48 * KIB,
            smem_per_block_optin: 163 * KIB,
            smem_reserved_per_block: KIB,
            smem_alloc_granularity: 128,
            shared_banks: 32,
            shared_request_lanes: 32,
            sm_count: 108,
            global_loads: GlobalCaching::Sectors32,
            global_mem_bytes: 42_949_672_960,
            clock_khz: 1_410_000,
            mem_clock_khz: 1_215_000,
            mem_bus_bits: 5120,
            l2_bytes: 41_943_040,
        }
    }

    /// Hopper GH100 (H100 SXM), compute capability 9.0: 132 SMs, 228 KiB of shared memory per SM,
    /// 227 KiB per block after opting in, 1 KiB reserved per block.
    #[must_use]
    pub fn sm_90() -> Profile {
        Profile {
            name: "sm_90",
            description: "Hopper (H100 SXM)",
            compute_capability: (9, 0),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [GRID_X, 65_535, 65_535],
            max_threads_per_sm: 2048,
            max_warps_per_sm: 64,
            max_blocks_per_sm: 32,
            regs_per_sm: 65_536,
            reg_alloc_unit: 256,
            reg_alloc_granularity: RegGranularity::Warp,
            max_regs_per_thread: 255,
            sub_partitions: 4,
            smem_per_sm: 228 * KIB,
            smem_per_block: 48 * KIB,
            smem_per_block_optin: 227 * KIB,
            smem_reserved_per_block: KIB,
            smem_alloc_granularity: 128,
            shared_banks: 32,
            shared_request_lanes: 32,
            sm_count: 132,
            global_loads: GlobalCaching::Sectors32,
            global_mem_bytes: 85_017_493_504,
            clock_khz: 1_980_000,
            mem_clock_khz: 2_619_000,
            mem_bus_bits: 5120,
            l2_bytes: 52_428_800,
        }
    }

    /// Every built-in profile, oldest first: `sm_13`, `sm_20`, `sm_61`, `sm_70`, `sm_80`, `sm_90`.
    #[must_use]
    pub fn all() -> Vec<Profile> {
        vec![
            Profile::sm_13(),
            Profile::sm_20(),
            Profile::sm_61(),
            Profile::sm_70(),
            Profile::sm_80(),
            Profile::sm_90(),
        ]
    }

    /// The built-in profile with this name. Accepts `"sm_90"`, `"sm90"` and `"90"` forms,
    /// case-insensitively and ignoring surrounding whitespace; `None` for an unknown name.
    #[must_use]
    pub fn by_name(name: &str) -> Option<Profile> {
        let lower = name.trim().to_ascii_lowercase();
        let digits = lower
            .strip_prefix("sm_")
            .or_else(|| lower.strip_prefix("sm"))
            .unwrap_or(&lower);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Profile::all()
            .into_iter()
            .find(|p| p.name.strip_prefix("sm_") == Some(digits))
    }

    /// Warps in a block of `block_threads` threads: `ceil(block_threads / warp_size)`.
    #[must_use]
    pub fn warps_per_block(&self, block_threads: u32) -> u32 {
        block_threads.div_ceil(self.warp_size)
    }

    /// Warps are allocated to a block in multiples of this many: 2 on profiles that allocate
    /// registers per block (compute capability 1.x, `cudaOccWarpAllocationGranularity`), else 1.
    #[must_use]
    pub fn warp_alloc_granularity(&self) -> u32 {
        match self.reg_alloc_granularity {
            RegGranularity::Block => 2,
            RegGranularity::Warp => 1,
        }
    }

    /// Registers one block may be given (`regsPerBlock`); equal to `regs_per_sm` on every
    /// built-in profile.
    #[must_use]
    pub fn regs_per_block(&self) -> u32 {
        self.regs_per_sm
    }

    /// The register allocation unit for a kernel using `regs_per_thread` registers: on compute
    /// capability 2.x, `cuda_occupancy.h` allocates 21, 22, 29, 30, 37, 38, 45 and 46 registers
    /// per thread in units of 128 registers per warp instead of 64; elsewhere `reg_alloc_unit`.
    #[must_use]
    pub fn reg_alloc_unit_for(&self, regs_per_thread: u32) -> u32 {
        let fermi_quirk = self.compute_capability.0 == 2
            && self.reg_alloc_granularity == RegGranularity::Warp
            && matches!(regs_per_thread, 21 | 22 | 29 | 30 | 37 | 38 | 45 | 46);
        if fermi_quirk {
            128
        } else {
            self.reg_alloc_unit
        }
    }

    /// Bytes of shared memory a block using `smem_per_block` bytes is charged on an SM:
    /// `round_up(smem_per_block + smem_reserved_per_block, smem_alloc_granularity)`.
    #[must_use]
    pub fn smem_allocated_per_block(&self, smem_per_block: u32) -> u64 {
        round_up(
            u64::from(smem_per_block) + u64::from(self.smem_reserved_per_block),
            u64::from(self.smem_alloc_granularity.max(1)),
        )
    }

    /// Blocks per SM the register file allows for blocks of `warps_alloc` allocated warps using
    /// `regs` registers per thread (`u32::MAX` for `regs == 0`, 0 when one block does not fit).
    /// Does not check `max_regs_per_thread`.
    fn register_limit(&self, warps_alloc: u64, regs: u32) -> u32 {
        if regs == 0 {
            return u32::MAX;
        }
        let warp_size = u64::from(self.warp_size);
        let unit = u64::from(self.reg_alloc_unit_for(regs).max(1));
        let regs_per_sm = u64::from(self.regs_per_sm);
        match self.reg_alloc_granularity {
            RegGranularity::Block => {
                let per_block = round_up(u64::from(regs) * warp_size * warps_alloc, unit);
                to_u32(regs_per_sm / per_block)
            }
            RegGranularity::Warp => {
                let subs = u64::from(self.sub_partitions.max(1));
                let per_warp = round_up(u64::from(regs) * warp_size, unit);
                let per_block = per_warp * warps_alloc;
                let assumed = per_warp * round_up(warps_alloc, subs);
                let block_budget = u64::from(self.regs_per_block());
                if assumed > block_budget || per_block > block_budget {
                    return 0;
                }
                let warps_per_sub = (regs_per_sm / subs) / per_warp;
                to_u32(warps_per_sub * subs / warps_alloc)
            }
        }
    }

    /// Theoretical occupancy of blocks of `block_threads` threads using `regs_per_thread`
    /// registers per thread and `smem_per_block` bytes of shared memory (static plus dynamic),
    /// following `cudaOccMaxActiveBlocksPerMultiprocessor` (see the module documentation).
    ///
    /// # Errors
    ///
    /// [`OccupancyError::ZeroBlock`] for `block_threads == 0`;
    /// [`OccupancyError::BlockTooLarge`] above `max_threads_per_block`;
    /// [`OccupancyError::TooManyRegisters`] above `max_regs_per_thread` or when one block's
    /// registers do not fit (its `max` is the most registers per thread that fit this block size);
    /// [`OccupancyError::TooMuchShared`] above `smem_per_block_optin`.
    pub fn occupancy(
        &self,
        block_threads: u32,
        regs_per_thread: u32,
        smem_per_block: u32,
    ) -> Result<Occupancy, OccupancyError> {
        if block_threads == 0 {
            return Err(OccupancyError::ZeroBlock);
        }
        if block_threads > self.max_threads_per_block {
            return Err(OccupancyError::BlockTooLarge {
                threads: block_threads,
                max: self.max_threads_per_block,
            });
        }
        let warps_per_block = self.warps_per_block(block_threads);
        let warps_alloc = round_up(
            u64::from(warps_per_block),
            u64::from(self.warp_alloc_granularity().max(1)),
        );

        let limit_registers = if regs_per_thread > self.max_regs_per_thread {
            0
        } else {
            self.register_limit(warps_alloc, regs_per_thread)
        };
        if limit_registers == 0 {
            let max = (1..=self.max_regs_per_thread)
                .rev()
                .find(|&r| self.register_limit(warps_alloc, r) > 0)
                .unwrap_or(0);
            return Err(OccupancyError::TooManyRegisters {
                regs: regs_per_thread,
                max,
            });
        }

        let smem_charged = self.smem_allocated_per_block(smem_per_block);
        let smem_block_limit =
            u64::from(self.smem_per_block_optin) + u64::from(self.smem_reserved_per_block);
        let limit_shared = u64::from(self.smem_per_sm)
            .checked_div(smem_charged)
            .map_or(u32::MAX, to_u32);
        if smem_per_block > self.smem_per_block_optin
            || smem_charged > smem_block_limit
            || limit_shared == 0
        {
            return Err(OccupancyError::TooMuchShared {
                bytes: smem_per_block,
                max: self.smem_per_block_optin,
            });
        }

        let limit_warps = to_u32(u64::from(self.max_warps_per_sm) / warps_alloc);
        let limit_blocks = self.max_blocks_per_sm;
        let blocks_per_sm = limit_warps
            .min(limit_registers)
            .min(limit_shared)
            .min(limit_blocks);
        let limiter = [
            (limit_warps, Limiter::Warps),
            (limit_registers, Limiter::Registers),
            (limit_shared, Limiter::SharedMemory),
            (limit_blocks, Limiter::Blocks),
        ]
        .into_iter()
        .find(|&(limit, _)| limit == blocks_per_sm)
        .map_or(Limiter::Blocks, |(_, which)| which);
        let warps_per_sm = blocks_per_sm.saturating_mul(warps_per_block);
        let occupancy_pct = 100.0 * f64::from(warps_per_sm) / f64::from(self.max_warps_per_sm);
        Ok(Occupancy {
            blocks_per_sm,
            warps_per_sm,
            occupancy_pct,
            limiter,
            limit_warps,
            limit_registers,
            limit_shared,
            limit_blocks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(p: &Profile, threads: u32, regs: u32, smem: u32) -> Occupancy {
        p.occupancy(threads, regs, smem)
            .unwrap_or_else(|e| panic!("{} {threads}/{regs}/{smem}: {e}", p.name))
    }

    // ---- The documents' examples (000 / 003, compute capability 6.x) ----

    #[test]
    fn sm61_64_regs_512_threads_two_blocks() {
        let o = occ(&Profile::sm_61(), 512, 64, 0);
        assert_eq!(o.blocks_per_sm, 2);
        assert_eq!(o.warps_per_sm, 32);
        assert_eq!(o.limiter, Limiter::Registers);
        assert_eq!(o.limit_registers, 2);
        assert_eq!(o.limit_warps, 4);
        assert_eq!(o.limit_blocks, 32);
        assert_eq!(o.limit_shared, u32::MAX);
        assert_eq!(o.occupancy_pct, 50.0);
    }

    #[test]
    fn sm61_65_regs_512_threads_one_block() {
        let o = occ(&Profile::sm_61(), 512, 65, 0);
        assert_eq!(o.blocks_per_sm, 1);
        assert_eq!(o.warps_per_sm, 16);
        assert_eq!(o.limiter, Limiter::Registers);
        assert_eq!(o.occupancy_pct, 25.0);
    }

    #[test]
    fn sm61_32_thread_blocks_are_limited_by_block_slots() {
        let o = occ(&Profile::sm_61(), 32, 16, 0);
        assert_eq!(o.blocks_per_sm, 32);
        assert_eq!(o.warps_per_sm, 32);
        assert_eq!(o.limiter, Limiter::Blocks);
        assert_eq!(o.limit_warps, 64);
        assert_eq!(o.limit_registers, 128);
        assert_eq!(o.occupancy_pct, 50.0);
    }

    // ---- sm_90 ----

    #[test]
    fn sm90_256_threads_32_regs_is_full() {
        let o = occ(&Profile::sm_90(), 256, 32, 0);
        assert_eq!(o.blocks_per_sm, 8);
        assert_eq!(o.warps_per_sm, 64);
        assert_eq!(o.occupancy_pct, 100.0);
        // Warps and registers both allow 8: the tie goes to the first, warps.
        assert_eq!(o.limit_warps, 8);
        assert_eq!(o.limit_registers, 8);
        assert_eq!(o.limiter, Limiter::Warps);
        // 1 KiB reserved per block is charged even without shared memory: 228 KiB / 1 KiB.
        assert_eq!(o.limit_shared, 228);
    }

    #[test]
    fn shared_memory_limited() {
        // 48 KiB + 1 KiB reserved = 50176 bytes, already a multiple of 128.
        let o = occ(&Profile::sm_90(), 256, 32, 48 * 1024);
        assert_eq!(o.limit_shared, 4);
        assert_eq!(o.blocks_per_sm, 4);
        assert_eq!(o.limiter, Limiter::SharedMemory);
        assert_eq!(o.occupancy_pct, 50.0);
        // A100: 164 KiB / 49 KiB = 3.
        let o = occ(&Profile::sm_80(), 256, 32, 48 * 1024);
        assert_eq!(o.blocks_per_sm, 3);
        assert_eq!(o.limiter, Limiter::SharedMemory);
        // V100: no reserve, 96 KiB / 48 KiB = 2.
        let o = occ(&Profile::sm_70(), 256, 32, 48 * 1024);
        assert_eq!(o.blocks_per_sm, 2);
        assert_eq!(o.warps_per_sm, 16);
        assert_eq!(o.occupancy_pct, 25.0);
    }

    #[test]
    fn shared_memory_granularity_and_reserve() {
        // sm_90: 1 + 1024 rounds up to 1152.
        assert_eq!(Profile::sm_90().smem_allocated_per_block(1), 1152);
        assert_eq!(
            occ(&Profile::sm_90(), 32, 8, 1).limit_shared,
            233_472 / 1152
        );
        // sm_80 with no shared memory still pays the reserved 1 KiB.
        assert_eq!(occ(&Profile::sm_80(), 32, 8, 0).limit_shared, 164);
        // Before sm_80 nothing is charged, so the limit does not apply.
        assert_eq!(occ(&Profile::sm_70(), 32, 8, 0).limit_shared, u32::MAX);
        // sm_70 granularity 256: 257 bytes are charged 512.
        assert_eq!(
            occ(&Profile::sm_70(), 32, 8, 257).limit_shared,
            96 * 1024 / 512
        );
        // sm_13 granularity 512: 4097 bytes are charged 4608 -> 3 blocks.
        let o = occ(&Profile::sm_13(), 64, 8, 4097);
        assert_eq!(o.limit_shared, 3);
        assert_eq!(o.limiter, Limiter::SharedMemory);
        assert_eq!(occ(&Profile::sm_13(), 64, 8, 4096).limit_shared, 4);
    }

    #[test]
    fn opt_in_maximum_is_accepted_exactly() {
        let p = Profile::sm_90();
        let o = occ(&p, 128, 32, p.smem_per_block_optin);
        assert_eq!(o.blocks_per_sm, 1);
        assert_eq!(o.limiter, Limiter::SharedMemory);
        let p = Profile::sm_80();
        assert_eq!(occ(&p, 128, 32, p.smem_per_block_optin).blocks_per_sm, 1);
    }

    #[test]
    fn zero_registers_do_not_limit() {
        let o = occ(&Profile::sm_90(), 1024, 0, 0);
        assert_eq!(o.limit_registers, u32::MAX);
        assert_eq!(o.blocks_per_sm, 2);
        assert_eq!(o.limiter, Limiter::Warps);
    }

    // ---- errors ----

    #[test]
    fn errors() {
        let p = Profile::sm_90();
        assert_eq!(p.occupancy(0, 32, 0), Err(OccupancyError::ZeroBlock));
        assert_eq!(
            p.occupancy(2048, 32, 0),
            Err(OccupancyError::BlockTooLarge {
                threads: 2048,
                max: 1024
            })
        );
        assert_eq!(
            p.occupancy(256, 300, 0),
            Err(OccupancyError::TooManyRegisters {
                regs: 300,
                max: 255
            })
        );
        assert_eq!(
            p.occupancy(256, 32, 227 * 1024 + 1),
            Err(OccupancyError::TooMuchShared {
                bytes: 227 * 1024 + 1,
                max: 227 * 1024
            })
        );
        assert_eq!(
            Profile::sm_61().occupancy(256, 32, 48 * 1024 + 1),
            Err(OccupancyError::TooMuchShared {
                bytes: 48 * 1024 + 1,
                max: 48 * 1024
            })
        );
        assert_eq!(
            Profile::sm_13().occupancy(1024, 8, 0),
            Err(OccupancyError::BlockTooLarge {
                threads: 1024,
                max: 512
            })
        );
    }

    #[test]
    fn registers_that_do_not_fit_one_block() {
        let p = Profile::sm_90();
        // 128 regs x 1024 threads = 131072 > 65536; 64 regs fit exactly (one block).
        assert_eq!(
            p.occupancy(1024, 128, 0),
            Err(OccupancyError::TooManyRegisters { regs: 128, max: 64 })
        );
        let o = occ(&p, 1024, 64, 0);
        assert_eq!(o.blocks_per_sm, 1);
        assert_eq!(o.limiter, Limiter::Registers);
        // The hardware check rounds 9 warps up to 12 (4 sub-partitions): 224 registers would
        // pass the software check (9 x 7168 = 64512) but not the hardware one (12 x 7168).
        assert_eq!(
            p.occupancy(288, 224, 0),
            Err(OccupancyError::TooManyRegisters {
                regs: 224,
                max: 168
            })
        );
        assert_eq!(occ(&p, 288, 168, 0).blocks_per_sm, 1);
    }

    #[test]
    fn fermi_registers() {
        let p = Profile::sm_20();
        assert_eq!(
            p.occupancy(1024, 63, 0),
            Err(OccupancyError::TooManyRegisters { regs: 63, max: 32 })
        );
        assert_eq!(
            p.occupancy(128, 64, 0),
            Err(OccupancyError::TooManyRegisters { regs: 64, max: 63 })
        );
        // 256 threads, 20 regs: 640 regs/warp, 25 warps per sub-partition, 50 per SM -> 6 blocks;
        // the 48 warp slots allow 6 as well.
        let o = occ(&p, 256, 20, 0);
        assert_eq!(o.blocks_per_sm, 6);
        assert_eq!(o.limit_registers, 6);
        assert_eq!(o.occupancy_pct, 100.0);
        // 352 threads (11 warps): 20 regs -> 4 blocks, but 21 regs use the 128-register unit
        // (672 -> 768 per warp, 21 warps per sub-partition) -> 3 blocks.
        assert_eq!(p.reg_alloc_unit_for(21), 128);
        assert_eq!(p.reg_alloc_unit_for(23), 64);
        assert_eq!(occ(&p, 352, 20, 0).blocks_per_sm, 4);
        let o = occ(&p, 352, 21, 0);
        assert_eq!(o.blocks_per_sm, 3);
        assert_eq!(o.limiter, Limiter::Registers);
        assert_eq!(Profile::sm_61().reg_alloc_unit_for(21), 256);
    }

    #[test]
    fn gt200_block_granularity() {
        let p = Profile::sm_13();
        // 96 threads = 3 warps, allocated as 4: 17 x 32 x 4 = 2176 -> 2560 registers per block,
        // 16384 / 2560 = 6 blocks; 18 warps of 32.
        let o = occ(&p, 96, 17, 0);
        assert_eq!(o.limit_registers, 6);
        assert_eq!(o.limit_warps, 8);
        assert_eq!(o.blocks_per_sm, 6);
        assert_eq!(o.warps_per_sm, 18);
        assert_eq!(o.occupancy_pct, 56.25);
        // 256 threads, 16 registers: 4096 per block -> 4 blocks, 32 warps, 100 %.
        let o = occ(&p, 256, 16, 0);
        assert_eq!(o.blocks_per_sm, 4);
        assert_eq!(o.occupancy_pct, 100.0);
        // 512 threads x 33 registers need 17408 > 16384.
        assert_eq!(
            p.occupancy(512, 33, 0),
            Err(OccupancyError::TooManyRegisters { regs: 33, max: 32 })
        );
        // One-warp blocks take two warp slots: 32 / 2 = 16, then 8 block slots bind.
        let o = occ(&p, 32, 4, 0);
        assert_eq!(o.limit_warps, 16);
        assert_eq!(o.blocks_per_sm, 8);
        assert_eq!(o.limiter, Limiter::Blocks);
        assert_eq!(o.occupancy_pct, 25.0);
    }

    #[test]
    fn ok_results_are_consistent_on_every_profile() {
        for p in Profile::all() {
            let mut threads = 1;
            while threads <= p.max_threads_per_block {
                for regs in [0, 1, 16, 24, 32, 40, 63, 64, 96, 128, 200, 255] {
                    for smem in [0, 1, 1000, 4096, 16 * 1024, 40_000, p.smem_per_block_optin] {
                        let Ok(o) = p.occupancy(threads, regs, smem) else {
                            continue;
                        };
                        let min = o
                            .limit_warps
                            .min(o.limit_registers)
                            .min(o.limit_shared)
                            .min(o.limit_blocks);
                        assert!(o.blocks_per_sm >= 1, "{} {o:?}", p.name);
                        assert_eq!(o.blocks_per_sm, min);
                        assert!(o.warps_per_sm <= p.max_warps_per_sm);
                        assert!(o.occupancy_pct > 0.0 && o.occupancy_pct <= 100.0);
                        assert_eq!(
                            o.warps_per_sm,
                            o.blocks_per_sm * threads.div_ceil(p.warp_size)
                        );
                    }
                }
                threads += 31;
            }
        }
    }

    // ---- profiles ----

    #[test]
    fn by_name_variants() {
        for name in ["sm_90", "sm90", "90", "SM_90", "Sm90", " sm_90 "] {
            assert_eq!(
                Profile::by_name(name).map(|p| p.name),
                Some("sm_90"),
                "{name}"
            );
        }
        assert_eq!(Profile::by_name("sm_13").unwrap(), Profile::sm_13());
        assert_eq!(Profile::by_name("20").unwrap().name, "sm_20");
        assert_eq!(Profile::by_name("SM61").unwrap().name, "sm_61");
        assert_eq!(Profile::by_name("sm_70").unwrap().sm_count, 80);
        assert_eq!(Profile::by_name("sm_80").unwrap().sm_count, 108);
        for bad in [
            "", "sm_", "sm", "sm_75", "9", "900", "sm_9o", "h100", "_90", "sm__90",
        ] {
            assert!(Profile::by_name(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn all_is_ordered_and_default_is_sm90() {
        let names: Vec<_> = Profile::all().iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            ["sm_13", "sm_20", "sm_61", "sm_70", "sm_80", "sm_90"]
        );
        assert_eq!(Profile::default(), Profile::sm_90());
        assert_eq!(Profile::sm_90().to_string(), "sm_90 (Hopper (H100 SXM))");
    }

    #[test]
    fn profile_values_are_coherent() {
        for p in Profile::all() {
            let cc = format!("sm_{}{}", p.compute_capability.0, p.compute_capability.1);
            assert_eq!(cc, p.name);
            assert_eq!(p.warp_size, 32);
            assert_eq!(p.max_warps_per_sm * p.warp_size, p.max_threads_per_sm);
            assert!(p.max_threads_per_block <= p.max_threads_per_sm);
            assert!(p.max_block_dim[0] <= p.max_threads_per_block);
            assert!(p.smem_per_block <= p.smem_per_block_optin);
            assert!(p.smem_per_block_optin + p.smem_reserved_per_block <= p.smem_per_sm);
            assert_eq!(p.smem_per_block_optin % p.smem_alloc_granularity, 0);
            assert_eq!(p.regs_per_sm % p.sub_partitions, 0);
            assert!(p.shared_request_lanes <= p.warp_size);
            assert!(p.shared_request_lanes.is_power_of_two() && p.shared_banks.is_power_of_two());
            assert_eq!(
                p.shared_request_lanes * 2 == p.warp_size,
                p.shared_banks == 16
            );
            assert_eq!(p.smem_reserved_per_block > 0, p.compute_capability.0 >= 8);
            assert_eq!(p.max_grid_dim[0] == GRID_X, p.compute_capability.0 >= 3);
        }
        let h100 = Profile::sm_90();
        assert_eq!(h100.smem_per_sm, 233_472);
        assert_eq!(h100.smem_per_block_optin, 232_448);
        assert_eq!(h100.max_grid_dim, [2_147_483_647, 65_535, 65_535]);
        assert_eq!(Profile::sm_20().global_loads, GlobalCaching::L1Lines128);
        assert_eq!(Profile::sm_61().global_loads, GlobalCaching::Sectors32);
        assert_eq!(Profile::sm_13().shared_banks, 16);
        assert_eq!(
            Profile::sm_13().reg_alloc_granularity,
            RegGranularity::Block
        );
    }

    #[test]
    fn display_strings() {
        assert_eq!(Limiter::Warps.to_string(), "warps");
        assert_eq!(Limiter::Registers.to_string(), "registers");
        assert_eq!(Limiter::SharedMemory.to_string(), "shared_memory");
        assert_eq!(Limiter::Blocks.to_string(), "blocks");
        let e = Profile::sm_90().occupancy(2048, 32, 0).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("2048") && msg.contains("1024"), "{msg}");
        let e = Profile::sm_90().occupancy(1024, 128, 0).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("128") && msg.contains("64"), "{msg}");
        let e = Profile::sm_90().occupancy(64, 8, 300_000).unwrap_err();
        assert!(e.to_string().contains("232448"));
        assert!(OccupancyError::ZeroBlock.to_string().contains("at least 1"));
        let o = occ(&Profile::sm_61(), 512, 64, 0);
        assert_eq!(
            o.to_string(),
            "2 blocks/SM, 32 warps/SM, 50.0% occupancy (limited by registers)"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(OccupancyError::ZeroBlock);
        assert!(!boxed.to_string().is_empty());
    }
}
