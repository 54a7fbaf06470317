//! Whole CUDA programs: `main` and its host code run as written, their device work on warpsim.
//!
//! # The model
//!
//! nvcc compiles a `.cu` file in two passes; so does warpsim. The **device pass** is warpsim's
//! front-end: each `.cu` file is one translation unit ([`program::DeviceCode`]) whose kernels
//! are lowered when the program first launches or asks about them. The **host pass** is the
//! system C++ compiler ([`build`]): each file is split with the same parser
//! ([`crate::cuda::front::split`]) so that kernels become stubs that call `cudaLaunchKernel`,
//! device-only functions disappear and `<<<>>>` becomes a call, and the result is compiled
//! against the CUDA runtime warpsim ships (`runtime/`, headers standing in for the toolkit's),
//! and cached by content.
//!
//! The built program runs as a **child process** of warpsim ([`bridge`]), with its own stdin,
//! stdout, stderr and exit status, and lasts as long as it: warpsim returns when the program
//! exits (even while processes it started run on), passes its stop signals on to it, and the
//! program dies with a killed warpsim. Its runtime talks to warpsim over a socket pair it
//! inherits on high descriptors (never a listening socket), one process of the program at a
//! time, in a versioned [`protocol`] with a handshake first; bulk copies
//! move straight between the program's memory and warpsim's where the system allows
//! (`process_vm_readv`), else through a shared memory file. warpsim itself stays free of
//! `unsafe`: the C++ side is the shim.
//!
//! The [`runtime::Runtime`] serves each call on a [`crate::Device`]: device memory is warpsim's
//! address space (host code may do arithmetic on device pointers, never dereference them), a
//! launch runs the kernel to completion before it answers (work is in issue order, whatever the
//! stream), a kernel fault is sticky (`cudaErrorIllegalAddress` from then on, as on a GPU) and
//! is reported once with its location, and an event's elapsed time is the predicted GPU time of
//! the device work between its two records ([`crate::predict`]; [`EventClock::Cpu`] gives the
//! CPU time instead). Every launch's report is kept for the caller's summary.

pub mod bridge;
pub mod build;
pub mod program;
pub mod protocol;
pub mod runtime;

pub use bridge::{Copies, Exit};
pub use build::{BuildError, BuildOptions};
pub use runtime::{Event, EventClock, Launch, Settings};

use crate::Device;
use crate::cuda::{Diagnostic, Options};

/// A program built and parsed, ready to run.
#[derive(Debug)]
pub struct Program {
    built: build::Built,
    code: program::DeviceCode,
}

/// Why a program could not be built or run.
#[derive(Debug)]
pub enum HostError {
    /// Building its host code failed.
    Build(BuildError),
    /// Its device code does not parse.
    Device(Diagnostic),
    /// Running it failed (it could not start, or it broke the protocol).
    Run(bridge::BridgeError),
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostError::Build(e) => write!(f, "{e}"),
            HostError::Device(d) => write!(f, "{d}"),
            HostError::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for HostError {}

/// How a program's run ended, and what it launched.
#[derive(Debug)]
pub struct Outcome {
    /// The program's exit.
    pub exit: Exit,
    /// Every kernel launch, in order.
    pub launches: Vec<Launch>,
    /// How its copies moved (`None`: it made no CUDA call).
    pub copies: Option<Copies>,
}

impl Program {
    /// Build the host side of `opts.files` (or take it from the cache) and parse their device
    /// code for `__CUDA_ARCH__` `arch`, products fused into sums where `fmad` (nvcc's
    /// `--fmad`); `notify` hears what takes time.
    pub fn build(
        opts: &BuildOptions,
        arch: u32,
        fmad: bool,
        notify: &mut dyn FnMut(&str),
    ) -> Result<Program, HostError> {
        let built = build::build(opts, notify).map_err(HostError::Build)?;
        let options = Options {
            defines: opts.defines.clone(),
            include_dirs: opts.include_dirs.clone(),
            arch,
            fmad,
        };
        let code = program::DeviceCode::load(&built.cu, &options).map_err(HostError::Device)?;
        Ok(Program { built, code })
    }

    /// Whether the host program came from the cache.
    pub fn cached(&self) -> bool {
        self.built.cached
    }

    /// The device code.
    pub fn device_code(&self) -> &program::DeviceCode {
        &self.code
    }

    /// Run the program with `args` on `dev`, every launch as `settings` say; `events` hears
    /// about faults and refusals as they happen.
    pub fn run(
        &self,
        dev: &Device,
        args: &[String],
        settings: Settings,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<Outcome, HostError> {
        let mut rt = runtime::Runtime::new(dev, &self.code, settings);
        let (exit, copies) = bridge::run(&self.built.exe, &self.built.name, args, &mut rt, events)
            .map_err(HostError::Run)?;
        Ok(Outcome {
            exit,
            copies,
            launches: std::mem::take(&mut rt.launches),
        })
    }
}
