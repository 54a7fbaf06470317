//! The device side of a whole program: one [`Module`] per `.cu` file (its translation unit),
//! parsed once, from which the runtime lowers kernels and reads the initial bytes of device
//! variables on demand.

use std::path::PathBuf;

use crate::cuda::ir::Kernel;
use crate::cuda::{Diagnostic, Module, Options};

/// The device code of a program's `.cu` files.
#[derive(Debug)]
pub struct DeviceCode {
    units: Vec<Module>,
}

impl DeviceCode {
    /// Parse the device code of `files` (translation unit `k` is `files[k]`).
    pub fn load(files: &[PathBuf], options: &Options) -> Result<DeviceCode, Diagnostic> {
        let units = files
            .iter()
            .map(|f| Module::from_file(f, options))
            .collect::<Result<_, _>>()?;
        Ok(DeviceCode { units })
    }

    /// The translation units' modules.
    pub fn units(&self) -> &[Module] {
        &self.units
    }

    /// Lower kernel `name` (with template arguments) of unit `unit`.
    pub fn lower(&self, unit: u32, name: &str) -> Result<Kernel, Diagnostic> {
        let m = self.module(unit)?;
        m.lower(name)
    }

    /// The initial bytes of `__constant__`/`__device__` variable `name` of unit `unit`, and
    /// whether it is `__constant__` (`None`: no such variable).
    pub fn symbol(&self, unit: u32, name: &str) -> Result<Option<(Vec<u8>, bool)>, Diagnostic> {
        self.module(unit)?.global_init(name)
    }

    fn module(&self, unit: u32) -> Result<&Module, Diagnostic> {
        self.units.get(unit as usize).ok_or_else(|| Diagnostic {
            severity: crate::cuda::Severity::Error,
            file: String::new(),
            line: 0,
            col: 0,
            message: format!("the program has no translation unit {unit}"),
            source_line: String::new(),
            help: None,
        })
    }
}
