//! The device side of a whole program: one [`Module`] per `.cu` file (its translation unit),
//! parsed once, from which the runtime lowers kernels and reads the initial bytes of device
//! variables on demand.

use std::path::PathBuf;

use crate::cuda::ir::Kernel;
use crate::cuda::{Diagnostic, Module, Options, Severity};

/// The device code of a program's `.cu` files.
#[derive(Debug)]
pub struct DeviceCode {
    units: Vec<Module>,
    undeclared: Vec<Diagnostic>,
}

impl DeviceCode {
    /// Parse the device code of `files` (translation unit `k` is `files[k]`).
    ///
    /// Every kernel that is neither a template nor overloaded is lowered here, once, to find
    /// those that name an identifier, function or type declared nowhere: nvcc fails such a
    /// build, and [`DeviceCode::undeclared`] says so before the program runs (the kernel
    /// itself fails at its launch; a kernel never launched does not stop the program, as
    /// the name may be one warpsim lacks rather than the program's mistake).
    pub fn load(files: &[PathBuf], options: &Options) -> Result<DeviceCode, Diagnostic> {
        let units: Vec<Module> = files
            .iter()
            .map(|f| Module::from_file(f, options))
            .collect::<Result<_, _>>()?;
        let mut undeclared = Vec::new();
        for m in &units {
            let kernels = m.kernels();
            for k in &kernels {
                let overloaded = kernels.iter().filter(|o| o.name == k.name).count() > 1;
                if !k.template_params.is_empty() || overloaded {
                    continue;
                }
                if let Err(d) = m.lower(&k.name)
                    && d.names_an_undeclared_name()
                {
                    undeclared.push(Diagnostic {
                        severity: Severity::Warning,
                        help: Some(format!(
                            "nvcc fails this build; warpsim runs the program and fails \
                             kernel `{}` at its launch",
                            k.name
                        )),
                        ..d
                    });
                }
            }
        }
        Ok(DeviceCode { units, undeclared })
    }

    /// The kernels that name something declared nowhere, one warning each (see
    /// [`DeviceCode::load`]).
    pub fn undeclared(&self) -> &[Diagnostic] {
        &self.undeclared
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
