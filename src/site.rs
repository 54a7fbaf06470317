//! Source sites: where in a kernel's source an operation is.
//!
//! Every counted operation and every check-mode finding names the line that issued it. A Rust
//! kernel's operations are identified by their call site (`#[track_caller]` gives a
//! `&'static Location`); a CUDA kernel's by an index into its launch's site table, which the
//! executor fills from the lowered program's file, line and column.

use std::fmt;
use std::panic::Location;

/// Where an operation is in the kernel's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// A Rust kernel's call site.
    Rust(&'static Location<'static>),
    /// Entry `n` of the launch's [`SiteTable`] (a CUDA kernel).
    Table(u32),
}

impl Site {
    /// The caller's location (the site of a `#[track_caller]` engine call).
    #[track_caller]
    #[inline(always)]
    pub fn here() -> Site {
        Site::Rust(Location::caller())
    }

    /// A key that identifies the site, for hashing by address.
    #[inline(always)]
    pub(crate) fn key(self) -> usize {
        match self {
            Site::Rust(l) => l as *const Location<'static> as usize,
            // Locations are at least 4-byte aligned: odd keys never collide with them.
            Site::Table(n) => (n as usize) << 1 | 1,
        }
    }
}

/// A source position by name: file, line and column (from 1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourcePos {
    /// The file as the kernel's source names it.
    pub file: String,
    /// The line.
    pub line: u32,
    /// The column.
    pub col: u32,
}

impl fmt::Display for SourcePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// The source positions of [`Site::Table`] sites, for a launch of a CUDA kernel.
#[derive(Clone, Debug, Default)]
pub struct SiteTable(pub Vec<SourcePos>);

impl SiteTable {
    /// The position of `site`, if the table or the Rust location knows it.
    pub fn position(&self, site: Site) -> Option<SourcePos> {
        match site {
            Site::Rust(l) => Some(SourcePos {
                file: l.file().to_string(),
                line: l.line(),
                col: l.column(),
            }),
            Site::Table(n) => self.0.get(n as usize).cloned(),
        }
    }
}
