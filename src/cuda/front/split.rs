//! The device/host split of a whole program: one source file as the host compiler must see it.
//!
//! nvcc compiles a `.cu` file twice: a device pass, which warpsim's own front-end makes (every
//! `__global__` and `__device__` function is lowered from the preprocessed text), and a host
//! pass, which the system C++ compiler makes from the text this module writes. The file is
//! parsed as written (directives and all, with the same `tree-sitter-cuda` grammar), and edited:
//!
//! * a `__global__` function keeps its signature and gets a new body, the *stub*: it packs the
//!   addresses of its parameters and calls `cudaLaunchKernel` through warpsim's runtime with the
//!   configuration the launch pushed. Next to it, a registration runs before `main` and tells the
//!   runtime the kernel's name (its namespaces and template arguments included) and translation
//!   unit, so that the function's address identifies the kernel (`cudaFuncGetAttributes(&a, k)`);
//!   an overloaded kernel's address is taken at its own type and its name carries its
//!   parameter types (`fill(float *)`), which the device pass matches to pick the overload;
//! * a function that is `__device__` and not `__host__` is removed: host code cannot call it;
//!   `__host__ __device__` functions stay, as in nvcc's host pass;
//! * a `__constant__`, `__device__` or `__managed__` variable stays as the host's *shadow*: its
//!   address names the symbol for `cudaMemcpyToSymbol`, and a registration says which symbol;
//! * `kernel<<<grid, block, smem, stream>>>(args)` becomes
//!   `(__cudaPushCallConfiguration(grid, block, smem, stream), kernel(args))`.
//!
//! Every edit keeps the number of lines, and a `#line` directive names the original file, so
//! the host compiler's messages point at the user's file and line.

use std::collections::HashSet;
use tree_sitter::Node;

use crate::cuda::diag::Diagnostic;
use crate::cuda::ir::Site;
use crate::cuda::source::Sources;

/// One file as the host pass compiles it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFile {
    /// The text for the host compiler (a `#line` directive first).
    pub text: String,
    /// The kernels the file defines, as registered (`ns::k`; templates without arguments).
    pub kernels: Vec<String>,
    /// The device variables the file defines.
    pub symbols: Vec<String>,
}

/// Whether a file's text has anything the host pass must change (device code or a launch).
pub fn has_device_code(text: &str) -> bool {
    [
        "__global__",
        "__device__",
        "__constant__",
        "__managed__",
        "<<<",
        "texture<",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// The host pass's text of `text` (the file `name`), which includes (directly or not) the
/// local files `headers`: their macros too are read as the host compiler will expand them.
///
/// Registrations name their translation unit with the macro `__WARPSIM_UNIT`, which the build
/// defines for each `.cu` file it compiles (a header with kernels belongs to every unit that
/// includes it).
pub fn host_file(name: &str, text: &str, headers: &[&str]) -> Result<HostFile, Diagnostic> {
    let mut parser = tree_sitter::Parser::new();
    let mut sources = Sources::default();
    // Diagnostics show the file as written (the expansions below keep its lines).
    let file = sources.add(name, text);
    // Kernels and device functions that macros define (`KERNEL(twice)`) are split as the
    // device pass sees them: those invocations are expanded in place first.
    let expanded = expand_device_macros(text, headers).map_err(|(at, msg)| {
        let line = text[..at].matches('\n').count();
        let col = at - text[..at].rfind('\n').map_or(0, |n| n + 1);
        sources.error(
            Site {
                file,
                line: line as u32 + 1,
                col: col as u32 + 1,
            },
            format!("warpsim could not expand this macro for the host compiler: {msg}"),
            Some(
                "its expansion defines device code, which the host pass must see expanded; \
                 define the kernel without the macro"
                    .to_string(),
            ),
        )
    })?;
    let text = expanded.as_ref();
    let fail = |msg: &str| {
        sources.error(
            Site {
                file,
                line: 1,
                col: 1,
            },
            msg,
            None,
        )
    };
    parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .map_err(|_| fail("the CUDA grammar failed to load"))?;
    // The grammar reads the file unpreprocessed: a line that invokes a macro defined as nothing
    // (`PERF_BEGIN`, `TIMER_STOP(t);`) would read as a declaration swallowing the next
    // statement, a launch among them. The tree is of the file with those invocations blanked
    // (same length, lines kept); the edits apply to the file as written.
    let parsed = blank_empty_macros(text, headers);
    let tree = parser
        .parse(parsed.as_bytes(), None)
        .ok_or_else(|| fail("the parser gave up on this file"))?;
    let split = |overloaded: HashSet<String>| -> Result<Splitter<'_>, Diagnostic> {
        let mut s = Splitter {
            src: parsed.as_bytes(),
            sources: &sources,
            file,
            edits: Vec::new(),
            kernels: Vec::new(),
            symbols: Vec::new(),
            tag: {
                // Unique per file: a header with kernels and the .cu including it are split
                // apart and then compiled as one unit.
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                name.hash(&mut h);
                format!("{:08x}", h.finish() as u32)
            },
            next: 0,
            overloaded,
        };
        s.items(tree.root_node(), "")?;
        s.launches(tree.root_node())?;
        Ok(s)
    };
    let mut s = split(HashSet::new())?;
    // Kernels defined more than once under one name (overloads) are told apart by their
    // parameter types: split again knowing which.
    let mut seen = HashSet::new();
    let overloaded: HashSet<String> = s
        .kernels
        .iter()
        .filter(|k| !seen.insert(k.as_str()))
        .cloned()
        .collect();
    if !overloaded.is_empty() {
        s = split(overloaded)?;
    }
    let mut edits = std::mem::take(&mut s.edits);
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = format!(
        "#line 1 \"{}\"\n",
        name.replace('\\', "\\\\").replace('"', "\\\"")
    );
    let mut at = 0;
    for e in &edits {
        if e.start < at {
            continue; // inside a removed region (a launch in a device function)
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
    }
    out.push_str(&text[at..]);
    Ok(HostFile {
        text: out,
        kernels: s.kernels,
        symbols: s.symbols,
    })
}

/// Replace `start..end` of the original text by `text`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

struct Splitter<'a> {
    src: &'a [u8],
    sources: &'a Sources,
    file: u32,
    edits: Vec<Edit>,
    kernels: Vec<String>,
    symbols: Vec<String>,
    /// The file's part of the names of generated declarations.
    tag: String,
    /// A counter for the names of generated declarations.
    next: usize,
    /// Kernels (as in [`HostFile::kernels`]) that the file defines more than once: their
    /// addresses are taken at their own type and their names carry their parameter types.
    overloaded: HashSet<String>,
}

fn named_children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// The newlines of `s`, to keep the line count of replaced text.
fn newlines(s: &str) -> String {
    s.chars().filter(|&c| c == '\n').collect()
}

/// CUDA's execution-space and memory-space markers on a declaration.
#[derive(Default)]
struct Marks {
    global: bool,
    device: bool,
    host: bool,
    constant: bool,
    managed: bool,
    shared: bool,
    is_extern: bool,
}

impl<'a> Splitter<'a> {
    fn text(&self, n: Node<'_>) -> &'a str {
        std::str::from_utf8(&self.src[n.start_byte()..n.end_byte()]).unwrap_or("")
    }

    fn error(&self, n: Node<'_>, msg: impl Into<String>, help: &str) -> Diagnostic {
        let p = n.start_position();
        self.sources.error(
            Site {
                file: self.file,
                line: p.row as u32 + 1,
                col: p.column as u32 + 1,
            },
            msg,
            Some(help.to_string()),
        )
    }

    /// The markers among a declaration's own words (not its type, declarator or body).
    fn marks(&self, n: Node<'_>) -> Marks {
        let mut m = Marks::default();
        let mut c = n.walk();
        for (i, ch) in n.children(&mut c).enumerate() {
            let field = n.field_name_for_child(i as u32);
            if matches!(field, Some("declarator" | "body" | "type")) {
                continue;
            }
            for w in self.text(ch).split_whitespace() {
                match w {
                    "__global__" => m.global = true,
                    "__device__" => m.device = true,
                    "__host__" => m.host = true,
                    "__constant__" => m.constant = true,
                    "__managed__" => m.managed = true,
                    "__shared__" => m.shared = true,
                    "extern" => m.is_extern = true,
                    _ => {}
                }
            }
        }
        m
    }

    fn items(&mut self, n: Node<'_>, ns: &str) -> Result<(), Diagnostic> {
        for c in named_children(n) {
            self.item(c, ns, None)?;
        }
        Ok(())
    }

    /// One declaration at namespace scope (`template` the enclosing template declaration).
    fn item(
        &mut self,
        c: Node<'_>,
        ns: &str,
        template: Option<Node<'_>>,
    ) -> Result<(), Diagnostic> {
        match c.kind() {
            "function_definition" => self.function(c, ns, template),
            "template_declaration" => {
                for d in named_children(c) {
                    if d.kind() != "template_parameter_list" {
                        self.item(d, ns, Some(c))?;
                    }
                }
                Ok(())
            }
            "namespace_definition" => {
                let name = c.child_by_field_name("name").map_or("", |n| self.text(n));
                let inner = if name.is_empty() {
                    ns.to_string()
                } else {
                    format!("{ns}{name}::")
                };
                match c.child_by_field_name("body") {
                    Some(b) => self.items(b, &inner),
                    None => Ok(()),
                }
            }
            "linkage_specification" => match c.child_by_field_name("body") {
                Some(b) if b.kind() == "declaration_list" => self.items(b, ns),
                Some(b) => self.item(b, ns, template),
                None => Ok(()),
            },
            "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
            | "preproc_elifdef" => {
                for d in named_children(c) {
                    self.item(d, ns, template)?;
                }
                Ok(())
            }
            "struct_specifier" | "class_specifier" | "union_specifier" => {
                self.members(c);
                Ok(())
            }
            "declaration" => {
                if let Some(t) = c.child_by_field_name("type")
                    && matches!(
                        t.kind(),
                        "struct_specifier" | "class_specifier" | "union_specifier"
                    )
                {
                    self.members(t);
                }
                let marks = self.marks(c);
                let mut w = c.walk();
                let functions = c
                    .children_by_field_name("declarator", &mut w)
                    .any(|d| self.is_function(d));
                if functions {
                    // A prototype of a device function goes with the function.
                    if marks.device && !marks.host && !marks.global {
                        self.remove(template.unwrap_or(c));
                    }
                } else if template.is_some()
                    && (marks.device || marks.constant || marks.managed)
                    && !marks.shared
                {
                    // Each instance would need its own symbol, registered where the host
                    // names it: warpsim has no such registration.
                    return Err(self.error(
                        c,
                        "a variable template in device memory (`template <typename T> \
                         __constant__ T name[...]`) is not supported by warpsim",
                        "declare one variable for each type used (`__constant__ float \
                         mask_float[...]`), or pass the values as a kernel parameter",
                    ));
                } else {
                    self.variable(c);
                }
                Ok(())
            }
            "type_definition" => {
                if let Some(t) = c.child_by_field_name("type") {
                    self.members(t);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Device-only member functions of a struct or class: removed.
    fn members(&mut self, s: Node<'_>) {
        let Some(body) = s.child_by_field_name("body") else {
            return;
        };
        for m in named_children(body) {
            let (def, outer) = match m.kind() {
                "function_definition" => (m, m),
                "template_declaration" => match named_children(m)
                    .into_iter()
                    .find(|d| d.kind() == "function_definition")
                {
                    Some(d) => (d, m),
                    None => continue,
                },
                "field_declaration" => {
                    if let Some(t) = m.child_by_field_name("type") {
                        self.members(t);
                    }
                    continue;
                }
                _ => continue,
            };
            let marks = self.marks(def);
            if marks.device && !marks.host {
                self.remove(outer);
            }
        }
    }

    fn remove(&mut self, n: Node<'_>) {
        self.edits.push(Edit {
            start: n.start_byte(),
            end: n.end_byte(),
            text: newlines(self.text(n)),
        });
    }

    fn function(
        &mut self,
        f: Node<'_>,
        ns: &str,
        template: Option<Node<'_>>,
    ) -> Result<(), Diagnostic> {
        let marks = self.marks(f);
        if marks.global {
            return self.kernel(f, ns, template);
        }
        if marks.device && !marks.host {
            self.remove(template.unwrap_or(f));
        }
        Ok(())
    }

    /// A kernel's body becomes its stub, and a registration follows the definition.
    fn kernel(
        &mut self,
        f: Node<'_>,
        ns: &str,
        template: Option<Node<'_>>,
    ) -> Result<(), Diagnostic> {
        let (Some(decl), Some(body)) = (
            f.child_by_field_name("declarator"),
            f.child_by_field_name("body"),
        ) else {
            return Ok(());
        };
        let mut d = decl;
        while d.kind() != "function_declarator" {
            match d.child_by_field_name("declarator") {
                Some(x) => d = x,
                None => return Ok(()),
            }
        }
        let Some(name_node) = d.child_by_field_name("declarator") else {
            return Ok(());
        };
        let name = self.text(name_node).to_string();
        // The parameters, named where the source left them unnamed, and their types as written
        // (as the device pass's `Param::written` has them).
        // A function parameter pack (`ArgTypes... args`) is its elements' addresses, expanded.
        let mut params = Vec::new();
        let mut types = Vec::new();
        let mut pack = false;
        if let Some(list) = d.child_by_field_name("parameters") {
            let mut cur = list.walk();
            if let Some(dots) = list.children(&mut cur).find(|c| c.kind() == "...") {
                return Err(self.error(
                    dots,
                    "a kernel with C's variadic arguments (`...`) is not supported by warpsim \
                     (nor by nvcc)",
                    "give the kernel a fixed list of parameters, or a parameter pack \
                     (`template <typename... Ts> __global__ void k(Ts... args)`)",
                ));
            }
            for (k, p) in named_children(list).into_iter().enumerate() {
                match p.kind() {
                    "parameter_declaration" | "optional_parameter_declaration" => {}
                    "variadic_parameter_declaration" => pack = true,
                    _ => continue,
                }
                if self.text(p).trim() == "void" {
                    continue;
                }
                let declarator = p.child_by_field_name("declarator");
                let named = declarator.map(|d| self.declared_name(d));
                // The declaration without its default argument, then without its name.
                let written = self.without_default(p);
                let written = named
                    .as_ref()
                    .and_then(|n| written.strip_suffix(n.as_deref()?))
                    .unwrap_or(written);
                types.push(written.split_whitespace().collect::<Vec<_>>().join(" "));
                match named {
                    Some(Some(n)) if p.kind() == "variadic_parameter_declaration" => {
                        params.push(format!("{n}..."))
                    }
                    Some(Some(n)) => params.push(n),
                    Some(None) => {
                        return Err(self.error(
                            p,
                            "this kernel parameter's declarator",
                            "name the parameter",
                        ));
                    }
                    None => {
                        let n = format!("__warpsim_p{k}");
                        self.edits.push(Edit {
                            start: p.end_byte(),
                            end: p.end_byte(),
                            text: format!(" {n}"),
                        });
                        params.push(n);
                    }
                }
            }
        }
        let (tparams, targs) = match template {
            Some(t) => self.template_params(t)?,
            None => (String::new(), Vec::new()),
        };
        let id = format!("{}_{}", self.tag, self.next);
        self.next += 1;
        // Qualified: a parameter may have the kernel's name (`lb_keogh(..., float *lb_keogh)`),
        // and inside the stub the bare name would be the parameter.
        let function = if targs.is_empty() {
            format!("::{ns}{name}")
        } else {
            format!(
                "::{ns}{name}<{}>",
                targs
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let overloaded = self.overloaded.contains(&format!("{ns}{name}"));
        let signature = types.join(", ");
        // The kernel's address (`&k` alone names no function when `k` is overloaded).
        let callee = if overloaded {
            format!("static_cast<void (*)({signature})>(&{function})")
        } else {
            format!("&{function}")
        };
        let args = if params.is_empty() {
            "nullptr"
        } else {
            "__warpsim_args"
        };
        let pack = if params.is_empty() {
            String::new()
        } else {
            // (An element past the pack's, which may be empty: no array has no elements.)
            format!(
                "void *__warpsim_args[] = {{{}{}}}; ",
                params
                    .iter()
                    .map(|p| match p.strip_suffix("...") {
                        Some(p) => format!("(void *)&{p}..."),
                        None => format!("(void *)&{p}"),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                if pack { ", nullptr" } else { "" }
            )
        };
        // An overload's name carries its parameter types, which the device pass matches
        // (`fill(float *)`); a template's, its arguments first (`fill<float>(T *)`).
        let suffix = if overloaded {
            format!(" + \"({signature})\"")
        } else {
            String::new()
        };
        let qualified = if overloaded && targs.is_empty() {
            format!("\"{ns}\" __WARPSIM_XSTR({name}) \"({signature})\"")
        } else {
            format!("\"{ns}\" __WARPSIM_XSTR({name})")
        };
        let (touch, register) = if targs.is_empty() {
            (
                String::new(),
                format!(
                    " static const int __warpsim_kernel_{id} = ::__warpsim_register_kernel((const void *){callee}, {qualified}, __WARPSIM_UNIT);"
                ),
            )
        } else {
            let spell = targs
                .iter()
                .map(|(n, is_type)| {
                    // A pack's elements each (`Ts...`: `type_name<Ts>()...`).
                    let (n, dots) = n
                        .strip_suffix("...")
                        .map_or((n.as_str(), ""), |n| (n, "..."));
                    if *is_type {
                        format!("::__warpsim::type_name<{n}>(){dots}")
                    } else {
                        format!("::__warpsim::value_name({n}){dots}")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            let targ_list = targs
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            // Declared before the kernel (its body names it), defined after it.
            let t = template.expect("template arguments come from a template");
            self.edits.push(Edit {
                start: t.start_byte(),
                end: t.start_byte(),
                text: format!("template <{tparams}> struct __warpsim_kernel_{id}; "),
            });
            (
                format!("(void)__warpsim_kernel_{id}<{targ_list}>::done; "),
                format!(
                    " template <{tparams}> struct __warpsim_kernel_{id} {{ static inline const int done = ::__warpsim_register_kernel((const void *){callee}, (::__warpsim::kernel_name({qualified}, {{{spell}}}){suffix}).c_str(), __WARPSIM_UNIT); }};"
                ),
            )
        };
        let stub = format!(
            "{{ {touch}{pack}::__warpsim::launch_stub((const void *){callee}, {args}); }}{}",
            newlines(self.text(body))
        );
        self.edits.push(Edit {
            start: body.start_byte(),
            end: body.end_byte(),
            text: stub,
        });
        let end = template.unwrap_or(f).end_byte();
        self.edits.push(Edit {
            start: end,
            end,
            text: register,
        });
        self.kernels.push(format!("{ns}{name}"));
        Ok(())
    }

    /// A parameter declaration up to the end of its declarator: without its default (`= 4`).
    fn without_default(&self, p: Node<'_>) -> &'a str {
        let text = self.text(p);
        p.child_by_field_name("declarator")
            .map_or(text, |d| &text[..d.end_byte() - p.start_byte()])
    }

    /// The name a declarator declares (`*a`, `a[4]`, `__restrict__ a`).
    fn declared_name(&self, d: Node<'_>) -> Option<String> {
        match d.kind() {
            "identifier" | "field_identifier" => Some(self.text(d).to_string()),
            "abstract_pointer_declarator"
            | "abstract_array_declarator"
            | "abstract_reference_declarator" => None,
            _ => match d.child_by_field_name("declarator") {
                Some(x) => self.declared_name(x),
                // (`... args` is a pack's, `&... args` a pack of references.)
                None => named_children(d)
                    .into_iter()
                    .rev()
                    .find_map(|c| match c.kind() {
                        "identifier" => Some(self.text(c).to_string()),
                        "variadic_declarator" => self.declared_name(c),
                        _ => None,
                    }),
            },
        }
    }

    /// A template's parameters without their defaults (`typename T, int B`) and its arguments
    /// (name, whether a type; a pack's name is followed by `...`).
    fn template_params(&self, t: Node<'_>) -> Result<(String, Vec<(String, bool)>), Diagnostic> {
        let Some(list) = t.child_by_field_name("parameters") else {
            return Ok((String::new(), Vec::new()));
        };
        let mut decls = Vec::new();
        let mut args = Vec::new();
        for p in named_children(list) {
            match p.kind() {
                "type_parameter_declaration" | "optional_type_parameter_declaration" => {
                    let n = named_children(p)
                        .into_iter()
                        .find(|x| x.kind() == "type_identifier")
                        .map(|x| self.text(x).to_string())
                        .ok_or_else(|| self.error(p, "an unnamed template parameter", "name it"))?;
                    decls.push(format!("typename {n}"));
                    args.push((n, true));
                }
                "parameter_declaration" | "optional_parameter_declaration" => {
                    let d = p
                        .child_by_field_name("declarator")
                        .ok_or_else(|| self.error(p, "an unnamed template parameter", "name it"))?;
                    let n = self
                        .declared_name(d)
                        .ok_or_else(|| self.error(p, "this template parameter", "name it"))?;
                    let prefix = self.without_default(p);
                    decls.push(prefix.split_whitespace().collect::<Vec<_>>().join(" "));
                    args.push((n, false));
                }
                // `typename... Ts`, `int... Ns`.
                "variadic_type_parameter_declaration" | "variadic_parameter_declaration" => {
                    let is_type = p.kind() == "variadic_type_parameter_declaration";
                    let n = if is_type {
                        named_children(p)
                            .into_iter()
                            .find(|x| x.kind() == "type_identifier")
                            .map(|x| self.text(x).to_string())
                    } else {
                        p.child_by_field_name("declarator")
                            .and_then(|d| self.declared_name(d))
                    }
                    .ok_or_else(|| {
                        self.error(p, "an unnamed template parameter pack", "name it")
                    })?;
                    decls.push(
                        self.text(p)
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" "),
                    );
                    args.push((format!("{n}..."), is_type));
                }
                _ => {
                    return Err(self.error(
                        p,
                        "this kind of template parameter on a kernel",
                        "kernels take type and integer template parameters",
                    ));
                }
            }
        }
        Ok((decls.join(", "), args))
    }

    /// Whether a declarator declares a function (`f(int)`, `*f(int)`).
    fn is_function(&self, d: Node<'_>) -> bool {
        d.kind() == "function_declarator"
            || d.child_by_field_name("declarator")
                .is_some_and(|x| d.kind() != "init_declarator" && self.is_function(x))
    }

    /// A device variable or a texture reference (`texture<float, 2> t;`, whose device side
    /// holds the texture object bound to it): registered after its declaration.
    fn variable(&mut self, d: Node<'_>) {
        let marks = self.marks(d);
        let texture = d.child_by_field_name("type").is_some_and(|t| {
            t.kind() == "template_type"
                && t.child_by_field_name("name")
                    .is_some_and(|n| self.text(n) == "texture")
        });
        if !(marks.device || marks.constant || marks.managed || texture)
            || marks.is_extern
            || marks.shared
        {
            return;
        }
        let mut c = d.walk();
        let mut register = String::new();
        for decl in d.children_by_field_name("declarator", &mut c) {
            if decl.kind() == "function_declarator" {
                continue;
            }
            let Some(name) = self.declared_name(decl) else {
                continue;
            };
            let id = format!("{}_{}", self.tag, self.next);
            self.next += 1;
            register.push_str(&format!(
                " static const int __warpsim_symbol_{id} = ::__warpsim_register_symbol((const void *)&{name}, __WARPSIM_XSTR({name}), __WARPSIM_UNIT);"
            ));
            self.symbols.push(name);
        }
        if register.is_empty() {
            return;
        }
        self.edits.push(Edit {
            start: d.end_byte(),
            end: d.end_byte(),
            text: register,
        });
    }

    /// Every `<<<>>>` launch outside the removed regions.
    /// Every launch in the tree under `root` (walked without recursion: expressions may nest
    /// deeper than the stack allows).
    fn launches(&mut self, root: Node<'_>) -> Result<(), Diagnostic> {
        let mut todo = vec![root];
        while let Some(n) = todo.pop() {
            if matches!(n.kind(), "preproc_def" | "preproc_function_def") {
                self.macro_launches(n)?;
                continue;
            }
            self.launch(n, self.src, 0, None)?;
            todo.extend(named_children(n));
        }
        Ok(())
    }

    /// The launches in a macro's body (`#define RUN(p) k<<<1, 1>>>(p)`): the body is parsed
    /// as a statement of its own, its continuation lines as spaces of the same length.
    fn macro_launches(&mut self, n: Node<'_>) -> Result<(), Diagnostic> {
        let Some(v) = n.child_by_field_name("value") else {
            return Ok(());
        };
        let body = self.text(v);
        if !body.contains("<<<") {
            return Ok(());
        }
        const OPEN: &str = "void __warpsim_macro() {\n";
        let snippet = format!("{OPEN}{}\n;}}", body.replace("\\\n", "  "));
        let mut parser = tree_sitter::Parser::new();
        let Some(tree) = parser
            .set_language(&tree_sitter_cuda::LANGUAGE.into())
            .ok()
            .and_then(|()| parser.parse(&snippet, None))
        else {
            return Ok(());
        };
        let shift = v.start_byte() as isize - OPEN.len() as isize;
        let mut todo = vec![tree.root_node()];
        while let Some(m) = todo.pop() {
            self.launch(m, snippet.as_bytes(), shift, Some(n))?;
            todo.extend(named_children(m));
        }
        Ok(())
    }

    /// The edits of launch `n`, a node of the text `src` whose byte `b` is the file's byte
    /// `b + shift` (a macro's body is parsed apart: `def` is the macro, where errors point).
    fn launch(
        &mut self,
        n: Node<'_>,
        src: &[u8],
        shift: isize,
        def: Option<Node<'_>>,
    ) -> Result<(), Diagnostic> {
        if n.kind() == "call_expression"
            && let Some(cfg) = named_children(n)
                .into_iter()
                .find(|c| c.kind() == "kernel_call_syntax")
        {
            let text = |n: Node<'_>| std::str::from_utf8(&src[n.byte_range()]).unwrap_or("");
            let at = |b: usize| (b as isize + shift) as usize;
            let callee = n.child_by_field_name("function").unwrap_or(n);
            let args = named_children(cfg)
                .into_iter()
                .map(|a| text(a).split_whitespace().collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>();
            if !(2..=4).contains(&args.len()) {
                let msg = format!("a launch configuration of {} values", args.len());
                let help = "write <<<grid, block>>>, <<<grid, block, shared bytes>>> or <<<grid, block, shared bytes, stream>>>";
                return Err(self.error(def.unwrap_or(cfg), msg, help));
            }
            // The configuration's lines stay, after the call (continued, in a macro).
            let (start, end) = (at(cfg.start_byte()), at(cfg.end_byte()));
            let lines = newlines(std::str::from_utf8(&self.src[start..end]).unwrap_or(""));
            let lines = match def {
                None => lines,
                Some(_) => lines.replace('\n', " \\\n"),
            };
            self.edits.push(Edit {
                start: at(callee.start_byte()),
                end: at(callee.start_byte()),
                text: format!("(__cudaPushCallConfiguration({}), ", args.join(", ")),
            });
            self.edits.push(Edit {
                start,
                end,
                text: String::new(),
            });
            self.edits.push(Edit {
                start: at(n.end_byte()),
                end: at(n.end_byte()),
                text: format!("){lines}"),
            });
        }
        Ok(())
    }
}

/// A `#define` of a file or of the headers it includes.
struct Definition {
    name: String,
    /// Whether it is function-like (`K(f)`).
    function: bool,
    /// The replacement text.
    body: String,
}

/// The directives of `headers` and then of `text`, in order, each with its continuation
/// lines joined and without its `#` (`define K(f) body`).
fn directives(text: &str, headers: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = headers.iter().chain([&text]).flat_map(|t| t.lines());
    while let Some(first) = lines.next() {
        let Some(rest) = first.trim_start().strip_prefix('#') else {
            continue;
        };
        let mut d = rest.trim_start().to_string();
        while d.ends_with('\\') {
            d.pop();
            match lines.next() {
                Some(l) => d.push_str(l),
                None => break,
            }
        }
        out.push(d);
    }
    out
}

/// The `#define`s of `headers` and then of `text`, in order.
fn definitions(text: &str, headers: &[&str]) -> Vec<Definition> {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    for d in directives(text, headers) {
        let Some(rest) = d.strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let n = rest.bytes().take_while(|&c| ident(c)).count();
        if n == 0 {
            continue;
        }
        let (name, after) = rest.split_at(n);
        let (function, body) = match after.strip_prefix('(') {
            Some(a) => match a.find(')') {
                Some(close) => (true, &a[close + 1..]),
                None => continue,
            },
            None => (false, after),
        };
        out.push(Definition {
            name: name.to_string(),
            function,
            body: body.to_string(),
        });
    }
    out
}

/// `text` with every invocation of a macro whose expansion defines device code (`KERNEL(f)`
/// for `#define KERNEL(f) __global__ void k_##f(...) {...}`, directly or through other
/// macros) replaced by that expansion, as warpsim's preprocessor makes it from the
/// directives of `text` and its `headers`: the split must see those kernels to write their
/// stubs, or the host compiler would compile their bodies. The expansion takes the
/// invocation's first line and the invocation's newlines follow it, so lines are kept.
/// An invocation that cannot be expanded is an error: its byte offset and what went wrong.
fn expand_device_macros<'t>(
    text: &'t str,
    headers: &[&str],
) -> Result<std::borrow::Cow<'t, str>, (usize, String)> {
    const MARKS: [&str; 4] = ["__global__", "__device__", "__constant__", "__managed__"];
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let defs = definitions(text, headers);
    // Macros that expand to device code, directly or through one another.
    let mut device: HashSet<String> = HashSet::new();
    loop {
        let before = device.len();
        for d in &defs {
            if words(&d.body)
                .iter()
                .any(|w| MARKS.contains(&w.as_str()) || device.contains(w))
            {
                device.insert(d.name.clone());
            }
        }
        if device.len() == before {
            break;
        }
    }
    if !device.iter().any(|n| text.contains(n.as_str())) {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    // The macros as the host compiler defines them: the conditionals are kept and read
    // without `__CUDA_ARCH__`, and `__host__` stays a word (the device pass defines it as
    // nothing; a `__host__ __device__` function must stay in the host pass); includes (read
    // in `headers`) and diagnostics are left out.
    let prelude: String = ["undef __CUDA_ARCH__".to_string(), "undef __host__".into()]
        .into_iter()
        .chain(directives(text, headers))
        .filter(|d| {
            let word = d.split(|c: char| !c.is_ascii_alphabetic()).next();
            matches!(
                word,
                Some("define" | "undef" | "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif")
            )
        })
        .map(|d| format!("#{d}\n"))
        .collect();
    // Expansions by invocation (`HD` may be written many times).
    let mut expansions: std::collections::HashMap<&str, String> = Default::default();
    let mut expand = |invocation: &'t str| -> Result<String, String> {
        if let Some(e) = expansions.get(invocation) {
            return Ok(e.clone());
        }
        let mut sources = Sources::default();
        let source = format!("{prelude}{invocation}\n");
        let options = super::preprocess::Options::default();
        let pp = super::preprocess::preprocess(
            &mut sources,
            "macro",
            &source,
            std::path::Path::new("."),
            &options,
        )
        .map_err(|d| d.message)?;
        let e = pp.text.split_whitespace().collect::<Vec<_>>().join(" ");
        expansions.insert(invocation, e.clone());
        Ok(e)
    };
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut at, mut i) = (0, 0);
    let mut line_start = true;
    let mut directive = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                // A directive's continuation lines are the directive's.
                if !(directive && i > 0 && b[i - 1] == b'\\') {
                    (line_start, directive) = (true, false);
                }
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(text.len() - i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += text[i + 2..].find("*/").map_or(text.len() - i, |e| e + 4);
                continue;
            }
            b'"' | b'\'' => {
                // A literal, to its closing quote.
                let mut j = i + 1;
                while j < b.len() && b[j] != c && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                i = j + 1;
                continue;
            }
            _ => {}
        }
        if line_start && !c.is_ascii_whitespace() {
            directive = c == b'#';
            line_start = false;
        }
        if directive || !ident(c) || (i > 0 && ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let n = b[i..].iter().take_while(|&&c| ident(c)).count();
        let word = &text[i..i + n];
        let mut end = i + n;
        let def = defs.iter().rev().find(|d| d.name == word);
        match def {
            Some(d) if device.contains(word) => {
                if d.function {
                    // The argument list, balanced (a function-like macro's name alone is no
                    // invocation).
                    let j = end
                        + b[end..]
                            .iter()
                            .take_while(|c| c.is_ascii_whitespace())
                            .count();
                    if b.get(j) != Some(&b'(') {
                        i = end;
                        continue;
                    }
                    end = past_parens(b, j);
                }
                let e = expand(&text[i..end]).map_err(|msg| (i, msg))?;
                out.push_str(&text[at..i]);
                out.push_str(&e);
                out.push_str(&newlines(&text[i..end]));
                at = end;
            }
            _ => {}
        }
        i = end;
    }
    if at == 0 {
        return Ok(std::borrow::Cow::Borrowed(text));
    }
    out.push_str(&text[at..]);
    Ok(std::borrow::Cow::Owned(out))
}

/// `text` with every invocation of a macro it or its `headers` define as nothing (`#define NAME` or
/// `#define NAME(args)` with no body), and every `__restrict`, replaced by spaces, newlines
/// kept; so is a line that invokes a macro whose body is whole declarations or statements
/// (ends in `;` or `}`: `DECLARE(int, 8)` with no `;` after it, which the grammar would read
/// as the start of a declaration running into the next ones), unless it holds a launch.
fn blank_empty_macros<'t>(text: &'t str, headers: &[&str]) -> std::borrow::Cow<'t, str> {
    #[derive(PartialEq)]
    enum Blank {
        Word,
        Call,
        Line,
    }
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    // GCC's `__restrict`, which the grammar takes only right after a `*` (`float *const
    // __restrict p` would declare `__restrict`), reads as nothing, as in the device pass.
    let mut names: Vec<(String, Blank)> = vec![("__restrict".to_string(), Blank::Word)];
    for d in definitions(text, headers) {
        let body = d.body.split("//").next().unwrap_or("").trim();
        if body.is_empty() && !d.name.starts_with("__") {
            let kind = if d.function { Blank::Call } else { Blank::Word };
            names.push((d.name.to_string(), kind));
        } else if d.function && (body.ends_with(';') || body.ends_with('}')) {
            names.push((d.name.to_string(), Blank::Line));
        }
    }
    if !names.iter().any(|(n, _)| text.contains(n.as_str())) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.as_bytes().to_vec();
    let b = text.as_bytes();
    let mut line_start = true;
    let mut directive = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            (line_start, directive) = (true, false);
            i += 1;
            continue;
        }
        let first = line_start && !c.is_ascii_whitespace();
        if first {
            directive = c == b'#';
            line_start = false;
        }
        if directive || !ident(c) || (i > 0 && ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let n = b[i..].iter().take_while(|&&c| ident(c)).count();
        let word = &text[i..i + n];
        let mut end = i + n;
        match names.iter().find(|(m, _)| m == word) {
            Some((_, Blank::Word)) => {}
            Some((_, kind)) if *kind == Blank::Call || first => {
                // The argument list, balanced.
                let mut j = end;
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                    j += 1;
                }
                if j < b.len() && b[j] == b'(' {
                    end = past_parens(b, j);
                } else {
                    i = end;
                    continue;
                }
                // A declaration macro's line: the invocation alone on it, holding no launch.
                if *kind == Blank::Line {
                    let tail = text[end..].split('\n').next().unwrap_or("");
                    let tail = tail.split("//").next().unwrap_or("");
                    if !tail.trim().is_empty() || text[i..end].contains("<<<") {
                        i = end;
                        continue;
                    }
                }
            }
            _ => {
                i = end;
                continue;
            }
        }
        for o in &mut out[i..end] {
            if *o != b'\n' {
                *o = b' ';
            }
        }
        i = end;
    }
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

/// The index just past the `)` that closes the `(` at `open` (the end of `b` if none does).
fn past_parens(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_after_macros_defined_as_nothing_are_rewritten() {
        let src = "#define PERF_BEGIN\n#define PERF_END(x)\nvoid f(float *p) {\n  PERF_BEGIN\n  \
                   k<<<1, 32>>>(p);\n  PERF_END(\"k (1)\")\n}\n";
        let out = host(src);
        assert!(
            out.contains("(__cudaPushCallConfiguration(1, 32), k(p))"),
            "{out}"
        );
        // The invocations stay in the host code, for the C++ compiler's preprocessor.
        assert!(
            out.contains("  PERF_BEGIN\n") && out.contains("PERF_END(\"k (1)\")"),
            "{out}"
        );
    }

    #[test]
    fn restrict_and_declaration_macros_do_not_derail_the_parse() {
        // `__restrict` after `const` (HeCBench bh): the parameter is `r`, not `__restrict`.
        let h = host("__global__ void k(const float *const __restrict r, int n) {}\n");
        assert!(h.contains("{(void *)&r, (void *)&n}"), "{h}");
        // A macro invoked as declarations with no `;` after it (HeCBench blockAccess's
        // utils.h): the device function after the invocations still goes, the invocations
        // stay for the host compiler, and a launch in such an invocation is still rewritten.
        let src = "#define ALIGN(t, b) \\\n  template <> struct A<t> \\\n  { enum { V = b }; };\n\
                   ALIGN(short4, 8)\nALIGN(long long, 8)\n\
                   __device__ int tid() { return threadIdx.x; }\n\
                   #define RUN(x) { x; }\nvoid f(float *p) {\nRUN(k<<<1, 1>>>(p))\n}\n";
        let h = host(src);
        assert!(!h.contains("threadIdx"), "{h}");
        assert!(h.contains("ALIGN(short4, 8)\nALIGN(long long, 8)\n"), "{h}");
        assert!(
            h.contains("(__cudaPushCallConfiguration(1, 1), k(p))"),
            "{h}"
        );
    }

    #[test]
    fn variable_templates_in_device_memory_and_c_variadic_kernels_are_refused() {
        // HeCBench convolution1D: g++ said "missing template arguments" of the registration.
        let src = "#define W 8\ntemplate <typename T>\n__constant__ T mask [W];\n";
        let e = host_file("t.cu", src, &[]).unwrap_err().to_string();
        assert!(e.contains("t.cu:3:1"), "{e}");
        assert!(e.contains("a variable template in device memory"), "{e}");
        // C's variadic arguments.
        let src = "__global__ void k(int n, ...) {}\n";
        let e = host_file("t.cu", src, &[]).unwrap_err().to_string();
        assert!(e.contains("t.cu:1:26"), "{e}");
        assert!(e.contains("C's variadic arguments"), "{e}");
        // A host variable template is the host's.
        let ok = host_file("t.cu", "template <typename T> T zero = T();\n", &[]);
        assert!(ok.is_ok());
    }

    #[test]
    fn a_variadic_kernel_passes_and_names_its_packs_elements() {
        // HeCBench axpby's multi_tensor_apply.cuh: a kernel template over a parameter pack.
        let src =
            "template <typename T, typename... A>\n__global__ void k(T t, const A &...args) {}\n";
        let h = host_file("t.cu", src, &[]).unwrap().text;
        assert!(
            h.contains("void *__warpsim_args[] = {(void *)&t, (void *)&args..., nullptr};"),
            "{h}"
        );
        assert!(
            h.contains("{::__warpsim::type_name<T>(), ::__warpsim::type_name<A>()...}"),
            "{h}"
        );
        assert!(h.contains("(void)__warpsim_kernel_"), "{h}");
        assert!(h.contains("<T, A...>::done"), "{h}");
        assert!(
            h.contains("template <typename T, typename... A> struct"),
            "{h}"
        );
    }

    #[test]
    fn macros_of_included_headers_are_read_too() {
        // Rodinia dwt2d: PERF_BEGIN and PERF_END are defined as nothing in common.h, and the
        // launch between them sits in a function template.
        let header = "#ifdef T\n#define PERF_BEGIN {\n#else\n#define PERF_BEGIN\n\
                      #define PERF_END(n) }\n#endif\n";
        let src = "template <int X, int Y>\nvoid run(float *p) {\n  PERF_BEGIN\n  \
                   k<X, Y><<<1, X>>>(p);\n  PERF_END(\"k\")\n}\n";
        let out = host_file("t.cu", src, &[header]).unwrap().text;
        assert!(
            out.contains("(__cudaPushCallConfiguration(1, X), k<X, Y>(p))"),
            "{out}"
        );
        let alone = host_file("t.cu", src, &[]).unwrap().text;
        assert!(!alone.contains("__cudaPushCallConfiguration"), "{alone}");
    }

    #[test]
    fn host_device_functions_marked_by_macros_stay() {
        // HeCBench idivide's fastdiv.h: a converting constructor marked by such a macro.
        let src = "#ifdef __CUDACC__\n#define ESS __host__ __device__ __forceinline__\n#else\n\
                   #define ESS inline\n#endif\n#define DEV __device__\n\
                   struct fd {\n  ESS\n  fd(int d = 0) : d(d) {}\n  int d;\n};\n\
                   DEV int only_device() { return 1; }\n";
        let h = host(src);
        assert!(h.contains("fd(int d = 0) : d(d) {}"), "{h}");
        assert!(!h.contains("only_device"), "{h}");
    }

    #[test]
    fn kernels_and_device_functions_from_macros_are_split_as_expanded() {
        // Macros of a header, read as the host compiler reads them (without __CUDA_ARCH__).
        let header = "#ifdef __CUDA_ARCH__\n#define SIDE device_side\n#else\n\
                      #define SIDE host_side\n#endif\n\
                      #define DEV(n) __device__ int n() { return 1; }\n";
        let src = "#define KERNEL(f) \\\n  __global__ void k_##f(int *o) { o[threadIdx.x] = f(); } \\\n  \
                   int SIDE;\n#define BOTH(f) DEV(f) KERNEL(f)\n\
                   BOTH(one)\n// KERNEL(comment)\nconst char *s = \"KERNEL(s)\";\n\
                   int main() { k_one<<<1, 1>>>(0); }\n";
        let h = host_file("t.cu", src, &[header]).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(h.kernels, ["k_one"]);
        assert_eq!(
            h.text.lines().count(),
            src.lines().count() + 1,
            "{}",
            h.text
        );
        // The kernel, on its invocation's line, is a stub; the device function is gone.
        let line = h.text.lines().nth(5).unwrap();
        assert!(line.contains("void k_one ( int * o ) {"), "{line}");
        assert!(
            line.contains("launch_stub") && line.contains("int host_side ;"),
            "{line}"
        );
        assert!(
            !line.contains("threadIdx") && !line.contains("one()"),
            "{line}"
        );
        // Comments and literals are left as written.
        assert!(
            h.text
                .contains("// KERNEL(comment)\nconst char *s = \"KERNEL(s)\";\n")
        );
        // Where the expansion fails, the invocation is the error, not the host compiler's.
        let src = "#if FOO(1)\n#endif\n#define K __global__ void k() {}\nint x; K\n";
        let e = host_file("t.cu", src, &[]).unwrap_err().to_string();
        assert!(
            e.contains("t.cu:4:8") && e.contains("could not expand"),
            "{e}"
        );
    }

    fn host(src: &str) -> String {
        host_file("t.cu", src, &[])
            .unwrap_or_else(|d| panic!("{d}"))
            .text
    }

    #[test]
    fn kernels_become_stubs_and_device_code_goes() {
        let src = "__device__ float sq(float x) { return x * x; }\n\
                   __host__ __device__ float both(float x) { return x + 1; }\n\
                   __global__ void k(float *x, int) {\n  x[0] = sq(1.0f);\n}\n\
                   int main() { k<<<1, 32>>>(0, 1); }\n";
        let h = host(src);
        assert_eq!(h.lines().count(), src.lines().count() + 1, "{h}");
        assert!(h.starts_with("#line 1 \"t.cu\"\n"));
        assert!(!h.contains("sq(float x)"), "{h}");
        assert!(h.contains("__host__ __device__ float both(float x) { return x + 1; }"));
        assert!(h.contains("void k(float *x, int __warpsim_p1) { void *__warpsim_args[] = {(void *)&x, (void *)&__warpsim_p1}; ::__warpsim::launch_stub((const void *)&::k, __warpsim_args); }"), "{h}");
        assert!(h.contains(
            "__warpsim_register_kernel((const void *)&::k, \"\" __WARPSIM_XSTR(k), __WARPSIM_UNIT);"
        ));
        assert!(
            h.contains("(__cudaPushCallConfiguration(1, 32), k(0, 1))"),
            "{h}"
        );
    }

    #[test]
    fn templates_namespaces_and_symbols() {
        let src = "namespace ns {\ntemplate <typename T, unsigned int B = 256>\n\
                   __global__ void red(const T *a) {}\n}\n\
                   __constant__ float coef[16];\nstatic __device__ int counter = 0;\n\
                   extern __device__ int elsewhere;\ntexture<float, 2> tex;\n";
        let h = host_file("t.cu", src, &[]).unwrap();
        assert_eq!(h.kernels, vec!["ns::red"]);
        assert_eq!(h.symbols, vec!["coef", "counter", "tex"]);
        let t = h.text;
        let tag = &t[t.find("__warpsim_kernel_").expect("a registration") + 17..][..10];
        assert!(t.contains(&format!("template <typename T, unsigned int B> struct __warpsim_kernel_{tag}; template <typename T, unsigned int B = 256>")), "{t}");
        assert!(
            t.contains(&format!("(void)__warpsim_kernel_{tag}<T, B>::done;")),
            "{t}"
        );
        // Another file's generated names differ (a header with kernels is split apart from
        // the file that includes it).
        let other = host_file("u.cuh", src, &[]).unwrap().text;
        assert!(
            !other.contains(&format!("__warpsim_kernel_{tag}")),
            "{other}"
        );
        assert!(t.contains("::__warpsim::kernel_name(\"ns::\" __WARPSIM_XSTR(red), {::__warpsim::type_name<T>(), ::__warpsim::value_name(B)})"), "{t}");
        assert!(t.contains(
            "__warpsim_register_symbol((const void *)&coef, __WARPSIM_XSTR(coef), __WARPSIM_UNIT)"
        ));
        assert!(!t.contains("&elsewhere"), "{t}");
        // A parameter whose type name contains its own name, with a default.
        let src = "enum class Op { Add };\ntemplate <typename T, Op O = Op::Add>\n\
                   __global__ void k(T *a) {}\n";
        let t = host_file("e.cu", src, &[]).unwrap().text;
        assert!(
            t.contains("template <typename T, Op O> struct __warpsim_kernel_"),
            "{t}"
        );
    }

    #[test]
    fn launch_configurations_keep_lines() {
        let src =
            "void f(float *p, cudaStream_t s) {\n  k<<<dim3(4, 4),\n     256, 0, s>>>(p);\n}\n";
        let h = host(src);
        assert!(
            h.contains("(__cudaPushCallConfiguration(dim3(4, 4), 256, 0, s), k(p))\n;\n}"),
            "{h}"
        );
        assert_eq!(h.lines().count(), src.lines().count() + 1);
        let bad = host_file("t.cu", "void f() { k<<<1>>>(); }", &[]).unwrap_err();
        assert!(
            bad.message.contains("a launch configuration of 1 values"),
            "{bad}"
        );
    }

    #[test]
    fn launches_in_macros_are_rewritten_and_keep_their_lines() {
        let src = "#define RUN(p, n) k<<<(n + 255) / 256, \\\n    256>>>(p, n)\n\
                   #define TWICE(p) do { k<<<1, 1>>>(p, 1); \\\n k<<<2, 1, 0, 0>>>(p, 2); } while (0)\n\
                   #define PLAIN 3\n";
        let h = host(src);
        assert!(
            h.contains("(__cudaPushCallConfiguration((n + 255) / 256, 256), k(p, n)) \\\n"),
            "{h}"
        );
        assert!(
            h.contains("(__cudaPushCallConfiguration(2, 1, 0, 0), k(p, 2))"),
            "{h}"
        );
        assert!(h.contains("#define PLAIN 3"), "{h}");
        assert_eq!(h.lines().count(), src.lines().count() + 1);
        let bad = host_file("t.cu", "#define BAD k<<<1>>>()\n", &[]).unwrap_err();
        assert!(
            bad.message.contains("a launch configuration of 1 values") && bad.line == 1,
            "{bad}"
        );
    }

    #[test]
    fn device_members_and_prototypes_go() {
        let src = "template <class T> struct SharedMemory {\n  __device__ operator T *() { extern __shared__ int s[]; return (T *)s; }\n  __host__ __device__ int size() { return 1; }\n};\n__device__ float g(float);\n";
        let h = host(src);
        assert!(!h.contains("operator T"), "{h}");
        assert!(!h.contains("float g(float)"), "{h}");
        assert!(h.contains("int size() { return 1; }"));
    }
}
