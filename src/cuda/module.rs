//! The front-end's public API: a [`Module`] is one preprocessed and parsed translation unit;
//! it lists its kernels and lowers any of them (with template arguments) to an
//! [`ir::Kernel`].
//!
//! ```
//! use warpsim::cuda::{Module, Options};
//! let src = "__global__ void add(const float *a, float *b, int n) {\n\
//!                int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
//!                if (i < n) b[i] += a[i];\n\
//!            }\n\
//!            int main() { return 0; }\n";
//! let m = Module::from_source("add.cu", src, &Options::default()).unwrap();
//! assert_eq!(m.kernels()[0].name, "add");
//! let k = m.lower("add").unwrap();
//! assert_eq!(k.params.len(), 3);
//! ```

use std::path::Path;

use crate::cuda::diag::{Diagnostic, Severity};
use crate::cuda::front::Unit;
use crate::cuda::front::preprocess::{self, Options};
use crate::cuda::ir::{self, Site};
use crate::cuda::source::Sources;

/// One preprocessed, parsed translation unit.
#[derive(Clone, Debug)]
pub struct Module {
    unit: Unit,
    warnings: Vec<Diagnostic>,
    host_syntax_errors: Vec<Diagnostic>,
}

/// A kernel of a module, for listing.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelInfo {
    /// The kernel's name (qualified by its namespaces).
    pub name: String,
    /// Template parameter names (empty when not a template).
    pub template_params: Vec<String>,
    /// Parameters: name and type as written.
    pub params: Vec<(String, String)>,
    /// Where the kernel's name is.
    pub site: ir::Site,
}

impl Module {
    /// Read, preprocess and parse `path`; `#include "x.h"` resolves beside it, then in the
    /// include directories of `options`.
    pub fn from_file(path: &Path, options: &Options) -> Result<Module, Diagnostic> {
        let bytes = std::fs::read(path).map_err(|e| Diagnostic {
            severity: Severity::Error,
            file: path.display().to_string(),
            line: 0,
            col: 0,
            message: format!("cannot read the file: {e}"),
            source_line: String::new(),
            help: None,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let text = crate::cuda::source::text(&bytes);
        Self::build(&path.display().to_string(), &text, dir, options)
    }

    /// Preprocess and parse `source`, called `name`; `#include "x.h"` resolves relative to
    /// the current directory.
    pub fn from_source(name: &str, source: &str, options: &Options) -> Result<Module, Diagnostic> {
        Self::build(name, source, Path::new("."), options)
    }

    fn build(name: &str, text: &str, dir: &Path, options: &Options) -> Result<Module, Diagnostic> {
        let mut sources = Sources::default();
        let pp = preprocess::preprocess(&mut sources, name, text, dir, options)?;
        let ast = crate::cuda::front::parse::parse(&pp);
        if let Some((site, msg)) = &ast.kernel_syntax_error {
            return Err(sources.error(
                *site,
                msg.clone(),
                Some(
                    "the kernel does not parse: fix the code so that it compiles with nvcc".into(),
                ),
            ));
        }
        let warnings = pp.warnings.clone();
        // Syntax errors outside device code are warnings (host C++ the grammar may not know);
        // inside a kernel, lowering it reports them as errors.
        let mut host_syntax_errors = Vec::new();
        for (site, msg) in &ast.syntax_errors {
            let in_device = ast.functions.iter().any(|f| f.syntax_error == Some(*site));
            if !in_device {
                host_syntax_errors.push(sources.diag(
                    Severity::Warning,
                    *site,
                    msg.clone(),
                    Some("outside device code: skipped".into()),
                ));
            }
        }
        Ok(Module {
            unit: Unit {
                ast,
                sources,
                missing: pp.missing,
                text: pp.text,
                arch: options.arch,
                fmad: options.fmad,
            },
            warnings,
            host_syntax_errors,
        })
    }

    /// Every `__global__` function, in file order.
    pub fn kernels(&self) -> Vec<KernelInfo> {
        self.unit
            .ast
            .functions
            .iter()
            .filter(|f| f.global)
            .map(|f| KernelInfo {
                name: f.name.clone(),
                template_params: f.template.iter().map(|p| p.name().to_string()).collect(),
                params: f
                    .params
                    .iter()
                    .map(|p| (p.name.clone(), p.written.clone()))
                    .collect(),
                site: f.site,
            })
            .collect()
    }

    /// Lower kernel `name`, which may carry template arguments: `"reduce<256>"`,
    /// `"k<float, 4>"`.
    pub fn lower(&self, name: &str) -> Result<ir::Kernel, Diagnostic> {
        crate::cuda::front::lower::lower_kernel(&self.unit, name)
    }

    /// The bytes of the file-scope `__constant__` or `__device__` variable `name` as its
    /// initializer leaves them (zeros where there is none), and whether it is `__constant__`;
    /// `None` when there is no such variable.
    pub fn global_init(&self, name: &str) -> Result<Option<(Vec<u8>, bool)>, Diagnostic> {
        crate::cuda::front::lower::global_init(&self.unit, name)
    }

    /// Warnings: headers not found, `#warning`s.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Warnings about host code the device pass could not parse and skipped. Worth showing
    /// when one kernel runs out of the file; a whole program's host code is the C++
    /// compiler's to judge.
    pub fn host_syntax_errors(&self) -> &[Diagnostic] {
        &self.host_syntax_errors
    }

    /// The source line of a site.
    pub fn line(&self, site: Site) -> Option<&str> {
        self.unit.sources.line(site)
    }

    /// The name of file `file` (a [`Site::file`]).
    pub fn file_name(&self, file: u32) -> &str {
        self.unit.sources.name(file)
    }

    /// The preprocessed text the parser read (for debugging the front-end).
    pub fn preprocessed(&self) -> &str {
        &self.unit.text
    }
}
