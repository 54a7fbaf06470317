//! The C preprocessor, as far as CUDA programs use it: `#define` (object-like and
//! function-like, `#` and `##`, `__VA_ARGS__`), `#undef`, `#if`/`#ifdef`/`#ifndef`/`#elif`/
//! `#else`/`#endif` with integer constant expressions and `defined`, `#include "local.h"`
//! (beside the including file, recursively, with include guards and `#pragma once`), `-D`
//! definitions from the caller and the predefined `__CUDACC__` and `__CUDA_ARCH__`.
//!
//! Includes are searched as a C compiler searches them: `"x.h"` beside the including file, then
//! in the [`Options::include_dirs`] (`-I`); `<x.h>` in the include directories only. Headers of
//! the system and of the CUDA toolkit that are not found there are skipped (the lowering knows
//! the CUDA built-ins itself), except `math_constants.h`, whose constants device code uses: the
//! copy warpsim ships is read. A local header that cannot be found is a warning here; the
//! lowering turns it into an error when the kernel needs a name it does not otherwise know.
//!
//! The output is one text for the parser, with no directives left, and a map from every output
//! token back to its original file, line and column (a macro's expansion maps to the macro's
//! use), so that diagnostics and [`Site`]s point into the user's files.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::cuda::diag::{Diagnostic, Severity};
use crate::cuda::ir::Site;
use crate::cuda::source::Sources;

/// A header that could not be found.
#[derive(Clone, Debug)]
pub struct MissingHeader {
    /// The name as written in the `#include`.
    pub name: String,
    /// Where the `#include` is.
    pub site: Site,
}

/// The preprocessor's result.
#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    /// The text the parser reads.
    pub text: String,
    /// `(byte offset in text, original site)` of every output token, in text order.
    pub map: Vec<(usize, Site)>,
    /// Local headers that were not found.
    pub missing: Vec<MissingHeader>,
    /// Warnings (missing headers, `#warning`, unknown directives).
    pub warnings: Vec<Diagnostic>,
}

impl Preprocessed {
    /// The original site of output byte `offset`: the token containing it (or the last one
    /// before it), plus the distance into the token.
    pub fn site(&self, offset: usize) -> Site {
        let i = self.map.partition_point(|&(o, _)| o <= offset);
        if i == 0 {
            return self.map.first().map_or(
                Site {
                    file: 0,
                    line: 1,
                    col: 1,
                },
                |m| m.1,
            );
        }
        let (start, site) = self.map[i - 1];
        let within = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count()) as u32;
        // A gap (whitespace, newline) past the token's end stays at the token's position.
        if self
            .text
            .get(start..offset)
            .is_some_and(|s| s.contains(char::is_whitespace))
        {
            return site;
        }
        Site {
            col: site.col + within,
            ..site
        }
    }
}

/// What the preprocessor is told: definitions, include directories and the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `-D NAME=VALUE` definitions, in order (`-D NAME` is `NAME=1`; `-D NAME=` defines NAME as
    /// nothing, as in C compilers).
    pub defines: Vec<(String, String)>,
    /// `-I` directories, searched in order after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
    /// The value of `__CUDA_ARCH__` (`900` for `sm_90`, `610` for `sm_61`).
    pub arch: u32,
    /// Whether products are fused into the sums that use them, as nvcc's default
    /// `--fmad=true` does ([`crate::cuda::ir::contract`]).
    pub fmad: bool,
}

impl Default for Options {
    /// No definitions, no include directories, `__CUDA_ARCH__` 900 (an H100), `--fmad=true`.
    fn default() -> Options {
        Options {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            arch: 900,
            fmad: true,
        }
    }
}

impl Options {
    /// Options with these `-D` definitions.
    pub fn with_defines(defines: &[(String, String)]) -> Options {
        Options {
            defines: defines.to_vec(),
            ..Options::default()
        }
    }
}

/// The CUDA version device code sees (`CUDART_VERSION`), the same as the host runtime's.
pub const CUDART_VERSION: u32 = 12040;

/// Toolkit headers warpsim ships that device code reads (the rest of the toolkit is built in).
const SHIPPED: &[(&str, &str)] = &[
    (
        "math_constants.h",
        include_str!("../../../runtime/include/math_constants.h"),
    ),
    (
        "curand_kernel.h",
        include_str!("../../../runtime/include/curand_kernel.h"),
    ),
    (
        "warpsim_fp.h",
        include_str!("../../../runtime/include/warpsim_fp.h"),
    ),
    (
        "cuda_fp16.h",
        include_str!("../../../runtime/include/cuda_fp16.h"),
    ),
    (
        "cuda_bf16.h",
        include_str!("../../../runtime/include/cuda_bf16.h"),
    ),
    (
        "cuda_fp8.h",
        include_str!("../../../runtime/include/cuda_fp8.h"),
    ),
    (
        "cuComplex.h",
        include_str!("../../../runtime/include/cuComplex.h"),
    ),
    ("mma.h", include_str!("../../../runtime/include/mma.h")),
];

/// Headers of the CUDA toolkit and the C/C++ libraries: skipped even when included with quotes.
const SYSTEM_HEADERS: &[&str] = &[
    "cuda.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "cuda_gl_interop.h",
    "device_launch_parameters.h",
    "device_functions.h",
    "cooperative_groups.h",
    "curand.h",
    "math_constants.h",
    "helper_cuda.h",
    "helper_functions.h",
    "helper_math.h",
    "nvToolsExt.h",
    "nvtx3/nvToolsExt.h",
    "sm_20_atomic_functions.h",
    "sm_30_intrinsics.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "math.h",
    "assert.h",
    "stdint.h",
    "time.h",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    Other,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    text: String,
    site: Site,
    /// First token of its line (directives start with such a `#`).
    bol: bool,
    /// Whitespace before it (for stringizing).
    space: bool,
    /// Macros that must not expand this token again (the hide set).
    hide: Rc<Vec<String>>,
}

impl Tok {
    fn is(&self, p: &str) -> bool {
        matches!(self.kind, Kind::Punct | Kind::Ident) && self.text == p
    }
}

#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Tok>,
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "...", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "->",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", "::",
];

/// Split a file into tokens (comments and line continuations removed).
fn tokenize(text: &str, file: u32) -> Vec<Tok> {
    // Characters with their original positions, line continuations dropped.
    let mut chars: Vec<(char, u32, u32)> = Vec::with_capacity(text.len());
    let (mut line, mut col) = (1u32, 1u32);
    let raw: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c == '\\' {
            let mut j = i + 1;
            if raw.get(j) == Some(&'\r') {
                j += 1;
            }
            if raw.get(j) == Some(&'\n') {
                i = j + 1;
                line += 1;
                col = 1;
                continue;
            }
        }
        chars.push((c, line, col));
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
        i += 1;
    }
    let mut toks = Vec::new();
    let (mut bol, mut space) = (true, false);
    let mut i = 0;
    let at = |i: usize| chars.get(i).map_or('\0', |c| c.0);
    while i < chars.len() {
        let (c, l, cl) = chars[i];
        let site = Site {
            file,
            line: l,
            col: cl,
        };
        if c == '\n' {
            bol = true;
            space = false;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i].0 != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && at(i + 1) == '*' {
            i += 2;
            while i < chars.len() && !(chars[i].0 == '*' && at(i + 1) == '/') {
                i += 1;
            }
            i += 2;
            space = true;
            continue;
        }
        let start = i;
        let kind;
        if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            while at(i).is_ascii_alphanumeric() || at(i) == '_' || at(i) == '$' {
                i += 1;
            }
            // String prefixes: u8"..", L'..'.
            let word: String = chars[start..i].iter().map(|c| c.0).collect();
            if matches!(word.as_str(), "L" | "u" | "U" | "u8") && matches!(at(i), '"' | '\'') {
                let q = at(i);
                i = skip_quoted(&chars, i, q);
                kind = if q == '"' { Kind::Str } else { Kind::Char };
            } else {
                kind = Kind::Ident;
            }
        } else if c.is_ascii_digit() || (c == '.' && at(i + 1).is_ascii_digit()) {
            i += 1;
            loop {
                let d = at(i);
                if matches!(d, 'e' | 'E' | 'p' | 'P') && matches!(at(i + 1), '+' | '-') {
                    i += 2;
                } else if d.is_ascii_alphanumeric() || d == '.' || d == '_' || d == '\'' {
                    i += 1;
                } else {
                    break;
                }
            }
            kind = Kind::Number;
        } else if c == '"' || c == '\'' {
            i = skip_quoted(&chars, i, c);
            kind = if c == '"' { Kind::Str } else { Kind::Char };
        } else {
            let rest: String = chars[i..(i + 3).min(chars.len())]
                .iter()
                .map(|c| c.0)
                .collect();
            let len = PUNCTS
                .iter()
                .find(|p| rest.starts_with(*p))
                .map_or(1, |p| p.len());
            i += len;
            kind = if c.is_ascii_punctuation() {
                Kind::Punct
            } else {
                Kind::Other
            };
        }
        let text: String = chars[start..i.min(chars.len())]
            .iter()
            .map(|c| c.0)
            .collect();
        toks.push(Tok {
            kind,
            text,
            site,
            bol,
            space,
            hide: Rc::new(Vec::new()),
        });
        bol = false;
        space = false;
    }
    toks
}

/// The index just past a quoted literal starting at `i` (an unterminated one ends at the line).
fn skip_quoted(chars: &[(char, u32, u32)], mut i: usize, q: char) -> usize {
    i += 1;
    while i < chars.len() {
        match chars[i].0 {
            '\\' => i += 2,
            '\n' => return i,
            c if c == q => return i + 1,
            _ => i += 1,
        }
    }
    i
}

struct Cond {
    /// This group's lines are kept.
    active: bool,
    /// Some group of this `#if` chain was taken already.
    taken: bool,
    /// The enclosing group is active.
    outer: bool,
}

struct Pp<'s> {
    sources: &'s mut Sources,
    include_dirs: &'s [PathBuf],
    macros: HashMap<String, Macro>,
    once: HashSet<PathBuf>,
    out: Preprocessed,
    /// Where the last emitted token ends: its site and the column after it.
    last_end: Option<(Site, u32)>,
    depth: usize,
}

/// A fatal preprocessing error.
type PpResult<T> = Result<T, Diagnostic>;

/// The most tokens macro bodies may put in place of one stretch of text between directives.
const MAX_EXPANSION: usize = 1 << 20;

/// Preprocess `text` (named `name`, in directory `dir` for includes) with the caller's
/// options. Fatal errors (`#error`, unbalanced conditionals) are returned as `Err`.
pub fn preprocess(
    sources: &mut Sources,
    name: &str,
    text: &str,
    dir: &Path,
    options: &Options,
) -> Result<Preprocessed, Diagnostic> {
    let mut pp = Pp {
        sources,
        include_dirs: &options.include_dirs,
        macros: HashMap::new(),
        once: HashSet::new(),
        out: Preprocessed::default(),
        last_end: None,
        depth: 0,
    };
    let arch = options.arch.to_string();
    let version = CUDART_VERSION.to_string();
    let predefined = [
        ("__CUDACC__", "1"),
        ("__NVCC__", "1"),
        ("__CUDA_ARCH__", arch.as_str()),
        ("__cplusplus", "201703L"),
        ("__CUDACC_VER_MAJOR__", "12"),
        ("__CUDACC_VER_MINOR__", "4"),
        ("CUDART_VERSION", version.as_str()),
        // Device code ignores `__host__` (a function without `__device__` is the host's either
        // way); the grammar cannot read it before a conversion operator's name.
        ("__host__", ""),
        // GCC's `__restrict` (a hint, as `__restrict__` is to warpsim), which the grammar
        // takes only right after a `*`: `float *const __restrict p` would declare `__restrict`.
        ("__restrict", ""),
        // GCC's spellings of `__typeof__`, which parse reads as `decltype` without its
        // reference rules.
        ("typeof", "__typeof__"),
        ("__typeof", "__typeof__"),
    ];
    for (k, v) in predefined {
        pp.define_text(k, v);
    }
    // `__align__(n)` is an attribute nvcc's headers define: C++'s `alignas(n)`, which the
    // grammar knows.
    for name in ["__align__", "__builtin_align__"] {
        pp.predefine(name, Some("n"), "alignas(n)");
    }
    // <stdint.h>'s constant macros (the device pass skips system headers).
    for (name, suffix) in [
        ("INT8_C", ""),
        ("INT16_C", ""),
        ("INT32_C", ""),
        ("INT64_C", "LL"),
        ("INTMAX_C", "LL"),
        ("UINT8_C", ""),
        ("UINT16_C", ""),
        ("UINT32_C", "U"),
        ("UINT64_C", "ULL"),
        ("UINTMAX_C", "ULL"),
    ] {
        let body = if suffix.is_empty() {
            "c".to_string()
        } else {
            format!("c ## {suffix}")
        };
        pp.predefine(name, Some("c"), &body);
    }
    // <math.h>'s constants, as macros: nvcc's cuda_runtime.h brings in <math.h> (glibc, with
    // g++'s _GNU_SOURCE), so `#ifndef M_SQRT1_2` sees them defined and a program's own
    // fallback (often a `float` literal) is not used. The digits are glibc's.
    for (name, digits) in [
        ("M_E", "2.7182818284590452354"),
        ("M_LOG2E", "1.4426950408889634074"),
        ("M_LOG10E", "0.43429448190325182765"),
        ("M_LN2", "0.69314718055994530942"),
        ("M_LN10", "2.30258509299404568402"),
        ("M_PI", "3.14159265358979323846"),
        ("M_PI_2", "1.57079632679489661923"),
        ("M_PI_4", "0.78539816339744830962"),
        ("M_1_PI", "0.31830988618379067154"),
        ("M_2_PI", "0.63661977236758134308"),
        ("M_2_SQRTPI", "1.12837916709551257390"),
        ("M_SQRT2", "1.41421356237309504880"),
        ("M_SQRT1_2", "0.70710678118654752440"),
    ] {
        pp.define_text(name, digits);
        pp.define_text(&format!("{name}f"), &format!("{digits}f"));
    }
    for (k, v) in &options.defines {
        pp.define_text(k, v);
    }
    pp.file(name, text, dir)?;
    Ok(pp.out)
}

impl Pp<'_> {
    fn define_text(&mut self, name: &str, value: &str) {
        self.predefine(name, None, value);
    }

    /// A macro warpsim defines itself (`-D`, `__CUDA_ARCH__`, `UINT64_C(c)`): object-like, or
    /// function-like of one parameter.
    fn predefine(&mut self, name: &str, param: Option<&str>, body: &str) {
        let body = tokenize(body, 0)
            .into_iter()
            .map(|mut t| {
                t.site = Site::default();
                t
            })
            .collect();
        self.macros.insert(
            name.to_string(),
            Macro {
                params: param.map(|p| vec![p.to_string()]),
                variadic: false,
                body,
            },
        );
    }

    fn err(&self, site: Site, msg: impl Into<String>, help: Option<String>) -> Diagnostic {
        self.sources.error(site, msg, help)
    }

    fn warn(&mut self, site: Site, msg: impl Into<String>, help: Option<String>) {
        let d = self.sources.diag(Severity::Warning, site, msg, help);
        self.out.warnings.push(d);
    }

    /// Preprocess one file's text into the output.
    fn file(&mut self, name: &str, text: &str, dir: &Path) -> PpResult<()> {
        let file = self.sources.add(name, text);
        let toks = tokenize(text, file);
        let mut conds: Vec<Cond> = Vec::new();
        let mut pending: Vec<Tok> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if !(t.bol && t.is("#")) {
                if conds.last().is_none_or(|c| c.active) {
                    pending.push(t.clone());
                }
                i += 1;
                continue;
            }
            // A directive: `#` up to the next line's first token.
            let hash = t.site;
            let mut j = i + 1;
            while j < toks.len() && !toks[j].bol {
                j += 1;
            }
            let line = &toks[i + 1..j];
            i = j;
            // Macro invocations do not span directives: expand what came before this one with
            // the definitions in force there.
            self.flush(&mut pending)?;
            let active = conds.last().is_none_or(|c| c.active);
            let Some(d) = line.first() else { continue };
            let args = &line[1..];
            match d.text.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let v = if !active {
                        false
                    } else if d.text == "if" {
                        self.eval_if(args, d.site)?
                    } else {
                        let Some(n) = args.first() else {
                            return Err(self.err(
                                d.site,
                                format!("#{} without a name", d.text),
                                None,
                            ));
                        };
                        self.macros.contains_key(&n.text) == (d.text == "ifdef")
                    };
                    conds.push(Cond {
                        active: active && v,
                        taken: v,
                        outer: active,
                    });
                }
                "elif" | "else" => {
                    let Some(c) = conds.last() else {
                        return Err(self.err(d.site, format!("#{} without #if", d.text), None));
                    };
                    let (outer, taken) = (c.outer, c.taken);
                    let v = if !outer || taken {
                        false
                    } else if d.text == "elif" {
                        self.eval_if(args, d.site)?
                    } else {
                        true
                    };
                    let c = conds.last_mut().expect("checked above");
                    c.active = outer && !taken && v;
                    c.taken = taken || v;
                }
                "endif" => {
                    if conds.pop().is_none() {
                        return Err(self.err(d.site, "#endif without #if", None));
                    }
                }
                _ if !active => {}
                "define" => self.define(args, d.site)?,
                "undef" => {
                    if let Some(n) = args.first() {
                        self.macros.remove(&n.text);
                    }
                }
                "include" | "include_next" => self.include(args, d.site, dir)?,
                "pragma" => {
                    if args.first().is_some_and(|a| a.text == "once") {
                        let p = canonical(Path::new(name));
                        self.once.insert(p);
                    }
                }
                "error" => {
                    let msg: Vec<&str> = args.iter().map(|t| t.text.as_str()).collect();
                    return Err(self.err(hash, format!("#error {}", msg.join(" ")), None));
                }
                "warning" => {
                    let msg: Vec<&str> = args.iter().map(|t| t.text.as_str()).collect();
                    self.warn(hash, format!("#warning {}", msg.join(" ")), None);
                }
                "line" => {}
                other if d.kind == Kind::Number => {
                    let _ = other; // `# 12 "file"` line markers
                }
                other => {
                    let msg = format!("unknown preprocessor directive #{other} ignored");
                    self.warn(d.site, msg, None);
                }
            }
        }
        if let Some(_c) = conds.last() {
            let site = toks.last().map_or(
                Site {
                    file,
                    line: 1,
                    col: 1,
                },
                |t| t.site,
            );
            return Err(self.err(site, "unterminated #if/#ifdef (missing #endif)", None));
        }
        self.flush(&mut pending)
    }

    /// Expand pending text lines and append them to the output.
    fn flush(&mut self, pending: &mut Vec<Tok>) -> PpResult<()> {
        let toks = std::mem::take(pending);
        let expanded = self.expand(toks)?;
        for t in expanded {
            self.emit(&t);
        }
        Ok(())
    }

    fn emit(&mut self, t: &Tok) {
        let text = &mut self.out.text;
        // Tokens adjacent in the source stay adjacent: the grammar reads `operator()` but
        // not `operator ( )`; but never two that would read as one (a macro's expansion is
        // longer or shorter than its name: `real inc` with `real` as `float`, `x-NEG` with
        // `NEG` as `-1`).
        match self.last_end {
            Some((prev, _)) if prev.file != t.site.file || prev.line != t.site.line => {
                text.push('\n');
            }
            Some((_, end))
                if end != t.site.col
                    || t.site == Site::default()
                    || would_merge(text.chars().next_back(), t.text.chars().next()) =>
            {
                text.push(' ')
            }
            _ => {}
        }
        self.out.map.push((text.len(), t.site));
        text.push_str(&t.text);
        let len = u32::try_from(t.text.chars().count()).unwrap_or(u32::MAX);
        self.last_end = Some((t.site, t.site.col.saturating_add(len)));
    }

    fn define(&mut self, args: &[Tok], site: Site) -> PpResult<()> {
        let Some(name) = args.first().filter(|t| t.kind == Kind::Ident) else {
            return Err(self.err(site, "#define needs a macro name", None));
        };
        let mut params = None;
        let mut variadic = false;
        let mut k = 1;
        // Function-like only when `(` follows the name with no space.
        if args.get(1).is_some_and(|t| t.is("(") && !t.space) {
            let mut ps = Vec::new();
            k = 2;
            loop {
                let Some(t) = args.get(k) else {
                    return Err(self.err(site, "unterminated macro parameter list", None));
                };
                k += 1;
                match t.text.as_str() {
                    ")" => break,
                    "," => {}
                    "..." => variadic = true,
                    _ if t.kind == Kind::Ident => ps.push(t.text.clone()),
                    _ => {
                        return Err(self.err(t.site, "bad macro parameter", None));
                    }
                }
            }
            params = Some(ps);
        }
        self.macros.insert(
            name.text.clone(),
            Macro {
                params,
                variadic,
                body: args[k.min(args.len())..].to_vec(),
            },
        );
        Ok(())
    }

    fn include(&mut self, args: &[Tok], site: Site, dir: &Path) -> PpResult<()> {
        let mut args = args.to_vec();
        if args.first().is_some_and(|t| t.kind == Kind::Ident) {
            args = self.expand(args)?;
        }
        let Some(first) = args.first() else {
            return Err(self.err(site, "#include without a file name", None));
        };
        let (hname, quoted) = if first.is("<") {
            let name: String = args[1..]
                .iter()
                .take_while(|t| !t.is(">"))
                .map(|t| t.text.as_str())
                .collect();
            (name, false)
        } else if first.kind == Kind::Str {
            (first.text.trim_matches('"').to_string(), true)
        } else {
            return Err(self.err(first.site, "#include expects \"file\" or <file>", None));
        };
        // Beside the including file (quoted only), then the -I directories.
        let found = quoted
            .then(|| dir.to_path_buf())
            .into_iter()
            .chain(self.include_dirs.iter().cloned())
            .map(|d| d.join(&hname))
            .find(|p| p.is_file());
        let Some(path) = found else {
            if let Some((_, text)) = SHIPPED.iter().find(|(n, _)| *n == hname) {
                let canon = PathBuf::from(format!("<warpsim>/{hname}"));
                if self.once.insert(canon) {
                    return self.file(&format!("<warpsim>/{hname}"), text, dir);
                }
                return Ok(());
            }
            if !quoted || SYSTEM_HEADERS.contains(&hname.as_str()) {
                return Ok(()); // system header
            }
            self.out.missing.push(MissingHeader {
                name: hname.clone(),
                site,
            });
            self.warn(
                site,
                format!("header \"{hname}\" not found beside the source; skipped"),
                Some("names it declares are unknown; put the header next to the .cu file, or name its directory with -I".into()),
            );
            return Ok(());
        };
        let canon = canonical(&path);
        if self.once.contains(&canon) {
            return Ok(());
        }
        let bytes = std::fs::read(&path)
            .map_err(|e| self.err(site, format!("cannot read {}: {e}", path.display()), None))?;
        let text = crate::cuda::source::text(&bytes);
        if self.depth > 64 {
            return Err(self.err(site, "#include nested too deeply (a cycle?)", None));
        }
        self.depth += 1;
        let sub = path
            .parent()
            .map_or_else(|| dir.to_path_buf(), Path::to_path_buf);
        let shown = path.to_string_lossy().trim_start_matches("./").to_string();
        let r = self.file(&shown, &text, &sub);
        self.depth -= 1;
        r
    }

    /// Evaluate an `#if` line.
    fn eval_if(&mut self, args: &[Tok], site: Site) -> PpResult<bool> {
        // `defined X` / `defined(X)` first, before expansion.
        let mut toks = Vec::new();
        let mut k = 0;
        while k < args.len() {
            let t = &args[k];
            if t.text == "defined" {
                let (name, next) = if args.get(k + 1).is_some_and(|t| t.is("(")) {
                    (args.get(k + 2), k + 4)
                } else {
                    (args.get(k + 1), k + 2)
                };
                let Some(name) = name else {
                    return Err(self.err(t.site, "`defined` without a name", None));
                };
                let v = self.macros.contains_key(&name.text);
                toks.push(Tok {
                    kind: Kind::Number,
                    text: if v { "1" } else { "0" }.into(),
                    ..t.clone()
                });
                k = next;
            } else {
                toks.push(t.clone());
                k += 1;
            }
        }
        let toks = self.expand(toks)?;
        let mut p = CondParser {
            toks: &toks,
            pos: 0,
        };
        let v = p.ternary();
        match v {
            Some(v) if p.pos == toks.len() => Ok(v.v != 0),
            _ => Err(self.err(
                site,
                "cannot evaluate this #if expression",
                Some("#if takes an integer constant expression of literals, macros and defined(NAME)".into()),
            )),
        }
    }

    /// Fully macro-expand a token list (Prosser's algorithm with hide sets). Macros may put at
    /// most [`MAX_EXPANSION`] tokens in its place: one defined as two copies of the one before
    /// doubles with every level, and forty levels would exhaust the memory.
    fn expand(&self, input: Vec<Tok>) -> PpResult<Vec<Tok>> {
        let mut q: VecDeque<Tok> = input.into();
        let mut out = Vec::new();
        let mut produced = 0usize;
        while let Some(t) = q.pop_front() {
            if t.kind != Kind::Ident || t.hide.contains(&t.text) {
                out.push(t);
                continue;
            }
            if t.text == "__LINE__" || t.text == "__FILE__" {
                let text = if t.text == "__LINE__" {
                    t.site.line.to_string()
                } else {
                    format!("\"{}\"", self.sources.name(t.site.file).replace('\\', "/"))
                };
                let kind = if t.text == "__LINE__" {
                    Kind::Number
                } else {
                    Kind::Str
                };
                out.push(Tok { kind, text, ..t });
                continue;
            }
            let Some(m) = self.macros.get(&t.text) else {
                out.push(t);
                continue;
            };
            let mut hide = (*t.hide).clone();
            hide.push(t.text.clone());
            let Some(params) = &m.params else {
                let body = self.subst(m, &[], &hide, &t)?;
                produced = self.grown(produced, body.len(), &t)?;
                for b in body.into_iter().rev() {
                    q.push_front(b);
                }
                continue;
            };
            if !q.front().is_some_and(|n| n.is("(")) {
                out.push(t);
                continue;
            }
            // Collect the arguments up to the matching `)`.
            q.pop_front();
            let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
            let mut depth = 0;
            let mut closed = false;
            while let Some(a) = q.pop_front() {
                if a.is("(") {
                    depth += 1;
                } else if a.is(")") {
                    if depth == 0 {
                        closed = true;
                        break;
                    }
                    depth -= 1;
                } else if a.is(",") && depth == 0 {
                    // Commas beyond the named parameters belong to `__VA_ARGS__`.
                    if !(m.variadic && args.len() > params.len()) {
                        args.push(Vec::new());
                        continue;
                    }
                }
                args.last_mut().expect("one at least").push(a);
            }
            if !closed {
                out.push(t);
                continue;
            }
            if params.is_empty() && !m.variadic && args.len() == 1 && args[0].is_empty() {
                args.clear();
            }
            let body = self.subst(m, &args, &hide, &t)?;
            produced = self.grown(produced, body.len(), &t)?;
            for b in body.into_iter().rev() {
                q.push_front(b);
            }
        }
        Ok(out)
    }

    /// `produced` tokens of macro bodies and `more` from expanding the macro at `at`, or an
    /// error past [`MAX_EXPANSION`].
    fn grown(&self, produced: usize, more: usize, at: &Tok) -> PpResult<usize> {
        let total = produced + more;
        if total > MAX_EXPANSION {
            return Err(self.err(
                at.site,
                format!("the macros expanded here grow past {MAX_EXPANSION} tokens"),
                Some(
                    "a macro defined as copies of another multiplies with every level; \
                     write the repetition as a loop"
                        .into(),
                ),
            ));
        }
        Ok(total)
    }

    /// A macro's body with its arguments substituted, `#` and `##` applied.
    fn subst(&self, m: &Macro, args: &[Vec<Tok>], hide: &[String], at: &Tok) -> PpResult<Vec<Tok>> {
        let params = m.params.as_deref().unwrap_or(&[]);
        let arg_of = |name: &str| -> Option<Vec<Tok>> {
            if let Some(i) = params.iter().position(|p| p == name) {
                return Some(args.get(i).cloned().unwrap_or_default());
            }
            if m.variadic && name == "__VA_ARGS__" {
                let rest = args.get(params.len()..).unwrap_or(&[]);
                let mut v = Vec::new();
                for (i, a) in rest.iter().enumerate() {
                    if i > 0 {
                        v.push(Tok {
                            kind: Kind::Punct,
                            text: ",".into(),
                            ..at.clone()
                        });
                    }
                    v.extend(a.iter().cloned());
                }
                return Some(v);
            }
            None
        };
        let body = &m.body;
        let mut out: Vec<Tok> = Vec::new();
        let mut k = 0;
        // Whether the last output came from `##` pasting (its right operand must not expand).
        while k < body.len() {
            let t = &body[k];
            if m.params.is_some()
                && t.is("#")
                && let Some(a) = body.get(k + 1).and_then(|n| arg_of(&n.text))
            {
                // C's `#`: backslashes and quotes are escaped only inside literals.
                let mut s = String::new();
                for (i, x) in a.iter().enumerate() {
                    if i > 0 && x.space {
                        s.push(' ');
                    }
                    if matches!(x.kind, Kind::Str | Kind::Char) {
                        s.push_str(&x.text.replace('\\', "\\\\").replace('"', "\\\""));
                    } else {
                        s.push_str(&x.text);
                    }
                }
                out.push(Tok {
                    kind: Kind::Str,
                    text: format!("\"{s}\""),
                    ..at.clone()
                });
                k += 2;
                continue;
            }
            if t.is("##")
                && !out.is_empty()
                && let Some(n) = body.get(k + 1)
            {
                let right = arg_of(&n.text).unwrap_or_else(|| vec![n.clone()]);
                let mut right = right.into_iter();
                if let Some(r) = right.next() {
                    let l = out.pop().expect("checked non-empty");
                    let text = format!("{}{}", l.text, r.text);
                    let kind = tokenize(&text, 0).first().map_or(Kind::Other, |t| t.kind);
                    out.push(Tok { kind, text, ..l });
                }
                out.extend(right);
                k += 2;
                continue;
            }
            if let Some(a) = arg_of(&t.text) {
                let pasted = body.get(k + 1).is_some_and(|n| n.is("##"));
                if pasted {
                    out.extend(a);
                } else {
                    out.extend(self.expand(a)?);
                }
                k += 1;
                continue;
            }
            out.push(t.clone());
            k += 1;
        }
        for o in &mut out {
            o.site = at.site;
            let mut h = (*o.hide).clone();
            for x in hide {
                if !h.contains(x) {
                    h.push(x.clone());
                }
            }
            o.hide = Rc::new(h);
            o.bol = false;
        }
        Ok(out)
    }
}

/// A file's identity for `#pragma once`: its canonical path where it exists.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A parser of `#if` expressions over expanded tokens; `None` on a syntax error.
struct CondParser<'t> {
    toks: &'t [Tok],
    pos: usize,
}

impl CondParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|t| t.text.as_str())
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek() == Some(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Option<PpInt> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return None;
            }
            let b = self.ternary()?;
            // The result has the two branches' common type.
            let unsigned = a.unsigned || b.unsigned;
            let v = if c.v != 0 { a.v } else { b.v };
            return Some(PpInt { v, unsigned });
        }
        Some(c)
    }

    fn binary(&mut self, min: u8) -> Option<PpInt> {
        let mut l = self.unary()?;
        while let Some(op) = self.peek() {
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if prec <= min {
                break;
            }
            let op = op.to_string();
            self.pos += 1;
            let r = self.binary(prec)?;
            // `#if` arithmetic is in intmax_t, or uintmax_t where an operand is unsigned
            // (`-1 > 0u` is true); a shift has its left operand's type.
            let unsigned = l.unsigned || r.unsigned;
            let (a, b) = (l.v, r.v);
            let (ua, ub) = (a as u64, b as u64);
            let truth = |c: bool| PpInt::signed(i64::from(c));
            let same = |v: i64| PpInt { v, unsigned };
            l = match op.as_str() {
                "||" => truth(a != 0 || b != 0),
                "&&" => truth(a != 0 && b != 0),
                "|" => same(a | b),
                "^" => same(a ^ b),
                "&" => same(a & b),
                "==" => truth(a == b),
                "!=" => truth(a != b),
                "<" => truth(if unsigned { ua < ub } else { a < b }),
                ">" => truth(if unsigned { ua > ub } else { a > b }),
                "<=" => truth(if unsigned { ua <= ub } else { a <= b }),
                ">=" => truth(if unsigned { ua >= ub } else { a >= b }),
                "<<" => PpInt {
                    v: a.wrapping_shl(b as u32),
                    ..l
                },
                ">>" if l.unsigned => PpInt {
                    v: ua.wrapping_shr(b as u32) as i64,
                    ..l
                },
                ">>" => PpInt {
                    v: a.wrapping_shr(b as u32),
                    ..l
                },
                "+" => same(a.wrapping_add(b)),
                "-" => same(a.wrapping_sub(b)),
                "*" => same(a.wrapping_mul(b)),
                "/" if unsigned => same(ua.checked_div(ub)? as i64),
                "/" => same(a.checked_div(b)?),
                _ if unsigned => same(ua.checked_rem(ub)? as i64),
                _ => same(a.checked_rem(b)?),
            };
        }
        Some(l)
    }

    fn unary(&mut self) -> Option<PpInt> {
        let t = self.toks.get(self.pos)?;
        self.pos += 1;
        match t.text.as_str() {
            "-" => {
                let x = self.unary()?;
                Some(PpInt {
                    v: x.v.wrapping_neg(),
                    ..x
                })
            }
            "+" => self.unary(),
            "~" => {
                let x = self.unary()?;
                Some(PpInt { v: !x.v, ..x })
            }
            "!" => Some(PpInt::signed(i64::from(self.unary()?.v == 0))),
            "(" => {
                let v = self.ternary()?;
                self.eat(")").then_some(v)
            }
            "true" => Some(PpInt::signed(1)),
            // A literal beyond intmax_t is a uintmax_t.
            _ if t.kind == Kind::Number => parse_int(&t.text).map(|l| PpInt {
                v: l.value as i64,
                unsigned: l.unsigned || l.value > i64::MAX as u64,
            }),
            _ if t.kind == Kind::Char => char_value(&t.text).map(PpInt::signed),
            // Identifiers left after expansion are 0.
            _ if t.kind == Kind::Ident => Some(PpInt::signed(0)),
            _ => None,
        }
    }
}

/// A value of `#if` arithmetic: an intmax_t, or a uintmax_t (its bits in `v`).
#[derive(Clone, Copy)]
struct PpInt {
    v: i64,
    unsigned: bool,
}

impl PpInt {
    fn signed(v: i64) -> PpInt {
        PpInt { v, unsigned: false }
    }
}

/// Whether two tokens written without a space between them, the first ending in `a` and the
/// second starting with `b`, would read as one token (or start a comment).
fn would_merge(a: Option<char>, b: Option<char>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    (word(a) && word(b))
        || (a == '.' && b.is_ascii_digit())
        || (a.is_ascii_digit() && b == '.')
        || matches!(
            (a, b),
            ('-', '-' | '>' | '=')
                | ('+', '+' | '=')
                | ('<', '<' | '=' | ':' | '%')
                | ('>', '>' | '=')
                | ('&', '&' | '=')
                | ('|', '|' | '=')
                | ('=' | '!' | '*' | '%' | '^', '=')
                | ('/', '/' | '*' | '=')
                | (':', ':' | '>')
                | ('#', '#')
                | ('.', '.' | '*')
        )
}

/// An integer literal as written: its value and what decides its type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntLiteral {
    /// The value.
    pub value: u64,
    /// Whether it has a `u` suffix.
    pub unsigned: bool,
    /// The number of `l`s in its suffix.
    pub longs: u8,
    /// Whether it is written in decimal (which is never unsigned without a `u`).
    pub decimal: bool,
}

impl IntLiteral {
    /// A decimal `int` literal.
    pub fn int(value: u64) -> IntLiteral {
        IntLiteral {
            value,
            unsigned: false,
            longs: 0,
            decimal: true,
        }
    }

    /// C's type of the literal: the first of `int`, `unsigned int` (not for decimal ones
    /// without `u`), `long`, `unsigned long` that its suffix allows and its value fits.
    pub fn scalar(&self) -> crate::cuda::ir::Scalar {
        use crate::cuda::ir::Scalar;
        let v = self.value;
        let may_be_signed = !self.unsigned;
        let may_be_unsigned = self.unsigned || !self.decimal;
        if self.longs == 0 {
            if may_be_signed && v <= i32::MAX as u64 {
                return Scalar::I32;
            }
            if may_be_unsigned && v <= u32::MAX as u64 {
                return Scalar::U32;
            }
        }
        if may_be_signed && v <= i64::MAX as u64 {
            return Scalar::I64;
        }
        Scalar::U64
    }
}

/// Parse a C integer literal (`42`, `0x1fu`, `017`, `1'000'000ull`).
pub fn parse_int(text: &str) -> Option<IntLiteral> {
    let t = text.replace('\'', "");
    let lower = t.to_ascii_lowercase();
    let body_end = lower
        .char_indices()
        .rev()
        .take_while(|(_, c)| matches!(c, 'u' | 'l'))
        .last()
        .map_or(lower.len(), |(i, _)| i);
    let (digits, suffix) = lower.split_at(body_end);
    // A hex literal's digits may end in letters that look like suffixes only for u/l, which
    // are not hex digits, so the split above is right for hex too.
    let v = if let Some(h) = digits.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = digits.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(IntLiteral {
        value: v,
        unsigned: suffix.contains('u'),
        longs: suffix.matches('l').count() as u8,
        decimal: !digits.starts_with('0') || digits == "0",
    })
}

/// The value of a character literal (`'a'`, `'\n'`, `'\0'`, `'\x41'`).
pub fn char_value(text: &str) -> Option<i64> {
    let inner = text
        .trim_start_matches(['L', 'u', 'U', '8'])
        .strip_prefix('\'')?
        .strip_suffix('\'')?;
    let s = unescape(inner);
    s.chars().next().map(|c| c as i64)
}

/// C escape sequences of a literal's body.
pub fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('x') => {
                let mut v = 0u32;
                while let Some(d) = it.peek().and_then(|d| d.to_digit(16)) {
                    v = v * 16 + d;
                    it.next();
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some(d) if d.is_digit(8) => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    if let Some(e) = it.peek().and_then(|d| d.to_digit(8)) {
                        v = v * 8 + e;
                        it.next();
                    }
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}
