//! Diagnostics of the CUDA front-end: an error or warning at a position of the user's source,
//! printed like rustc and clang do (`file:line:col: error: message`, the line, a caret, a help).
//!
//! Every stage (preprocessor, parser, lowering) reports through [`Diagnostic`]; positions are
//! always the original source's (a macro's expansion is reported at the macro's use).

use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The requested operation failed.
    Error,
    /// Something was skipped or guessed; the operation went on.
    Warning,
}

/// A message about a position in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file name as the user gave it (or as an `#include` resolved it).
    pub file: String,
    /// Line, from 1 (0 when the diagnostic is about no particular line).
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
    /// What went wrong.
    pub message: String,
    /// The source line, for the excerpt (empty when unknown).
    pub source_line: String,
    /// What to do instead, when there is something to say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Whether the error names an identifier, function or type declared nowhere the device pass
    /// sees (the lowering's "unknown …" errors): nvcc fails such a build.
    pub fn names_an_undeclared_name(&self) -> bool {
        self.is_error()
            && [
                "unknown identifier `",
                "unknown function `",
                "unknown type `",
            ]
            .iter()
            .any(|p| self.message.starts_with(p))
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if self.line > 0 {
            write!(
                f,
                "{}:{}:{}: {kind}: {}",
                self.file, self.line, self.col, self.message
            )?;
        } else {
            write!(f, "{}: {kind}: {}", self.file, self.message)?;
        }
        if !self.source_line.is_empty() {
            let line = self.source_line.trim_end();
            write!(f, "\n  |  {line}")?;
            // The caret sits under column `col`, tabs kept so it lines up in a terminal.
            let pad: String = line
                .chars()
                .take(self.col.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n  |  {pad}^")?;
        }
        if let Some(help) = &self.help {
            write!(f, "\n  = help: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}
