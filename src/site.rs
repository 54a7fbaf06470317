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
    /// A position in a file of the launch's [`SiteTable`], packed (see [`Site::packed`]).
    Table(u64),
}

impl Site {
    /// The caller's location (the site of a `#[track_caller]` engine call).
    #[track_caller]
    #[inline(always)]
    pub fn here() -> Site {
        Site::Rust(Location::caller())
    }

    /// A table site: file `file` of the launch's [`SiteTable`], `line`, `col`, packed into 64
    /// bits (16 for the file, 32 for the line, 16 for the column; a larger column saturates)
    /// so that naming a site costs no lookup.
    pub fn packed(file: u32, line: u32, col: u32) -> Site {
        let (file, col) = (u64::from(file.min(0xffff)), u64::from(col.min(0xffff)));
        Site::Table(file << 48 | u64::from(line) << 16 | col)
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

/// The files of [`Site::Table`] sites, for a launch of a CUDA kernel.
#[derive(Clone, Debug, Default)]
pub struct SiteTable(pub Vec<String>);

impl SiteTable {
    /// The position of `site`, if the table or the Rust location knows it.
    pub fn position(&self, site: Site) -> Option<SourcePos> {
        match site {
            Site::Rust(l) => Some(SourcePos {
                file: normalize(l.file()),
                line: l.line(),
                col: l.column(),
            }),
            Site::Table(p) => Some(SourcePos {
                file: self.0.get((p >> 48) as usize)?.clone(),
                line: (p >> 16) as u32,
                col: (p & 0xffff) as u32,
            }),
        }
    }
}

/// `file` with `.` and `..` components resolved lexically: a module included by `#[path]`
/// reports `src/../kernels/x.rs`, which reads better as `kernels/x.rs`.
fn normalize(file: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in file.split('/') {
        match c {
            "." => {}
            ".." if parts.last().is_some_and(|p| *p != ".." && !p.is_empty()) => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(super::normalize("src/../kernels/x.rs"), "kernels/x.rs");
        assert_eq!(super::normalize("./a/./b.rs"), "a/b.rs");
        assert_eq!(super::normalize("../up.rs"), "../up.rs");
    }
}
