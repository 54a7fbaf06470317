//! The source files of one translation unit (the main file and the headers it includes), so
//! that any [`Site`] can be turned back into a file name and a line of text for diagnostics.

use crate::cuda::diag::{Diagnostic, Severity};
use crate::cuda::ir::Site;

/// A source file's bytes without the UTF-8 byte order mark some editors write first: C++
/// compilers skip it only at the very start of a file, and warpsim puts a `#line` there.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// A source file's text: without a byte order mark, and in another encoding (a Latin-1
/// comment) read as far as UTF-8 goes, as compilers do.
pub fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(without_bom(bytes))
}

/// One file as read.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics use.
    pub name: String,
    /// The file's lines, without line terminators.
    pub lines: Vec<String>,
}

/// Every file of a translation unit; [`Site::file`] indexes `files`.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// The files, the main one first.
    pub files: Vec<SourceFile>,
}

impl Sources {
    /// Register a file and return its index.
    pub fn add(&mut self, name: &str, text: &str) -> u32 {
        let lines = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
            .collect();
        self.files.push(SourceFile {
            name: name.to_string(),
            lines,
        });
        (self.files.len() - 1) as u32
    }

    /// The file name of index `file` (empty when out of range).
    pub fn name(&self, file: u32) -> &str {
        self.files
            .get(file as usize)
            .map_or("", |f| f.name.as_str())
    }

    /// The text of the line a site is on.
    pub fn line(&self, site: Site) -> Option<&str> {
        let f = self.files.get(site.file as usize)?;
        f.lines
            .get((site.line as usize).checked_sub(1)?)
            .map(String::as_str)
    }

    /// A diagnostic at `site`.
    pub fn diag(
        &self,
        severity: Severity,
        site: Site,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            file: self.name(site.file).to_string(),
            line: site.line,
            col: site.col,
            message: message.into(),
            source_line: self.line(site).unwrap_or("").to_string(),
            help,
        }
    }

    /// An error at `site`.
    pub fn error(
        &self,
        site: Site,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Diagnostic {
        self.diag(Severity::Error, site, message, help)
    }
}
