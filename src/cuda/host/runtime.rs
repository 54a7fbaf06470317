//! What warpsim serves a host program: device memory, kernels and launches on a [`Device`].
//!
//! The [`Runtime`] answers one request at a time (the bridge reads them in order), so device
//! work happens in the order the program issues it. Device addresses are those of warpsim's
//! address space ([`crate::Global::address`]); managed memory lives at its host address. A
//! kernel fault is *sticky*, as on a GPU: the request that ran the kernel and every later one
//! return the fault's `cudaError_t` until `cudaDeviceReset`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use super::program::DeviceCode;
use crate::cuda::ir::texture::{AddressMode, ChannelKind, Filter, Format, ReadMode, Texture};
use crate::cuda::ir::{Kernel, ParamKind, Scalar, TypeName};
use crate::cuda::{self, Arg, Printed};
use crate::{Device, Dim3, Error, Global, LaunchConfig, LaunchReport, Mode};

/// `cudaError_t` values the runtime returns.
pub mod status {
    /// `cudaSuccess`.
    pub const SUCCESS: i32 = 0;
    /// `cudaErrorInvalidValue`.
    pub const INVALID_VALUE: i32 = 1;
    /// `cudaErrorMemoryAllocation`.
    pub const MEMORY_ALLOCATION: i32 = 2;
    /// `cudaErrorInvalidConfiguration`.
    pub const INVALID_CONFIGURATION: i32 = 9;
    /// `cudaErrorInvalidSymbol`.
    pub const INVALID_SYMBOL: i32 = 13;
    /// `cudaErrorInsufficientDriver` (a runtime of another protocol version).
    pub const INSUFFICIENT_DRIVER: i32 = 35;
    /// `cudaErrorDevicesUnavailable` (a second process of the program asks for CUDA).
    pub const DEVICES_UNAVAILABLE: i32 = 46;
    /// `cudaErrorInvalidDeviceFunction`.
    pub const INVALID_DEVICE_FUNCTION: i32 = 98;
    /// `cudaErrorIllegalAddress`.
    pub const ILLEGAL_ADDRESS: i32 = 700;
    /// `cudaErrorLaunchOutOfResources`.
    pub const LAUNCH_OUT_OF_RESOURCES: i32 = 701;
    /// `cudaErrorLaunchTimeout`.
    pub const LAUNCH_TIMEOUT: i32 = 702;
    /// `cudaErrorAssert`.
    pub const ASSERT: i32 = 710;
    /// `cudaErrorMisalignedAddress`.
    pub const MISALIGNED_ADDRESS: i32 = 716;
    /// `cudaErrorLaunchFailure`.
    pub const LAUNCH_FAILURE: i32 = 719;
    /// `cudaErrorCooperativeLaunchTooLarge`.
    pub const COOPERATIVE_LAUNCH_TOO_LARGE: i32 = 720;
    /// `cudaErrorNotSupported`.
    pub const NOT_SUPPORTED: i32 = 801;
}

/// How a program's launches run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// Fast, counting or check mode.
    pub mode: Mode,
    /// Per-line counters (counting modes).
    pub lines: bool,
    /// The tier that runs the kernels.
    pub engine: crate::cuda::Engine,
    /// Each launch's time limit ([`crate::LaunchConfig::timeout`]).
    pub timeout: Option<std::time::Duration>,
    /// Report long launches' progress on stderr ([`crate::LaunchConfig::progress`]).
    pub progress: bool,
    /// What `cudaEventElapsedTime` measures.
    pub event_clock: EventClock,
}

/// What a program's CUDA events measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventClock {
    /// The predicted GPU time of the device work between the two records
    /// ([`crate::predict`]): each counted launch's prediction, copies and memsets at the
    /// profile's DRAM or host-link bandwidth. A launch in fast mode counts nothing to predict
    /// from and adds its CPU time.
    #[default]
    Predicted,
    /// The CPU time warpsim spent on that work.
    Cpu,
}

/// What the runtime reports as it goes, for the caller to show.
#[derive(Debug)]
pub enum Event<'a> {
    /// A kernel faulted; the program sees `code` from now on.
    Fault {
        /// The located error.
        error: &'a Error,
        /// The `cudaError_t` the program gets.
        code: i32,
    },
    /// A kernel the program launches (or asks about) cannot be lowered.
    Refused(&'a cuda::Diagnostic),
    /// A request the runtime refused, with why (a bad pointer, a copy past an allocation).
    Note(String),
    /// A kernel accessed memory a little outside a buffer, and went on as a GPU does
    /// ([`crate::LaunchConfig::tolerate_out_of_bounds`]): once per kernel and source line.
    Outside(&'a crate::error::AccessFault),
}

/// One kernel launch of the program, for the summary.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel, with its template arguments.
    pub kernel: String,
    /// Its translation unit (index of the `.cu` file).
    pub unit: u32,
    /// The launch's counters, findings and time.
    pub report: LaunchReport,
    /// The tier that ran it.
    pub tier: cuda::Tier,
}

/// What an allocation is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// `cudaMalloc`.
    Device,
    /// `cudaMallocManaged`: mirrored at its host address.
    Managed,
    /// A `__constant__` or `__device__` variable.
    Symbol,
}

#[derive(Clone, Debug)]
struct Allocation {
    global: Global<u8>,
    kind: Kind,
}

/// The device side of a running program.
pub struct Runtime<'d> {
    dev: &'d Device,
    code: &'d DeviceCode,
    settings: Settings,
    /// Every allocation by its first address.
    memory: BTreeMap<u64, Allocation>,
    /// Bytes of `memory`'s allocations, kept as they come and go (a `cudaMalloc` costs the
    /// same however many are live).
    used: u64,
    /// The host memory available when the runtime started (device memory lives in it).
    host: u64,
    /// Symbols by (unit, name): their address.
    symbols: HashMap<(u32, String), u64>,
    /// Kernels lowered so far (or why not).
    kernels: HashMap<(u32, String), Result<Arc<Kernel>, ()>>,
    sticky: Option<i32>,
    /// The kernels and source lines an [`Event::Outside`] was reported for.
    outside: std::collections::HashSet<(String, Option<String>)>,
    printed: String,
    /// CPU time of the device work so far.
    cpu: Duration,
    /// Predicted GPU time of the device work so far, seconds.
    gpu: f64,
    timing: crate::predict::Timing,
    allocations: u64,
    /// Texture objects by their handle: the memory each samples, and how.
    textures: HashMap<u64, (Global<u8>, Texture)>,
    /// Texture objects created so far (a handle is never reused).
    textures_made: u64,
    /// Every launch that ran, in order.
    pub launches: Vec<Launch>,
}

/// `cudaCreateTextureObject`'s description as the program sends it: CUDA's enum numbers
/// ([`Op::Texture`](super::protocol::Op::Texture)).
#[derive(Clone, Copy, Debug)]
pub struct TextureRequest {
    /// The device address of texel (0, 0, 0).
    pub address: u64,
    /// `cudaChannelFormatKind`.
    pub kind: u32,
    /// Bits per channel, `x y z w`.
    pub bits: [u32; 4],
    /// Width, height and depth in texels.
    pub extent: [u64; 3],
    /// Bytes per row.
    pub pitch: u64,
    /// Bytes per 2-D slice.
    pub slice: u64,
    /// `cudaTextureAddressMode` per dimension.
    pub modes: [u32; 3],
    /// `cudaTextureFilterMode`.
    pub filter: u32,
    /// `cudaTextureReadMode`.
    pub read: u32,
    /// `normalizedCoords`.
    pub normalized: bool,
    /// Linear memory (`cudaResourceTypeLinear`).
    pub linear: bool,
}

impl TextureRequest {
    /// The texture it describes, or why it describes none.
    fn texture(&self) -> Result<Texture, String> {
        let kind = match self.kind {
            0 => ChannelKind::Signed,
            1 => ChannelKind::Unsigned,
            2 => ChannelKind::Float,
            k => {
                return Err(format!(
                    "channel format kind {k} (cudaChannelFormatKindNone or unknown)"
                ));
            }
        };
        let bits = self.bits.map(|b| u8::try_from(b).unwrap_or(u8::MAX));
        let format = Format::new(bits, kind).ok_or_else(|| {
            format!(
                "channels of {:?} bits: CUDA has 1, 2 or 4 channels of 8, 16 or 32 bits (floats:                  16 or 32)",
                self.bits
            )
        })?;
        let mode = |m: u32| match m {
            0 => Ok(AddressMode::Wrap),
            1 => Ok(AddressMode::Clamp),
            2 => Ok(AddressMode::Mirror),
            3 => Ok(AddressMode::Border),
            m => Err(format!("address mode {m}")),
        };
        let t = Texture {
            format,
            extent: self.extent,
            pitch: self.pitch,
            slice: self.slice,
            address: [
                mode(self.modes[0])?,
                mode(self.modes[1])?,
                mode(self.modes[2])?,
            ],
            filter: match self.filter {
                0 => Filter::Point,
                1 => Filter::Linear,
                f => return Err(format!("filter mode {f}")),
            },
            read: match self.read {
                0 => ReadMode::Element,
                1 => ReadMode::NormalizedFloat,
                r => return Err(format!("read mode {r}")),
            },
            normalized: self.normalized,
            linear: self.linear,
        };
        match t.invalid() {
            Some(why) => Err(why),
            None => Ok(t),
        }
    }
}

/// The sizes of a kernel's parameters, as the program passes them.
fn param_size(k: &Kernel, i: usize) -> u32 {
    match &k.params[i].kind {
        ParamKind::Scalar { ty, .. } => ty.size(),
        ParamKind::Pointer { .. } => 8,
        ParamKind::Struct { size, .. } => *size,
    }
}

impl<'d> Runtime<'d> {
    /// A runtime serving `code` on `dev`, every launch as `settings` say.
    pub fn new(dev: &'d Device, code: &'d DeviceCode, settings: Settings) -> Runtime<'d> {
        Runtime {
            dev,
            code,
            settings,
            memory: BTreeMap::new(),
            used: 0,
            host: crate::memory::available_host_memory().map_or(u64::MAX, |(b, _)| b),
            symbols: HashMap::new(),
            kernels: HashMap::new(),
            sticky: None,
            outside: std::collections::HashSet::new(),
            printed: String::new(),
            cpu: Duration::ZERO,
            gpu: 0.0,
            timing: crate::predict::Timing::of(dev.profile()),
            allocations: 0,
            textures: HashMap::new(),
            textures_made: 0,
            launches: Vec::new(),
        }
    }

    /// The sticky error, if a kernel has faulted.
    pub fn sticky(&self) -> Option<i32> {
        self.sticky
    }

    /// The time of the device work so far (launches and copies) on the clock events read
    /// ([`Settings::event_clock`]).
    pub fn clock(&self) -> Duration {
        match self.settings.event_clock {
            EventClock::Predicted => Duration::from_secs_f64(self.gpu),
            EventClock::Cpu => self.cpu,
        }
    }

    /// Take what kernels printed since the last call (a synchronisation).
    pub fn take_printed(&mut self) -> String {
        std::mem::take(&mut self.printed)
    }

    /// The device properties the program sees: the device's name and `(property, value)`.
    pub fn properties(&self) -> (String, Vec<(&'static str, i64)>) {
        let p = self.dev.profile();
        let (major, minor) = p.compute_capability;
        let v = |x: u32| i64::from(x);
        (
            format!("warpsim {} ({})", p.name, p.description),
            vec![
                ("totalGlobalMem", p.global_mem_bytes as i64),
                ("sharedMemPerBlock", v(p.smem_per_block)),
                ("regsPerBlock", v(p.regs_per_sm)),
                ("warpSize", v(p.warp_size)),
                ("memPitch", i64::from(i32::MAX)),
                ("maxThreadsPerBlock", v(p.max_threads_per_block)),
                ("maxThreadsDim0", v(p.max_block_dim[0])),
                ("maxThreadsDim1", v(p.max_block_dim[1])),
                ("maxThreadsDim2", v(p.max_block_dim[2])),
                ("maxGridSize0", v(p.max_grid_dim[0])),
                ("maxGridSize1", v(p.max_grid_dim[1])),
                ("maxGridSize2", v(p.max_grid_dim[2])),
                ("clockRate", v(p.clock_khz)),
                ("totalConstMem", 65_536),
                ("major", v(major)),
                ("minor", v(minor)),
                ("multiProcessorCount", v(p.sm_count)),
                ("memoryClockRate", v(p.mem_clock_khz)),
                ("memoryBusWidth", v(p.mem_bus_bits)),
                ("l2CacheSize", v(p.l2_bytes)),
                ("persistingL2CacheMaxSize", v(p.l2_bytes) * 5 / 8),
                ("maxThreadsPerMultiProcessor", v(p.max_threads_per_sm)),
                // As an H100 reports them (233472 and 232448): the profile's own numbers, which
                // launches are held to.
                ("sharedMemPerMultiprocessor", v(p.smem_per_sm)),
                ("regsPerMultiprocessor", v(p.regs_per_sm)),
                ("sharedMemPerBlockOptin", v(p.smem_per_block_optin)),
                ("maxBlocksPerMultiProcessor", v(p.max_blocks_per_sm)),
                ("reservedSharedMemPerBlock", v(p.smem_reserved_per_block)),
            ],
        )
    }

    /// Free and total device memory: the profile's memory, bounded by the host memory that
    /// was available at the start less what the program holds.
    pub fn mem_info(&self) -> (u64, u64) {
        let total = self.dev.profile().global_mem_bytes;
        let free = total.min(self.host).saturating_sub(self.used);
        (free, total)
    }

    /// Keep `a` at `address` (its bytes counted as used).
    fn hold(&mut self, address: u64, a: Allocation) {
        self.used += a.global.len() as u64;
        if let Some(old) = self.memory.insert(address, a) {
            self.used -= old.global.len() as u64;
        }
    }

    /// The allocation holding `bytes` bytes from `address`: the buffer and the offset in it.
    fn resolve(&self, address: u64, bytes: u64) -> Option<(&Allocation, usize)> {
        let (base, a) = self.memory.range(..=address).next_back()?;
        let off = address - base;
        let len = a.global.len() as u64;
        (off.checked_add(bytes)? <= len && (off < len || bytes == 0)).then_some((a, off as usize))
    }

    /// Why `bytes` bytes at `address` are not device memory, for a note.
    fn explain(&self, what: &str, address: u64, bytes: u64) -> String {
        match self.memory.range(..=address).next_back() {
            Some((base, a)) if address - base < a.global.len() as u64 => format!(
                "{what}: {bytes} bytes at {address:#x} run past the end of `{}` ({} bytes from \
                 {base:#x})",
                a.global.name(),
                a.global.len()
            ),
            _ => format!(
                "{what}: {address:#x} is not device memory (no allocation holds it); pass a \
                 pointer from cudaMalloc"
            ),
        }
    }

    /// The device pointer in the first 8 bytes of `bytes`, as a launch argument: the
    /// allocation it points into, or no buffer.
    fn pointer_arg(&self, bytes: &[u8]) -> Arg {
        let address = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        match self.resolve(address, 0) {
            Some((a, off)) => Arg::Buffer(a.global.slice(off..)),
            None => Arg::NoBuffer(address),
        }
    }

    /// The status of a request made after a kernel faulted.
    fn check_sticky(&self) -> Result<(), i32> {
        match self.sticky {
            Some(code) => Err(code),
            None => Ok(()),
        }
    }

    fn would_fit(&self, bytes: u64) -> bool {
        let (free, _) = self.mem_info();
        bytes <= free
    }

    /// `cudaMalloc`: the new allocation's address.
    pub fn malloc(&mut self, bytes: u64, events: &mut dyn FnMut(Event<'_>)) -> Result<u64, i32> {
        self.check_sticky()?;
        if !self.would_fit(bytes) || usize::try_from(bytes).is_err() {
            events(Event::Note(format!(
                "cudaMalloc: {bytes} bytes do not fit the memory available"
            )));
            return Err(status::MEMORY_ALLOCATION);
        }
        self.allocations += 1;
        let name = format!("cudaMalloc#{}", self.allocations);
        loop {
            let g = if self.settings.mode == Mode::Check {
                self.dev.alloc_uninit::<u8>(&name, bytes as usize)
            } else {
                self.dev.alloc_zeroed::<u8>(&name, bytes as usize)
            };
            let a = g.address();
            // Managed memory sits at host addresses: never hand out an address it covers.
            if self.overlaps(a, bytes) {
                continue;
            }
            self.hold(
                a,
                Allocation {
                    global: g,
                    kind: Kind::Device,
                },
            );
            return Ok(a);
        }
    }

    fn overlaps(&self, address: u64, bytes: u64) -> bool {
        let end = address.saturating_add(bytes.max(1));
        self.memory
            .range(..end)
            .next_back()
            .is_some_and(|(b, a)| b + (a.global.len() as u64).max(1) > address)
    }

    /// `cudaMallocManaged`: device memory mirrored at the program's host address.
    pub fn managed(
        &mut self,
        address: u64,
        bytes: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), i32> {
        self.check_sticky()?;
        if !self.would_fit(bytes) || usize::try_from(bytes).is_err() {
            events(Event::Note(format!(
                "cudaMallocManaged: {bytes} bytes do not fit the memory available"
            )));
            return Err(status::MEMORY_ALLOCATION);
        }
        if address == 0 || self.overlaps(address, bytes) {
            events(Event::Note(format!(
                "cudaMallocManaged: host memory at {address:#x} overlaps device memory"
            )));
            return Err(status::MEMORY_ALLOCATION);
        }
        self.allocations += 1;
        let name = format!("cudaMallocManaged#{}", self.allocations);
        let g = self
            .dev
            .alloc_at::<u8>(&name, address, bytes as usize, false, false);
        self.hold(
            address,
            Allocation {
                global: g,
                kind: Kind::Managed,
            },
        );
        Ok(())
    }

    /// `cudaFree`.
    pub fn free(&mut self, address: u64, events: &mut dyn FnMut(Event<'_>)) -> Result<(), i32> {
        self.check_sticky()?;
        match self.memory.get(&address) {
            Some(a) if a.kind != Kind::Symbol => {
                self.used -= a.global.len() as u64;
                self.memory.remove(&address);
                Ok(())
            }
            _ => {
                // CUDA 10.1 and later answer cudaErrorInvalidValue (10.0: InvalidDevicePointer).
                events(Event::Note(format!(
                    "cudaFree: {address:#x} is not the start of a live allocation (freed \
                     already, inside one, or never allocated)"
                )));
                Err(status::INVALID_VALUE)
            }
        }
    }

    /// `cudaCreateTextureObject`: the new object's handle.
    pub fn create_texture(
        &mut self,
        r: &TextureRequest,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<u64, i32> {
        self.check_sticky()?;
        let mut refuse = |why: String| {
            events(Event::Note(format!("cudaCreateTextureObject: {why}")));
            status::INVALID_VALUE
        };
        let t = r.texture().map_err(&mut refuse)?;
        let Some((a, off)) = self.resolve(r.address, t.bytes()) else {
            let why = self.explain("its memory", r.address, t.bytes());
            return Err(refuse(why));
        };
        let memory = a.global.slice(off..off + t.bytes() as usize);
        self.textures_made += 1;
        self.textures.insert(self.textures_made, (memory, t));
        Ok(self.textures_made)
    }

    /// `cudaDestroyTextureObject`.
    pub fn destroy_texture(
        &mut self,
        handle: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), i32> {
        match self.textures.remove(&handle) {
            Some(_) => Ok(()),
            None if handle == 0 => Ok(()),
            None => {
                events(Event::Note(format!(
                    "cudaDestroyTextureObject: {handle} is not a texture object"
                )));
                Err(status::INVALID_VALUE)
            }
        }
    }

    /// `cudaMemset`.
    pub fn memset(
        &mut self,
        address: u64,
        value: u8,
        bytes: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), i32> {
        self.check_sticky()?;
        let start = std::time::Instant::now();
        let (a, off) = self.resolve(address, bytes).ok_or_else(|| {
            events(Event::Note(self.explain("cudaMemset", address, bytes)));
            status::INVALID_VALUE
        })?;
        a.global.fill_bytes(off, bytes as usize, value);
        self.cpu += start.elapsed();
        self.gpu += self.timing.memset_s(bytes);
        Ok(())
    }

    /// `cudaMemcpy` from device to device.
    pub fn copy(
        &mut self,
        dst: u64,
        src: u64,
        bytes: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), i32> {
        self.check_sticky()?;
        let start = std::time::Instant::now();
        let (s, so) = self.resolve(src, bytes).ok_or_else(|| {
            events(Event::Note(self.explain("cudaMemcpy (source)", src, bytes)));
            status::INVALID_VALUE
        })?;
        let mut buf = vec![0u8; bytes as usize];
        s.global.read_bytes(so, &mut buf);
        let (d, dof) = self.resolve(dst, bytes).ok_or_else(|| {
            events(Event::Note(self.explain(
                "cudaMemcpy (destination)",
                dst,
                bytes,
            )));
            status::INVALID_VALUE
        })?;
        d.global.write_bytes(dof, &buf);
        self.cpu += start.elapsed();
        self.gpu += self.timing.device_copy_s(bytes);
        Ok(())
    }

    /// The buffer and offset a host-to-device or device-to-host copy of `bytes` at `address`
    /// touches; the bridge moves the bytes chunk by chunk through its staging file.
    pub fn transfer(
        &self,
        what: &str,
        address: u64,
        bytes: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(Global<u8>, usize), i32> {
        self.check_sticky()?;
        match self.resolve(address, bytes) {
            Some((a, off)) => Ok((a.global.clone(), off)),
            None => {
                events(Event::Note(self.explain(what, address, bytes)));
                Err(status::INVALID_VALUE)
            }
        }
    }

    /// Add a host copy of `bytes` that took `d` of CPU time to the clocks.
    pub fn spent(&mut self, d: Duration, bytes: u64) {
        self.cpu += d;
        self.gpu += self.timing.host_copy_s(bytes);
    }

    /// The kernel `name` of unit `unit`, lowered once.
    fn kernel(
        &mut self,
        unit: u32,
        name: &str,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<Arc<Kernel>, i32> {
        let key = (unit, name.to_string());
        if let Some(k) = self.kernels.get(&key) {
            return k.clone().map_err(|_| status::INVALID_DEVICE_FUNCTION);
        }
        let r = match self.code.lower(unit, name) {
            Ok(k) => Ok(Arc::new(k)),
            Err(d) => {
                events(Event::Refused(&d));
                Err(())
            }
        };
        self.kernels.insert(key, r.clone());
        r.map_err(|_| status::INVALID_DEVICE_FUNCTION)
    }

    /// `cudaFuncGetAttributes` and the parameter sizes the program packs arguments by:
    /// sizes, then static shared, constant and local bytes, threads per block, registers, PTX
    /// and binary versions.
    pub fn kernel_info(
        &mut self,
        unit: u32,
        name: &str,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(Vec<u32>, [i64; 7]), i32> {
        let k = self.kernel(unit, name, events)?;
        let sizes = (0..k.params.len()).map(|i| param_size(&k, i)).collect();
        let shared: u32 = k.shared.iter().map(|s| s.bytes).sum();
        let local: u32 = k.locals.iter().map(|l| l.ty.size() * l.len).sum();
        let p = self.dev.profile();
        let arch = i64::from(p.compute_capability.0 * 10 + p.compute_capability.1);
        Ok((
            sizes,
            [
                i64::from(shared),
                0,
                i64::from(local),
                i64::from(p.max_threads_per_block),
                32,
                arch,
                arch,
            ],
        ))
    }

    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`: blocks of `threads` threads with
    /// `dynamic` bytes of dynamic shared memory resident on one SM (0 if they cannot run).
    pub fn occupancy(
        &mut self,
        unit: u32,
        name: &str,
        threads: u32,
        dynamic: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<u32, i32> {
        let k = self.kernel(unit, name, events)?;
        let shared = k.shared.iter().map(|s| u64::from(s.bytes)).sum::<u64>() + dynamic;
        let shared = u32::try_from(shared).unwrap_or(u32::MAX);
        Ok(self
            .dev
            .profile()
            .occupancy(threads, 32, shared)
            .map_or(0, |o| o.blocks_per_sm))
    }

    /// `cudaGetSymbolAddress`: the address and size of a `__constant__`/`__device__` variable,
    /// allocated (and initialised) at first use.
    pub fn symbol(
        &mut self,
        unit: u32,
        name: &str,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(u64, u64), i32> {
        self.check_sticky()?;
        let key = (unit, name.to_string());
        if let Some(&a) = self.symbols.get(&key) {
            let len = self.memory.get(&a).map_or(0, |x| x.global.len() as u64);
            return Ok((a, len));
        }
        let (init, constant) = match self.code.symbol(unit, name) {
            Ok(Some(s)) => s,
            Ok(None) => {
                events(Event::Note(format!(
                    "`{name}` is not a __constant__ or __device__ variable of the program's \
                     device code"
                )));
                return Err(status::INVALID_SYMBOL);
            }
            Err(d) => {
                events(Event::Refused(&d));
                return Err(status::INVALID_SYMBOL);
            }
        };
        let g = if constant {
            self.dev.alloc_constant(name, &init)
        } else {
            self.dev.alloc_from(name, &init)
        };
        let a = g.address();
        self.hold(
            a,
            Allocation {
                global: g,
                kind: Kind::Symbol,
            },
        );
        self.symbols.insert(key, a);
        Ok((a, init.len() as u64))
    }

    /// Run a kernel: `args` are the program's argument bytes, one blob per parameter;
    /// `cooperative`: launched with `cudaLaunchCooperativeKernel`.
    #[allow(clippy::too_many_arguments)]
    pub fn launch(
        &mut self,
        unit: u32,
        name: &str,
        (grid, block): (Dim3, Dim3),
        dynamic_shared: u64,
        cooperative: bool,
        args: &[Vec<u8>],
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), i32> {
        self.check_sticky()?;
        let k = self.kernel(unit, name, events)?;
        if args.len() != k.params.len()
            || args
                .iter()
                .enumerate()
                .any(|(i, a)| a.len() != param_size(&k, i) as usize)
        {
            events(Event::Note(format!(
                "a launch of `{}` passed {} argument(s) of the wrong sizes",
                k.name,
                args.len()
            )));
            return Err(status::INVALID_VALUE);
        }
        let mut bound = Vec::with_capacity(args.len());
        for (p, bytes) in k.params.iter().zip(args) {
            bound.push(match &p.kind {
                ParamKind::Pointer {
                    elem: TypeName::Texture,
                    ..
                } => {
                    let handle = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
                    let Some((memory, texture)) = self.textures.get(&handle) else {
                        events(Event::Note(format!(
                            "a launch of `{}` passed {handle} for `{}`, which is no texture \
                             object (cudaCreateTextureObject makes them; a destroyed one is gone)",
                            k.name, p.name
                        )));
                        return Err(status::INVALID_VALUE);
                    };
                    Arg::Texture {
                        memory: memory.clone(),
                        texture: *texture,
                    }
                }
                ParamKind::Scalar { ty, .. } => scalar_arg(*ty, bytes),
                ParamKind::Pointer { .. } => self.pointer_arg(bytes),
                ParamKind::Struct { pointers, .. } if !pointers.is_empty() => Arg::Struct {
                    bytes: bytes.clone(),
                    pointers: pointers
                        .iter()
                        .map(|fp| self.pointer_arg(&bytes[fp.at as usize..]))
                        .collect(),
                },
                ParamKind::Struct { .. } => Arg::Bytes(bytes.clone()),
            });
        }
        let Ok(smem) = u32::try_from(dynamic_shared) else {
            return Err(status::INVALID_CONFIGURATION);
        };
        let mut cfg = LaunchConfig::new(grid, block)
            .name(&k.name)
            .mode(self.settings.mode)
            .engine(self.settings.engine)
            .dynamic_shared(smem)
            .cooperative(cooperative)
            .tolerate_out_of_bounds(true)
            .lines(self.settings.lines && self.settings.mode != Mode::Fast);
        cfg.timeout = self.settings.timeout;
        cfg.progress = self.settings.progress;
        let (globals, references) = self.globals(unit, &k, events)?;
        match cuda::launch_with(self.dev, &k, &cfg, &bound, &globals, &references) {
            Ok(r) => {
                self.cpu += r.launch.elapsed;
                self.gpu += r
                    .launch
                    .predicted()
                    .map_or(r.launch.elapsed.as_secs_f64(), |p| p.ms / 1e3);
                self.print(&r.printed);
                for o in &r.outside {
                    if self.outside.insert((o.kernel.clone(), o.location.clone())) {
                        events(Event::Outside(o));
                    }
                }
                // An access outside memory stops the kernel under compute-sanitizer's memcheck
                // too: the program sees the launch fail, and every call after it.
                let memcheck = r.launch.findings.iter().any(|f| {
                    matches!(
                        f.kind,
                        crate::check::Kind::OutOfBounds | crate::check::Kind::Misaligned
                    )
                });
                self.launches.push(Launch {
                    kernel: k.name.clone(),
                    unit,
                    report: r.launch,
                    tier: r.tier,
                });
                if memcheck {
                    self.sticky = Some(status::LAUNCH_FAILURE);
                    return Err(status::LAUNCH_FAILURE);
                }
                Ok(())
            }
            Err(e) => {
                let code = match &e {
                    Error::InvalidLaunch { .. } => status::INVALID_CONFIGURATION,
                    Error::CooperativeLaunchTooLarge { .. } => status::COOPERATIVE_LAUNCH_TOO_LARGE,
                    Error::SharedMemory { .. } => status::LAUNCH_OUT_OF_RESOURCES,
                    Error::OutOfBounds(_) | Error::InvalidAddress(_) => status::ILLEGAL_ADDRESS,
                    Error::Misaligned(_) => status::MISALIGNED_ADDRESS,
                    // A failed assert() is cudaErrorAssert; __trap(), a per-thread array indexed
                    // out of bounds and the rest are an unspecified launch failure.
                    Error::KernelPanic { message, .. } if message.starts_with("assertion `") => {
                        status::ASSERT
                    }
                    Error::Timeout { .. } => status::LAUNCH_TIMEOUT,
                    Error::Unsupported { .. } => status::NOT_SUPPORTED,
                    _ => status::LAUNCH_FAILURE,
                };
                events(Event::Fault { error: &e, code });
                // A configuration the device refuses runs nothing; a fault is sticky.
                if !matches!(
                    e,
                    Error::InvalidLaunch { .. }
                        | Error::CooperativeLaunchTooLarge { .. }
                        | Error::SharedMemory { .. }
                        | Error::Unsupported { .. }
                ) {
                    self.sticky = Some(code);
                }
                Err(code)
            }
        }
    }

    /// The buffers of the `__constant__`/`__device__` variables kernel `k` uses, and the
    /// texture objects bound to its texture references: each holds its object's handle, which
    /// `cudaBindTexture` and the others write (0 when unbound).
    fn globals(
        &mut self,
        unit: u32,
        k: &Kernel,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<Globals, i32> {
        let (mut out, mut references) = (Vec::with_capacity(k.globals.len()), Vec::new());
        for g in &k.globals {
            let (a, _) = self.symbol(unit, &g.name, events)?;
            let memory = self.memory[&a].global.clone();
            let mut handle = [0u8; 8];
            if g.texture {
                memory.read_bytes(0, &mut handle);
            }
            // Handle 0 is no texture object: an unbound reference, or any other variable.
            let bound = self.textures.get(&u64::from_le_bytes(handle));
            references.push(bound.map(|(memory, texture)| Arg::Texture {
                memory: memory.clone(),
                texture: *texture,
            }));
            out.push(memory);
        }
        Ok((out, references))
    }

    fn print(&mut self, printed: &[Printed]) {
        for p in printed {
            self.printed.push_str(&p.text);
        }
    }

    /// `cudaDeviceReset`: every allocation freed, the sticky error cleared.
    pub fn reset(&mut self) {
        self.memory.clear();
        self.used = 0;
        self.symbols.clear();
        self.textures.clear();
        self.sticky = None;
    }
}

/// A kernel's `__constant__`/`__device__` variables and texture references as
/// [`cuda::launch_with`] takes them: their memory, and the texture object bound to each
/// reference.
type Globals = (Vec<Global<u8>>, Vec<Option<Arg>>);

/// A scalar argument from its bytes.
fn scalar_arg(ty: Scalar, bytes: &[u8]) -> Arg {
    let mut raw = [0u8; 8];
    raw[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    let bits = u64::from_le_bytes(raw);
    match ty {
        Scalar::F32 => Arg::Float(f64::from(f32::from_bits(bits as u32))),
        Scalar::F64 => Arg::Float(f64::from_bits(bits)),
        Scalar::Bool => Arg::Int(i128::from(bits & 0xff != 0)),
        Scalar::I8 => Arg::Int(i128::from(bits as i8)),
        Scalar::U8 => Arg::Int(i128::from(bits as u8)),
        Scalar::I16 => Arg::Int(i128::from(bits as i16)),
        Scalar::U16 => Arg::Int(i128::from(bits as u16)),
        Scalar::I32 => Arg::Int(i128::from(bits as i32)),
        Scalar::U32 => Arg::Int(i128::from(bits as u32)),
        Scalar::I64 => Arg::Int(i128::from(bits as i64)),
        Scalar::U64 => Arg::Int(i128::from(bits)),
    }
}
