//! Errors: every way a launch can fail, as values.
//!
//! A GPU reports a bad launch configuration, an illegal address or a trap as an error code and
//! (with compute-sanitizer) a message naming the thread. warpsim does the same for everything a
//! kernel written against the public API can do wrong: the launch stops, [`crate::Device::launch`]
//! returns an [`Error`] whose fields name the kernel, block, thread and address, and the device
//! stays usable. When several blocks fail, the one with the lowest linear index is reported, so
//! the error is the same for any number of CPU threads.

use crate::geometry::Dim3;
use std::fmt;

/// The memory space of a faulting access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Device (global) memory: [`crate::Global`].
    Global,
    /// A block's shared memory: [`crate::Shared`].
    Shared,
}

/// What a faulting access was doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// An atomic read-modify-write.
    Atomic,
}

/// One faulting memory access: who, where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessFault {
    /// The kernel's name (from [`crate::LaunchConfig::name`]).
    pub kernel: String,
    /// The faulting thread's block index.
    pub block: Dim3,
    /// The faulting thread's index within its block.
    pub thread: Dim3,
    /// Global or shared memory.
    pub space: Space,
    /// Load, store or atomic.
    pub access: AccessKind,
    /// The buffer's name.
    pub buffer: String,
    /// The element index the thread used (a negative one from 64-bit arithmetic as its two's
    /// complement).
    pub index: u64,
    /// The number of elements in the buffer (or view).
    pub len: u64,
    /// The byte address the thread touched (device address for global memory, offset in the
    /// block's shared memory for shared).
    pub address: u64,
    /// Size of the accessed element in bytes.
    pub elem_bytes: u32,
    /// The kernel source location of the access (`file:line:col`), when it is known.
    pub location: Option<String>,
}

impl AccessFault {
    /// What a launch that tolerates accesses a little outside a buffer
    /// ([`crate::LaunchConfig::tolerate_out_of_bounds`]) says of one it went on after.
    pub fn outside_note(&self) -> String {
        format!(
            "{access} of {space} buffer `{buf}` outside its {n} elements in kernel `{k}`{loc}: \
             block {b}, thread {t}: index {i}{signed} (address {addr:#x}, {sz} bytes); a GPU \
             does not fault this close to an allocation, and warpsim went on ({what}); \
             --check reports every such access, as compute-sanitizer's memcheck does",
            access = access_name(self.access),
            space = space_name(self.space),
            buf = self.buffer,
            n = self.len,
            k = self.kernel,
            loc = at(&self.location),
            b = self.block,
            t = self.thread,
            i = index_text(self.index),
            signed = as_signed(self.index),
            addr = self.address,
            sz = self.elem_bytes,
            what = match self.access {
                AccessKind::Load => "the load read the allocation's zeroed padding",
                _ => "the write went to the allocation's padding, not to another allocation",
            },
        )
    }
}

/// Everything that can go wrong in a launch.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The launch cannot start as asked (a limit of the device profile, arguments that do not
    /// fit the kernel's parameters, …); nothing ran.
    InvalidLaunch {
        /// The kernel's name.
        kernel: String,
        /// What is wrong, with the values, and what to do.
        reason: String,
    },
    /// A cooperative launch ([`crate::LaunchConfig::cooperative`]) has more blocks than the
    /// device holds at once (`cudaErrorCooperativeLaunchTooLarge`); nothing ran.
    CooperativeLaunchTooLarge {
        /// The kernel's name.
        kernel: String,
        /// Blocks in the grid.
        blocks: u64,
        /// Blocks of this size the device holds at once: blocks per SM times SMs.
        resident: u64,
    },
    /// A thread accessed an element outside its buffer.
    OutOfBounds(Box<AccessFault>),
    /// A thread accessed an address that is not a multiple of the element size.
    Misaligned(Box<AccessFault>),
    /// A thread accessed memory through a pointer that points into no allocation (a null
    /// pointer, or a host address passed to a kernel); `buffer` names the pointer.
    InvalidAddress(Box<AccessFault>),
    /// A block's shared memory did not fit or its declarations disagreed between warps.
    SharedMemory {
        /// The kernel's name.
        kernel: String,
        /// The block.
        block: Dim3,
        /// What happened.
        reason: String,
    },
    /// A barrier or warp intrinsic was used where it is not allowed.
    BarrierMisuse {
        /// The kernel's name.
        kernel: String,
        /// The block.
        block: Dim3,
        /// The warp within the block.
        warp: u32,
        /// What was wrong.
        reason: String,
        /// The kernel source location of the barrier (`file:line:col`), when it is known.
        location: Option<String>,
    },
    /// A warp intrinsic got an argument CUDA does not define (e.g. a shuffle width that is not a
    /// power of two).
    InvalidArgument {
        /// The kernel's name.
        kernel: String,
        /// The block.
        block: Dim3,
        /// The warp within the block.
        warp: u32,
        /// What was wrong.
        reason: String,
    },
    /// The launch ran past its time limit ([`crate::LaunchConfig::timeout`]): a block was still
    /// looping when the watchdog fired, or blocks were still to start.
    Timeout {
        /// The kernel's name.
        kernel: String,
        /// The block that was stopped, or the first not started.
        block: Dim3,
        /// The limit, in seconds.
        seconds: f64,
        /// Whether the block was stopped in a loop (else the grid still had blocks to start).
        looping: bool,
        /// The loop it was in (`file:line:col`), when known.
        location: Option<String>,
    },
    /// The launch asked for something this build cannot do (the compiled tier for a kernel it
    /// does not compile); nothing ran.
    Unsupported {
        /// The kernel's name.
        kernel: String,
        /// What, and what to do instead.
        reason: String,
    },
    /// Kernel code panicked (an `unwrap`, an index out of range in host-side Rust code, ...).
    KernelPanic {
        /// The kernel's name.
        kernel: String,
        /// The block.
        block: Dim3,
        /// The panic message.
        message: String,
        /// Where the panic happened, if known (`file:line:column`).
        location: Option<String>,
    },
}

impl Error {
    /// The kernel the error belongs to.
    pub fn kernel(&self) -> &str {
        match self {
            Error::InvalidLaunch { kernel, .. }
            | Error::CooperativeLaunchTooLarge { kernel, .. }
            | Error::SharedMemory { kernel, .. }
            | Error::BarrierMisuse { kernel, .. }
            | Error::InvalidArgument { kernel, .. }
            | Error::Timeout { kernel, .. }
            | Error::Unsupported { kernel, .. }
            | Error::KernelPanic { kernel, .. } => kernel,
            Error::OutOfBounds(f) | Error::Misaligned(f) | Error::InvalidAddress(f) => &f.kernel,
        }
    }

    /// The block the error happened in, if it happened in one.
    pub fn block(&self) -> Option<Dim3> {
        match self {
            Error::InvalidLaunch { .. }
            | Error::CooperativeLaunchTooLarge { .. }
            | Error::Unsupported { .. } => None,
            Error::SharedMemory { block, .. }
            | Error::BarrierMisuse { block, .. }
            | Error::InvalidArgument { block, .. }
            | Error::Timeout { block, .. }
            | Error::KernelPanic { block, .. } => Some(*block),
            Error::OutOfBounds(f) | Error::Misaligned(f) | Error::InvalidAddress(f) => {
                Some(f.block)
            }
        }
    }
}

/// ` (-128 as a signed 32-bit index)` for an index that is one read as unsigned (indices are
/// 32-bit: a negative `int` index shows as a large unsigned one), else nothing.
pub(crate) fn as_signed(index: u64) -> String {
    match u32::try_from(index).map(|i| i as i32) {
        Ok(i) if i < 0 => format!(" ({i} as a signed 32-bit index)"),
        _ => String::new(),
    }
}

/// An index as a CUDA programmer wrote it: one that is negative in 64 bits came from 64-bit
/// arithmetic (a pointer before its buffer, a `long` index) and is shown signed.
pub(crate) fn index_text(index: u64) -> String {
    match index as i64 {
        i if i < 0 => i.to_string(),
        _ => index.to_string(),
    }
}

/// ` at FILE:LINE:COL`, or nothing when the location is unknown.
fn at(location: &Option<String>) -> String {
    location
        .as_ref()
        .map_or(String::new(), |l| format!(" at {l}"))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidLaunch { kernel, reason } => write!(
                f,
                "invalid launch configuration for kernel `{kernel}`: {reason}"
            ),
            Error::CooperativeLaunchTooLarge {
                kernel,
                blocks,
                resident,
            } => write!(
                f,
                "cooperative launch of kernel `{kernel}` with {blocks} blocks: the device holds \
                 {resident} such blocks at once, and every block of a cooperative launch must \
                 be resident; size the grid with cudaOccupancyMaxActiveBlocksPerMultiprocessor \
                 times the SM count"
            ),
            Error::OutOfBounds(a) => write!(
                f,
                "out-of-bounds {access} of {space} buffer `{buf}` in kernel `{k}`{loc}: \
                 block {b}, thread {t}: index {i}{signed} but the buffer has {n} elements \
                 (address {addr:#x}, {sz} bytes); {hint}",
                hint = if a.space == Space::Shared && a.len == 0 {
                    "an extern shared array gets its size at launch: pass the dynamic shared \
                     size (`LaunchConfig::dynamic_shared`, `--smem BYTES` for `warpsim cu`)"
                } else {
                    "guard the access with a bounds check"
                },
                access = access_name(a.access),
                space = space_name(a.space),
                buf = a.buffer,
                k = a.kernel,
                loc = at(&a.location),
                b = a.block,
                t = a.thread,
                i = index_text(a.index),
                signed = if a.len <= i32::MAX as u64 {
                    as_signed(a.index)
                } else {
                    String::new()
                },
                n = a.len,
                addr = a.address,
                sz = a.elem_bytes,
            ),
            Error::InvalidAddress(a) => write!(
                f,
                "invalid {access} in kernel `{k}`{loc}: block {b}, thread {t}: address {addr:#x} \
                 (through {buf}) is in no device allocation; pass a device pointer (from \
                 cudaMalloc) or guard the access",
                access = access_name(a.access),
                k = a.kernel,
                loc = at(&a.location),
                b = a.block,
                t = a.thread,
                addr = a.address,
                buf = a.buffer,
            ),
            Error::Misaligned(a) => write!(
                f,
                "misaligned {access} of {space} buffer `{buf}` in kernel `{k}`{loc}: \
                 block {b}, thread {t}: address {addr:#x} is not a multiple of the \
                 {sz}-byte element size (index {i}); align the view or access smaller elements",
                access = access_name(a.access),
                space = space_name(a.space),
                buf = a.buffer,
                k = a.kernel,
                loc = at(&a.location),
                b = a.block,
                t = a.thread,
                addr = a.address,
                sz = a.elem_bytes,
                i = a.index,
            ),
            Error::SharedMemory {
                kernel,
                block,
                reason,
            } => write!(
                f,
                "shared memory in kernel `{kernel}`, block {block}: {reason}"
            ),
            Error::BarrierMisuse {
                kernel,
                block,
                warp,
                reason,
                location,
            } => write!(
                f,
                "barrier misuse in kernel `{kernel}`{}, block {block}, warp {warp}: {reason}",
                at(location)
            ),
            Error::InvalidArgument {
                kernel,
                block,
                warp,
                reason,
            } => write!(
                f,
                "invalid argument in kernel `{kernel}`, block {block}, warp {warp}: {reason}"
            ),
            Error::Timeout {
                kernel,
                block,
                seconds,
                looping: true,
                location,
            } => write!(
                f,
                "kernel `{kernel}` did not finish within {seconds} s: block {block} was still \
                 looping{}; look for a loop that never ends, or allow more time (--timeout)",
                at(location)
            ),
            Error::Timeout {
                kernel,
                block,
                seconds,
                looping: false,
                ..
            } => write!(
                f,
                "kernel `{kernel}` did not finish within {seconds} s: its grid still had blocks \
                 to run (block {block} among them); launch fewer blocks, or allow more time \
                 (--timeout)"
            ),
            Error::Unsupported { kernel, reason } => {
                write!(f, "kernel `{kernel}` cannot run as asked: {reason}")
            }
            Error::KernelPanic {
                kernel,
                block,
                message,
                location,
            } => {
                write!(f, "kernel `{kernel}` stopped in block {block}: {message}")?;
                if let Some(loc) = location {
                    write!(f, " (at {loc})")?;
                }
                Ok(())
            }
        }
    }
}

fn access_name(a: AccessKind) -> &'static str {
    match a {
        AccessKind::Load => "load",
        AccessKind::Store => "store",
        AccessKind::Atomic => "atomic",
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Shared => "shared",
    }
}

impl std::error::Error for Error {}

/// What to do about a launch over the device's limits.
pub(crate) const LIMITS: &str = "change the grid/block/shared size or pick another device profile";

impl From<crate::profile::OccupancyError> for Error {
    fn from(e: crate::profile::OccupancyError) -> Error {
        Error::InvalidLaunch {
            kernel: String::new(),
            reason: format!("{e} ({LIMITS})"),
        }
    }
}
