//! Parsing: the preprocessed text through the `tree-sitter-cuda` grammar (a C++ grammar with
//! CUDA's qualifiers and `<<<...>>>` launches), then the concrete tree into the [`ast`](super::ast).
//!
//! Only device code is converted: `__global__` and `__device__` functions (also inside
//! templates, namespaces and `extern "C"`), structs, typedefs, enums and file-scope constants.
//! Host functions are skipped by name; classes, lambdas and the rest of C++ are never looked
//! at unless a kernel's body contains them, where they become `Unsupported` nodes that the
//! lowering reports with their position.

use crate::cuda::front::ast::*;
use crate::cuda::front::preprocess::{IntLiteral, Preprocessed, char_value, parse_int, unescape};
use crate::cuda::ir::Site;
use tree_sitter::Node;

/// Parse a preprocessed translation unit.
pub fn parse(pp: &Preprocessed) -> Unit {
    let mut parser = tree_sitter::Parser::new();
    let mut unit = Unit::default();
    if parser
        .set_language(&tree_sitter_cuda::LANGUAGE.into())
        .is_err()
    {
        unit.syntax_errors
            .push((Site::default(), "the CUDA grammar failed to load".into()));
        return unit;
    }
    // The grammar knows `decltype` but not GCC's `__typeof__` (the preprocessor spells
    // `typeof` and `__typeof` so): the copy parsed for the tree's shape reads each as
    // `decltype` and two spaces, and `type_expr` tells them apart by the text as written; one
    // of a type (`__typeof__(float)`, which `decltype` does not take) is read as the template
    // `__typeof__<float>` instead.
    let mut shaped = pp.text.clone().into_bytes();
    for &(at, _) in &pp.map {
        let rest = &pp.text.as_bytes()[at..];
        if rest.starts_with(TYPEOF.as_bytes())
            && !rest
                .get(TYPEOF.len())
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            shaped[at..at + TYPEOF.len()].copy_from_slice(b"decltype  ");
        }
    }
    let Some(mut tree) = parser.parse(&shaped, None) else {
        unit.syntax_errors
            .push((Site::default(), "the parser gave up".into()));
        return unit;
    };
    // The grammar reads `(t < 60 && t >= 1)` as `t<60 && t>` = 1 (a template call assigned
    // to) and `(t < n || t > (1))` as a call of `t<n || t>`: where a name that is no template
    // opens such an argument list, its `<` becomes `>` in a copy of the text that is parsed
    // again for the tree's shape (a relational operator of the same precedence and length),
    // while every token is still read from the text as written.
    // Likewise `(x) >= (lo) && (x) < (hi)` (a common macro) reads as a cast of `&&(x)` to a
    // type `lo`: where `lo` is declared as a variable and never as a type, its parentheses
    // become spaces in the copy.
    for _ in 0..4 {
        let names = Names::of(tree.root_node(), pp.text.as_bytes());
        let lts = comparisons_read_as_templates(tree.root_node(), pp.text.as_bytes(), &names);
        let casts = variables_read_as_casts(tree.root_node(), pp.text.as_bytes(), &names);
        let typeof_types = typeof_of_types(tree.root_node(), pp.text.as_bytes());
        if lts.is_empty() && casts.is_empty() && typeof_types.is_empty() {
            break;
        }
        for (at, open, close) in typeof_types {
            shaped[at..at + TYPEOF.len()].copy_from_slice(TYPEOF.as_bytes());
            shaped[open] = b'<';
            shaped[close] = b'>';
        }
        for at in lts {
            shaped[at] = b'>';
        }
        for at in casts {
            shaped[at] = b' ';
        }
        match parser.parse(&shaped, None) {
            Some(t) => tree = t,
            None => break,
        }
    }
    let p = P {
        src: pp.text.as_bytes(),
        pp,
        depth: std::cell::Cell::new(0),
        stmt_depth: std::cell::Cell::new(0),
        local_types: std::cell::RefCell::new(Unit::default()),
    };
    p.collect_errors(tree.root_node(), &mut unit.syntax_errors);
    p.aliases(tree.root_node(), &mut unit.aliases);
    // A syntax error in a kernel's own declaration can leave no kernel to lower at all: such an
    // error is the file's error, not a warning about host code.
    for item in named_children(tree.root_node()) {
        if item.has_error() && p.text(item).contains("__global__") {
            let mut errs = Vec::new();
            p.collect_errors(item, &mut errs);
            if let Some(first) = errs.into_iter().next() {
                unit.kernel_syntax_error.get_or_insert(first);
            }
        }
    }
    p.items(tree.root_node(), "", &mut unit);
    let local = p.local_types.take();
    unit.structs.extend(local.structs);
    unit.typedefs.extend(local.typedefs);
    unit.globals.extend(local.globals);
    unit
}

/// GCC's `__typeof__`, as the preprocessor spells all its forms.
const TYPEOF: &str = "__typeof__";

/// Where a `__typeof__`, read as `decltype`, does not parse (its operand is a type): the
/// offsets of the keyword and of its operand's parentheses.
fn typeof_of_types(root: Node<'_>, src: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if !n.has_error() {
            continue;
        }
        let mut cur = n.walk();
        for c in n.children(&mut cur) {
            let at = c.start_byte();
            if c.kind() == "decltype" && !c.is_named() && src[at..].starts_with(TYPEOF.as_bytes()) {
                let mut open = at + TYPEOF.len();
                while src.get(open).is_some_and(u8::is_ascii_whitespace) {
                    open += 1;
                }
                if src.get(open) != Some(&b'(') {
                    continue;
                }
                let mut depth = 0;
                let close = (open..src.len()).find(|&i| {
                    match src[i] {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                });
                if let Some(close) = close {
                    out.push((at, open, close));
                }
            } else {
                stack.push(c);
            }
        }
    }
    out
}

/// The byte offsets of the `<` of every `name<...>` in `root` that is a comparison read as a
/// template's arguments: `name` is a plain identifier that no template of the file declares,
/// and the list is followed by `=` (the `>=` it split), holds one `&&` or `||` expression, or
/// `name` is declared only as a variable (`names`).
fn comparisons_read_as_templates(root: Node<'_>, src: &[u8], names: &Names<'_>) -> Vec<usize> {
    let text = |n: Node<'_>| std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("");
    let mut templates = std::collections::HashSet::new();
    let mut found = Vec::new();
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        match n.kind() {
            "template_declaration" => {
                let mut d = named_children(n)
                    .into_iter()
                    .find(|d| !matches!(d.kind(), "template_parameter_list" | "requires_clause"));
                // The declared name: a function's declarator, or a struct's or alias's name.
                while let Some(x) = d {
                    if matches!(x.kind(), "identifier" | "type_identifier") {
                        templates.insert(text(x));
                        break;
                    }
                    d = x
                        .child_by_field_name("declarator")
                        .or_else(|| x.child_by_field_name("name"));
                }
            }
            "template_function" => {
                let (Some(name), Some(args)) = (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("arguments"),
                ) else {
                    continue;
                };
                let split_ge = src.get(n.end_byte()) == Some(&b'=')
                    && src.get(n.end_byte() + 1) != Some(&b'=');
                let logical = match named_children(args).as_slice() {
                    [e] => {
                        e.kind() == "binary_expression"
                            && e.child_by_field_name("operator")
                                .is_some_and(|o| matches!(text(o), "&&" | "||"))
                    }
                    _ => false,
                };
                // `iter < n >> 3` reads as `iter<n>` then `> 3` (C++ takes `<` after a name
                // that is no template as less-than): a name declared only as a variable.
                let variable = names.only_variable(text(name));
                if name.kind() == "identifier" && (split_ge || logical || variable) {
                    found.push((text(name), args.start_byte()));
                }
            }
            _ => {}
        }
        todo.extend(named_children(n));
    }
    found
        .into_iter()
        .filter(|(name, _)| !templates.contains(name))
        .map(|(_, at)| at)
        .filter(|&at| src.get(at) == Some(&b'<'))
        .collect()
}

/// The byte offsets of the parentheses of every `(name)` in `root` that the grammar read as a
/// cast's type where `name` is declared as a variable or parameter and never as a type.
fn variables_read_as_casts(root: Node<'_>, src: &[u8], names: &Names<'_>) -> Vec<usize> {
    let text = |n: Node<'_>| std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("");
    let mut casts = Vec::new();
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        if n.kind() == "cast_expression" {
            // `(a) - b` and `(a[i]) + b` (a cast to an array type `a[i]`).
            if let Some(t) = n.child_by_field_name("type")
                && let [name, rest @ ..] = named_children(t).as_slice()
                && name.kind() == "type_identifier"
                && matches!(
                    rest.iter().map(|r| r.kind()).collect::<Vec<_>>().as_slice(),
                    [] | ["abstract_array_declarator"]
                )
            {
                casts.push((text(*name), t.start_byte(), t.end_byte()));
            }
        }
        todo.extend(named_children(n));
    }
    casts
        .into_iter()
        .filter(|(name, ..)| names.only_variable(name))
        .filter_map(|(_, start, end)| {
            // The parentheses around the type, next to it but for spaces.
            let open = src[..start]
                .iter()
                .rposition(|c| !c.is_ascii_whitespace())?;
            let close = end + src[end..].iter().position(|c| !c.is_ascii_whitespace())?;
            (src[open] == b'(' && src[close] == b')').then_some([open, close])
        })
        .flatten()
        .collect()
}

/// The names a unit declares as variables or parameters, and those it declares or uses as
/// types.
struct Names<'s> {
    variables: std::collections::HashSet<&'s str>,
    types: std::collections::HashSet<&'s str>,
}

impl<'s> Names<'s> {
    fn of(root: Node<'_>, src: &'s [u8]) -> Self {
        let text =
            |n: Node<'_>| std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("");
        let (mut variables, mut types) = (
            std::collections::HashSet::new(),
            std::collections::HashSet::new(),
        );
        let mut todo = vec![root];
        while let Some(n) = todo.pop() {
            match n.kind() {
                "parameter_declaration" | "init_declarator" | "declaration" => {
                    // Each declared name (`float a, b, *c;` declares three), under pointer,
                    // reference and array declarators.
                    let mut cursor = n.walk();
                    for first in n.children_by_field_name("declarator", &mut cursor) {
                        let mut d = Some(first);
                        while let Some(x) = d {
                            if x.kind() == "identifier" {
                                variables.insert(text(x));
                                break;
                            }
                            d = x.child_by_field_name("declarator").or_else(|| {
                                (x.kind() == "reference_declarator")
                                    .then(|| named_children(x).into_iter().next())
                                    .flatten()
                            });
                        }
                    }
                }
                // Declared as a type: a struct's, enum's, typedef's, alias's or template parameter's
                // name, and any name written where a type goes.
                "type_identifier" if n.parent().is_some_and(|p| p.kind() != "type_descriptor") => {
                    types.insert(text(n));
                }
                _ => {}
            }
            todo.extend(named_children(n));
        }
        Names { variables, types }
    }

    /// Whether `name` is declared as a variable or parameter and never as a type.
    fn only_variable(&self, name: &str) -> bool {
        self.variables.contains(name) && !self.types.contains(name)
    }
}

struct P<'a> {
    src: &'a [u8],
    pp: &'a Preprocessed,
    /// Expressions being read inside one another (see [`MAX_NESTING`]).
    depth: std::cell::Cell<u32>,
    /// Statements being read inside one another (see [`MAX_STATEMENT_NESTING`]).
    stmt_depth: std::cell::Cell<u32>,
    /// The anonymous structs and unions defined in function bodies (`union { float f; int i; }
    /// u;`), which statements, read without the unit, put here.
    local_types: std::cell::RefCell<Unit>,
}

/// Expressions nested deeper than this are refused: reading and lowering them recurses, and a
/// generated `1+1+...` of thousands of terms would overflow the stack.
const MAX_NESTING: u32 = 500;

// Statements nested deeper than `MAX_STATEMENT_NESTING` are refused here, where the source
// nests them, and again by the lowering once device functions are inlined into one another.
use crate::cuda::ir::MAX_STATEMENT_NESTING;

/// Whether `n` defines a struct, class or union without naming it (`union { .. }`).
fn is_anonymous_definition(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "struct_specifier" | "class_specifier" | "union_specifier"
    ) && n.child_by_field_name("name").is_none()
        && n.child_by_field_name("body").is_some()
}

/// Whether `n`, a statement, is a level of nesting: a statement around others, or a block
/// that is not one's body (`if (c) { .. }` is one level).
fn nests(n: Node<'_>) -> bool {
    const CONTROL: [&str; 7] = [
        "if_statement",
        "else_clause",
        "for_statement",
        "for_range_loop",
        "while_statement",
        "do_statement",
        "switch_statement",
    ];
    match n.kind() {
        "compound_statement" => n.parent().is_none_or(|p| !CONTROL.contains(&p.kind())),
        "case_statement" => true,
        k => k != "else_clause" && CONTROL.contains(&k),
    }
}

/// How deep levels of statements ([`nests`]) nest in `n`, itself included; without recursion.
fn nesting(n: Node<'_>) -> u32 {
    let mut deepest = 0;
    let mut todo = vec![(n, 0)];
    while let Some((n, d)) = todo.pop() {
        let d = d + u32::from(nests(n));
        deepest = deepest.max(d);
        todo.extend(named_children(n).into_iter().map(|c| (c, d)));
    }
    deepest
}

fn children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

fn named_children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|c| c.kind() != "comment")
        .collect()
}

impl<'a> P<'a> {
    fn text(&self, n: Node<'_>) -> &'a str {
        std::str::from_utf8(&self.src[n.start_byte()..n.end_byte()]).unwrap_or("")
    }

    fn site(&self, n: Node<'_>) -> Site {
        self.pp.site(n.start_byte())
    }

    /// The name an anonymous struct or union definition is known by: where it is, and its
    /// byte (two can be at one site, from one macro).
    fn anonymous_name(&self, n: Node<'_>) -> String {
        let kind = if n.kind() == "union_specifier" {
            "union"
        } else {
            "struct"
        };
        let s = self.site(n);
        anonymous_name(kind, s.line, s.col, n.start_byte())
    }

    /// A struct or union defined in a function body: an anonymous one (`union { float f; int
    /// i; } u;`) is a type of the unit's; a named one is refused (its name would be the
    /// function's own): the refusal, if any.
    fn local_type(&self, t: Node<'_>) -> Option<Stmt> {
        if !matches!(
            t.kind(),
            "struct_specifier" | "class_specifier" | "union_specifier"
        ) || t.child_by_field_name("body").is_none()
        {
            return None;
        }
        if !is_anonymous_definition(t) {
            return Some(Stmt {
                kind: StmtKind::Unsupported(
                    format!(
                        "a named {} defined inside a function",
                        if t.kind() == "union_specifier" {
                            "union"
                        } else {
                            "struct"
                        }
                    ),
                    Some("define it at file scope".into()),
                ),
                site: self.site(t),
            });
        }
        self.struct_def(t, None, &mut self.local_types.borrow_mut(), &[]);
        None
    }

    /// Every ERROR and MISSING node, in order.
    fn collect_errors(&self, n: Node<'_>, out: &mut Vec<(Site, String)>) {
        if !n.has_error() {
            return;
        }
        if n.is_missing() {
            out.push((
                self.site(n),
                format!("syntax error: missing `{}`", n.kind()),
            ));
            return;
        }
        if n.is_error() {
            let t: String = self.text(n).chars().take(40).collect();
            let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push((self.site(n), format!("syntax error near `{t}`")));
            return;
        }
        for c in children(n) {
            self.collect_errors(c, out);
        }
    }

    /// Every `namespace a = b;`, at file scope or in a function (one meaning per name); the
    /// tree is walked without recursion (expressions may nest deeper than the stack allows).
    fn aliases(&self, root: Node<'_>, out: &mut Vec<(String, String)>) {
        let mut todo = vec![root];
        while let Some(n) = todo.pop() {
            if n.kind() == "namespace_alias_definition" {
                let kids = named_children(n);
                if let (Some(a), Some(b)) = (kids.first(), kids.last()) {
                    out.push((self.text(*a).to_string(), self.text(*b).trim().to_string()));
                }
                continue;
            }
            // Children in reverse, so that aliases come out in file order.
            todo.extend(named_children(n).into_iter().rev());
        }
    }

    fn first_error(&self, n: Node<'_>) -> Option<Site> {
        let mut v = Vec::new();
        self.collect_errors(n, &mut v);
        v.first().map(|e| e.0)
    }

    // ------------------------------------------------------------------ declarations

    fn items(&self, n: Node<'_>, ns: &str, unit: &mut Unit) {
        for c in named_children(n) {
            self.item(c, ns, unit, &[]);
        }
    }

    fn item(&self, c: Node<'_>, ns: &str, unit: &mut Unit, template: &[TemplateParam]) {
        match c.kind() {
            "function_definition" => self.function(c, ns, unit, template),
            "template_declaration" => {
                let params = c
                    .child_by_field_name("parameters")
                    .map(|p| self.template_params(p))
                    .unwrap_or_default();
                let first = unit.functions.len();
                for d in named_children(c) {
                    if d.kind() != "template_parameter_list" {
                        self.item(d, ns, unit, &params);
                    }
                }
                // `template <>`: the functions it defines are explicit specializations.
                if params.is_empty() {
                    for f in &mut unit.functions[first..] {
                        f.specialization.get_or_insert_with(Vec::new);
                    }
                }
            }
            "namespace_definition" => {
                let name = c
                    .child_by_field_name("name")
                    .map(|n| self.text(n))
                    .unwrap_or("");
                let inner = if name.is_empty() {
                    ns.to_string()
                } else {
                    format!("{ns}{name}::")
                };
                if let Some(b) = c.child_by_field_name("body") {
                    self.items(b, &inner, unit);
                }
            }
            "linkage_specification" => {
                if let Some(b) = c.child_by_field_name("body") {
                    if b.kind() == "declaration_list" {
                        self.items(b, ns, unit);
                    } else {
                        self.item(b, ns, unit, template);
                    }
                }
            }
            "struct_specifier" | "class_specifier" | "union_specifier" => {
                self.struct_def(c, None, unit, template);
            }
            "enum_specifier" => self.enum_def(c, unit, None),
            "type_definition" => {
                let Some(ty) = c.child_by_field_name("type") else {
                    return;
                };
                let mut c2 = c.walk();
                let declarators: Vec<Node<'_>> =
                    c.children_by_field_name("declarator", &mut c2).collect();
                // An anonymous struct or union is named by the typedef (`typedef struct { .. }
                // Name;`), as its messages then show it.
                let named = match declarators.first() {
                    Some(d) if is_anonymous_definition(ty) && d.kind() == "type_identifier" => {
                        let name = self.text(*d).trim().to_string();
                        self.struct_def(ty, Some(&name), unit, &[]);
                        Some(name)
                    }
                    _ => {
                        self.struct_def(ty, None, unit, &[]);
                        None
                    }
                };
                let base = match &named {
                    Some(name) => TypeExpr::Struct(name.clone()),
                    None => self.type_expr(ty),
                };
                for d in declarators {
                    let (name, t) = self.declarator(d, base.clone());
                    if name.is_empty() || named.as_ref() == Some(&name) {
                        continue;
                    }
                    unit.typedefs.push((name, t));
                }
                if ty.kind() == "enum_specifier" {
                    self.enum_def(ty, unit, None);
                }
            }
            "alias_declaration" => {
                if let (Some(n), Some(t)) =
                    (c.child_by_field_name("name"), c.child_by_field_name("type"))
                {
                    let (name, ty) = (self.text(n).to_string(), self.type_descriptor(t));
                    if template.is_empty() {
                        unit.typedefs.push((name, ty));
                    } else {
                        unit.alias_templates.push((name, template.to_vec(), ty));
                    }
                }
            }
            "declaration" => {
                if let Some(ty) = c.child_by_field_name("type") {
                    if matches!(
                        ty.kind(),
                        "struct_specifier" | "class_specifier" | "union_specifier"
                    ) {
                        self.struct_def(ty, None, unit, template);
                    }
                    if ty.kind() == "enum_specifier" {
                        self.enum_def(ty, unit, None);
                    }
                }
                // Prototypes of host functions and file-scope variables.
                for d in self.declaration(c) {
                    unit.globals.push(GlobalVar { decl: d });
                }
            }
            _ => {}
        }
    }

    /// The qualifiers and CUDA markers on a declaration or function definition.
    fn quals(&self, n: Node<'_>) -> (Quals, bool, bool, bool) {
        let (mut q, mut global, mut device, mut host) = (Quals::default(), false, false, false);
        for c in children(n) {
            if matches!(
                c.kind(),
                "type" | "declarator" | "body" | "compound_statement" | "function_declarator"
            ) {
                continue;
            }
            let t = self.text(c);
            for w in t.split_whitespace() {
                match w {
                    "const" | "constexpr" => q.is_const = true,
                    "__shared__" => q.shared = true,
                    "extern" => q.is_extern = true,
                    "static" => q.is_static = true,
                    "__constant__" => q.constant = true,
                    "__device__" => {
                        device = true;
                        q.device = true;
                    }
                    "__global__" => global = true,
                    "__host__" => host = true,
                    _ => {}
                }
            }
        }
        (q, global, device, host)
    }

    fn function(&self, n: Node<'_>, ns: &str, unit: &mut Unit, template: &[TemplateParam]) {
        match self.function_def(n, ns, template, None) {
            Some(Ok(f)) => unit.functions.push(f),
            Some(Err(host)) => unit.host_functions.push(host),
            None => {}
        }
    }

    /// A function definition: `Ok` for device code, `Err(name)` for a host function, `None` for
    /// what is not a function. `owner` is the struct a member function belongs to.
    fn function_def(
        &self,
        n: Node<'_>,
        ns: &str,
        template: &[TemplateParam],
        owner: Option<&str>,
    ) -> Option<Result<Function, String>> {
        let (q, global, device, _host) = self.quals(n);
        let decl = n.child_by_field_name("declarator")?;
        let ret0 = n
            .child_by_field_name("type")
            .map_or(TypeExpr::Name("int".into()), |t| self.type_expr(t));
        // A conversion operator (`operator T *()`): its type is the return type.
        if decl.kind() == "operator_cast" {
            let ty = decl
                .child_by_field_name("type")
                .map_or(TypeExpr::Name("int".into()), |t| self.type_expr(t));
            let ret = match decl.child_by_field_name("declarator") {
                Some(d) => self.abstract_type(d, ty),
                None => ty,
            };
            if !device && !global {
                return Some(Err(format!("{ns}operator cast")));
            }
            return Some(Ok(Function {
                name: "operator cast".into(),
                global,
                device,
                template: template.to_vec(),
                ret,
                params: Vec::new(),
                body: n
                    .child_by_field_name("body")
                    .map(|b| self.block(b))
                    .unwrap_or_default(),
                site: self.site(decl),
                syntax_error: self.first_error(n),
                is_static: false,
                is_const: false,
                inits: Vec::new(),
                specialization: None,
            }));
        }
        // Peel pointer declarators off the return type down to the function declarator.
        let mut d = decl;
        let mut ret = ret0;
        loop {
            match d.kind() {
                "pointer_declarator" => ret = TypeExpr::Pointer(Box::new(ret)),
                "reference_declarator" => ret = TypeExpr::Ref(Box::new(ret)),
                "function_declarator" => break,
                "parenthesized_declarator" | "attributed_declarator" => {}
                _ => return None,
            }
            let next = d.child_by_field_name("declarator").or_else(|| {
                named_children(d)
                    .into_iter()
                    .find(|c| c.kind().ends_with("declarator"))
            })?;
            d = next;
        }
        let name_node = d.child_by_field_name("declarator")?;
        // `f<int>` in `template <> f<int>(...)`: an explicit specialization's arguments (the
        // caller marks one declared without them).
        let (base, specialization) = if name_node.kind() == "template_function" {
            (
                name_node
                    .child_by_field_name("name")
                    .map_or("", |x| self.text(x))
                    .to_string(),
                Some(
                    name_node
                        .child_by_field_name("arguments")
                        .map(|a| self.template_args(a))
                        .unwrap_or_default(),
                ),
            )
        } else {
            (self.text(name_node).replace(' ', ""), None)
        };
        // `I<T>::lower` defined outside its class template is a member of `I`, whose template
        // parameters it sees as the class's.
        // (`template <> int I<int>::get()`, an explicit specialization, keeps its arguments.)
        let (base, template) = match base.rsplit_once("::") {
            Some((scope, member)) if scope.contains('<') && !template.is_empty() => (
                format!("{}::{member}", without_template_args(scope)),
                &[][..],
            ),
            _ => (base, template),
        };
        let name = format!("{ns}{base}");
        // A `constexpr` function is device code too: nvcc evaluates it in device code's
        // constant expressions (array bounds, template arguments) unmarked, and runs it there
        // under `--expt-relaxed-constexpr`, which the suites build with.
        // (Its own specifiers only: not a `constexpr` local in its body.)
        let mut cursor = n.walk();
        let constexpr = n.children(&mut cursor).enumerate().any(|(i, c)| {
            n.field_name_for_child(i as u32).is_none()
                && c.kind() != "compound_statement"
                && self.text(c).split_whitespace().any(|w| w == "constexpr")
        });
        if !global && !device && !constexpr {
            return Some(Err(name));
        }
        let device = device || constexpr;
        let params = d
            .child_by_field_name("parameters")
            .map(|p| self.params(p))
            .unwrap_or_default();
        let is_const = named_children(d)
            .iter()
            .any(|c| c.kind() == "type_qualifier" && self.text(*c) == "const");
        let body = n
            .child_by_field_name("body")
            .map(|b| self.block(b))
            .unwrap_or_default();
        let mut inits = Vec::new();
        // A constructor's member initializers, in its class or outside (`S::S(..) : v(a)`).
        if owner.is_some() || base.contains("::") {
            for c in named_children(n) {
                if c.kind() != "field_initializer_list" {
                    continue;
                }
                for fi in named_children(c) {
                    let kids = named_children(fi);
                    let (Some(f), Some(args)) = (kids.first(), kids.get(1)) else {
                        continue;
                    };
                    let values = named_children(*args)
                        .into_iter()
                        .map(|a| self.expr(a))
                        .collect();
                    inits.push((self.text(*f).to_string(), values));
                }
            }
        }
        Some(Ok(Function {
            name,
            global,
            device,
            template: template.to_vec(),
            ret,
            params,
            body,
            site: self.site(name_node),
            syntax_error: self.first_error(n),
            is_static: q.is_static,
            is_const,
            inits,
            specialization,
        }))
    }

    /// The type an abstract declarator makes of `base` (`*` in `operator T *()`).
    fn abstract_type(&self, d: Node<'_>, base: TypeExpr) -> TypeExpr {
        match d.kind() {
            "abstract_pointer_declarator" => {
                let t = TypeExpr::Pointer(Box::new(base));
                match d.child_by_field_name("declarator") {
                    Some(x) => self.abstract_type(x, t),
                    None => t,
                }
            }
            "abstract_reference_declarator" => TypeExpr::Ref(Box::new(base)),
            _ => base,
        }
    }

    fn template_params(&self, n: Node<'_>) -> Vec<TemplateParam> {
        let mut out = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "type_parameter_declaration" | "optional_type_parameter_declaration" => {
                    let name = named_children(c)
                        .into_iter()
                        .find(|x| x.kind() == "type_identifier")
                        .map_or("", |x| self.text(x));
                    let default = c
                        .child_by_field_name("default_type")
                        .map(|t| self.type_expr(t));
                    out.push(TemplateParam::Type(name.to_string(), default));
                }
                "parameter_declaration" | "optional_parameter_declaration" => {
                    let ty = c
                        .child_by_field_name("type")
                        .map_or(TypeExpr::Name("int".into()), |t| self.type_expr(t));
                    let (name, ty) = match c.child_by_field_name("declarator") {
                        Some(d) => self.declarator(d, ty),
                        None => (String::new(), ty),
                    };
                    let default = c.child_by_field_name("default_value").map(|v| self.expr(v));
                    out.push(TemplateParam::Value(name, ty, default));
                }
                "variadic_type_parameter_declaration" => {
                    let name = named_children(c)
                        .into_iter()
                        .find(|x| x.kind() == "type_identifier")
                        .map_or("", |x| self.text(x));
                    out.push(TemplateParam::Pack(name.to_string(), None));
                }
                "variadic_parameter_declaration" => {
                    let ty = c
                        .child_by_field_name("type")
                        .map_or(TypeExpr::Name("int".into()), |t| self.type_expr(t));
                    let (name, ty) = match c.child_by_field_name("declarator") {
                        Some(d) => self.declarator(d, ty),
                        None => (String::new(), ty),
                    };
                    out.push(TemplateParam::Pack(name, Some(ty)));
                }
                _ => {}
            }
        }
        out
    }

    fn params(&self, n: Node<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        for c in named_children(n) {
            if !matches!(
                c.kind(),
                "parameter_declaration"
                    | "optional_parameter_declaration"
                    | "variadic_parameter_declaration"
            ) {
                continue;
            }
            let Some(t) = c.child_by_field_name("type") else {
                continue;
            };
            let base = self.type_expr(t);
            let (q, ..) = self.quals(c);
            let (name, ty, written) = match c.child_by_field_name("declarator") {
                Some(d) => {
                    let (name, ty) = self.declarator(d, base);
                    let full = self.text(c);
                    let written = full
                        .strip_suffix(name.as_str())
                        .unwrap_or(full)
                        .trim()
                        .to_string();
                    (name, ty, written)
                }
                None => (String::new(), base, self.text(c).to_string()),
            };
            if name.is_empty() && ty == TypeExpr::Name("void".into()) {
                continue; // `f(void)`
            }
            let written = written.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push(Param {
                name,
                ty,
                is_const: q.is_const || self.text(c).contains("const "),
                written,
                default: c.child_by_field_name("default_value").map(|v| self.expr(v)),
                pack: c.kind() == "variadic_parameter_declaration",
                site: self.site(c),
            });
        }
        out
    }

    /// A struct/class definition with a body; returns its name (`Some("")` for an anonymous
    /// one that a typedef must name).
    fn struct_def(
        &self,
        n: Node<'_>,
        name_override: Option<&str>,
        unit: &mut Unit,
        template: &[TemplateParam],
    ) -> Option<String> {
        if !matches!(
            n.kind(),
            "struct_specifier" | "class_specifier" | "union_specifier"
        ) {
            return None;
        }
        let mut specialization = Vec::new();
        let mut cv_pattern = None;
        let name = match (name_override, n.child_by_field_name("name")) {
            (Some(o), _) => o.to_string(),
            // `S<float>` in `template <> struct S<float> {...}`: a specialization of `S`.
            (None, Some(nm)) if nm.kind() == "template_type" => {
                if let Some(a) = nm.child_by_field_name("arguments") {
                    specialization = self.template_args(a);
                    cv_pattern = named_children(a)
                        .into_iter()
                        .flat_map(named_children)
                        .find(|q| q.kind() == "type_qualifier")
                        .map(|q| self.site(q));
                }
                nm.child_by_field_name("name")
                    .map_or("", |x| self.text(x))
                    .to_string()
            }
            (None, Some(nm)) => self.text(nm).to_string(),
            (None, None) => self.anonymous_name(n),
        };
        let Some(body) = n.child_by_field_name("body") else {
            // `template <int A> struct Impl;`: the primary template's parameters.
            if !template.is_empty() && specialization.is_empty() && !name.is_empty() {
                unit.structs.push(StructDef {
                    name,
                    template: template.to_vec(),
                    defined: false,
                    site: self.site(n),
                    ..StructDef::default()
                });
            }
            return None;
        };
        if name.is_empty() {
            return Some(name);
        }
        // Structs nested in this one are pushed before it: they are told their owner below.
        let first_nested = unit.structs.len();
        let align = named_children(n)
            .into_iter()
            .find(|c| c.kind() == "alignas_qualifier")
            .and_then(|a| named_children(a).into_iter().next())
            .map(|e| self.expr(e));
        let bases = named_children(n)
            .into_iter()
            .filter(|c| c.kind() == "base_class_clause")
            .flat_map(named_children)
            .filter(|b| !matches!(b.kind(), "access_specifier" | "virtual"))
            .map(|b| self.type_expr(b))
            .collect();
        let mut fields = Vec::new();
        let mut defaults = Vec::new();
        let mut methods = Vec::new();
        let mut statics = Vec::new();
        let mut static_methods = Vec::new();
        let mut typedefs = Vec::new();
        let mut bitfield = None;
        for f in named_children(body) {
            match f.kind() {
                "field_declaration" => {}
                "function_definition" => {
                    if let Some(Ok(m)) = self.function_def(f, "", &[], Some(&name)) {
                        methods.push(m);
                    }
                    continue;
                }
                "template_declaration" => {
                    let params = f
                        .child_by_field_name("parameters")
                        .map(|p| self.template_params(p))
                        .unwrap_or_default();
                    for d in named_children(f) {
                        match d.kind() {
                            "function_definition" => {
                                if let Some(Ok(m)) = self.function_def(d, "", &params, Some(&name))
                                {
                                    methods.push(m);
                                }
                            }
                            // A member template (`template <typename U> struct Rebind`) or
                            // its partial specialization.
                            "struct_specifier" | "class_specifier" => {
                                self.struct_def(d, None, unit, &params);
                            }
                            _ => {}
                        }
                    }
                    continue;
                }
                "type_definition" => {
                    if let Some(ty) = f.child_by_field_name("type") {
                        self.struct_def(ty, None, unit, &[]);
                        let base = self.type_expr(ty);
                        let mut c = f.walk();
                        for d in f.children_by_field_name("declarator", &mut c) {
                            let (tname, t) = self.declarator(d, base.clone());
                            if !tname.is_empty() {
                                typedefs.push((tname, t));
                            }
                        }
                    }
                    continue;
                }
                "alias_declaration" => {
                    if let (Some(a), Some(t)) =
                        (f.child_by_field_name("name"), f.child_by_field_name("type"))
                    {
                        typedefs.push((self.text(a).to_string(), self.type_descriptor(t)));
                    }
                    continue;
                }
                _ => continue,
            }
            let Some(t) = f.child_by_field_name("type") else {
                continue;
            };
            if matches!(
                t.kind(),
                "struct_specifier" | "class_specifier" | "union_specifier"
            ) {
                self.struct_def(t, None, unit, &[]);
            }
            if t.kind() == "enum_specifier" {
                self.enum_def(t, unit, Some((&name, &mut statics, &mut typedefs)));
            }
            // An anonymous struct or union member (`union { float f; int i; };`): its members
            // are named through the enclosing struct, as in C11 and C++.
            if is_anonymous_definition(t) && f.child_by_field_name("declarator").is_none() {
                let anon = self.anonymous_name(t);
                fields.push((anon.clone(), TypeExpr::Struct(anon)));
                continue;
            }
            // `static` members are not part of the layout; those with a value are constants.
            let quals = self.quals(f).0;
            if quals.is_static {
                let base = self.type_expr(t);
                // A static member function declared here and defined outside.
                let mut c = f.walk();
                for d in f.children_by_field_name("declarator", &mut c) {
                    if d.kind() == "function_declarator"
                        && let Some(n) = d.child_by_field_name("declarator")
                    {
                        static_methods.push(self.text(n).to_string());
                    }
                }
                let mut c = f.walk();
                let mut name = None;
                for (at, k) in f.children(&mut c).enumerate() {
                    match f.field_name_for_child(at as u32) {
                        // `n`, or `tbl[3]` (an array declarator around the name).
                        _ if k.kind() == "field_identifier" => name = Some((k, base.clone())),
                        Some("declarator") if k.kind() == "array_declarator" => {
                            let (_, ty) = self.declarator(k, base.clone());
                            let mut id = k;
                            while let Some(inner) = id.child_by_field_name("declarator") {
                                id = inner;
                            }
                            name = Some((id, ty));
                        }
                        Some("default_value") => {
                            if let Some((n, ty)) = name.take() {
                                statics.push(VarDecl {
                                    name: self.text(n).to_string(),
                                    ty,
                                    quals,
                                    init: Some(self.expr(k)),
                                    site: self.site(n),
                                });
                            }
                        }
                        _ => {}
                    }
                }
                continue;
            }
            let base = self.type_expr(t);
            let mut c = f.walk();
            let mut last = None;
            for (at, d) in f.children(&mut c).enumerate() {
                if d.kind() == "bitfield_clause" {
                    bitfield.get_or_insert(self.site(d));
                }
                match f.field_name_for_child(at as u32) {
                    Some("declarator") if !declares_function(d) => {
                        let (fname, ty) = self.declarator(d, base.clone());
                        last = Some(fname.clone());
                        fields.push((fname, ty));
                    }
                    // `int a = 5;`, `float b{2.5f};`: the member's default initializer.
                    Some("default_value") => {
                        if let Some(fname) = last.take() {
                            defaults.push((fname, self.expr(d)));
                        }
                    }
                    _ => {}
                }
            }
        }
        let at = unit.structs.len();
        for nested in &mut unit.structs[first_nested..] {
            nested.owner.get_or_insert(at);
        }
        unit.structs.push(StructDef {
            name: name.clone(),
            template: template.to_vec(),
            specialization,
            methods,
            static_methods,
            fields,
            statics,
            align,
            defaults,
            union: n.kind() == "union_specifier",
            bitfield,
            site: self.site(n),
            typedefs,
            bases,
            owner: None,
            defined: true,
            cv_pattern,
        });
        Some(name)
    }

    /// An enum's name (a type) and enumerators (constants). One declared in a struct
    /// (`member`: the struct's name, statics and member types) is a member: its name a member
    /// type, a plain enum's enumerators static members (each instance of a struct template has
    /// its own: `enum { SIZE = sizeof(T) }`), a scoped enum's named through the struct
    /// (`S::Op::Add`) and through the enum (`Op::Add`, as its members see it).
    fn enum_def(&self, n: Node<'_>, unit: &mut Unit, mut member: Option<Members<'_>>) {
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        // The enum's name is a type (`int`, or the type it names: `enum E : uint8_t`); a scoped
        // enum's enumerators are named through it (`Op::Add`), a plain enum's both ways.
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string());
        if let Some(name) = &name {
            let base = n
                .child_by_field_name("base")
                .map_or(TypeExpr::Name("int".into()), |b| self.type_expr(b));
            match &mut member {
                Some((_, _, types)) => types.push((name.clone(), base)),
                None => unit.typedefs.push((name.clone(), base)),
            }
        }
        let scoped = self
            .text(n)
            .split_whitespace()
            .nth(1)
            .is_some_and(|w| w == "class" || w == "struct");
        let mut next = Expr {
            kind: ExprKind::Int(IntLiteral::int(0)),
            site: self.site(n),
            span: (0, 0),
        };
        for e in named_children(body) {
            if e.kind() != "enumerator" {
                continue;
            }
            let Some(nm) = e.child_by_field_name("name") else {
                continue;
            };
            let site = self.site(nm);
            let value = e
                .child_by_field_name("value")
                .map_or(next.clone(), |v| self.expr(v));
            next = Expr {
                kind: ExprKind::Binary(
                    Binary::Add,
                    Box::new(value.clone()),
                    Box::new(Expr {
                        kind: ExprKind::Int(IntLiteral::int(1)),
                        site,
                        span: (0, 0),
                    }),
                ),
                site,
                span: (0, 0),
            };
            let short = self.text(nm).to_string();
            let decl = |name: String| VarDecl {
                name,
                ty: TypeExpr::Name("int".into()),
                quals: Quals {
                    is_const: true,
                    ..Quals::default()
                },
                init: Some(value.clone()),
                site,
            };
            let names = match (&name, &mut member) {
                (Some(e), Some((owner, ..))) if scoped => {
                    vec![format!("{owner}::{e}::{short}"), format!("{e}::{short}")]
                }
                (_, Some((_, statics, _))) => {
                    statics.push(decl(short));
                    continue;
                }
                (Some(e), None) if scoped => vec![format!("{e}::{short}")],
                (Some(e), None) => vec![short.clone(), format!("{e}::{short}")],
                (None, None) => vec![short],
            };
            for n in names {
                unit.globals.push(GlobalVar { decl: decl(n) });
            }
        }
    }

    /// A type specifier node as a [`TypeExpr`].
    fn type_expr(&self, n: Node<'_>) -> TypeExpr {
        match n.kind() {
            "primitive_type" | "type_identifier" => TypeExpr::Name(self.text(n).to_string()),
            "sized_type_specifier" => {
                let mut words: Vec<&str> = self.text(n).split_whitespace().collect();
                let unsigned = words.contains(&"unsigned");
                words.retain(|w| !matches!(*w, "unsigned" | "signed"));
                let longs = words.iter().filter(|w| **w == "long").count();
                let base = if words.contains(&"short") {
                    "short"
                } else if words.contains(&"char") {
                    if !unsigned && self.text(n).contains("signed") {
                        "signed char"
                    } else {
                        "char"
                    }
                } else if words.contains(&"double") {
                    "double"
                } else if longs >= 2 {
                    "long long"
                } else if longs == 1 {
                    "long"
                } else {
                    "int"
                };
                if base == "double" {
                    return TypeExpr::Name("double".into());
                }
                if unsigned {
                    TypeExpr::Name(format!("unsigned {base}"))
                } else {
                    TypeExpr::Name(base.into())
                }
            }
            "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
                match n.child_by_field_name("name") {
                    Some(nm) if n.kind() == "enum_specifier" => {
                        let _ = nm;
                        TypeExpr::Name("int".into())
                    }
                    Some(nm) => TypeExpr::Name(self.text(nm).to_string()),
                    None if n.kind() == "enum_specifier" => TypeExpr::Name("int".into()),
                    None if is_anonymous_definition(n) => TypeExpr::Struct(self.anonymous_name(n)),
                    None => TypeExpr::Name(String::new()),
                }
            }
            // `typename std::make_unsigned<T>::type`.
            "dependent_type" => named_children(n)
                .first()
                .map_or(TypeExpr::Name(String::new()), |t| self.type_expr(*t)),
            "qualified_identifier" if self.std_template_member(n).is_some() => {
                let (name, targs) = self.std_template_member(n).unwrap_or_default();
                TypeExpr::Template(name, targs)
            }
            "qualified_identifier" => {
                // `cg::thread_block_tile<32>`: the last part may be a template type.
                let mut scope = String::new();
                let mut cur = n;
                loop {
                    if let Some(s) = cur.child_by_field_name("scope") {
                        // `T::template Rebind<U>::other`: the keyword only tells the parser.
                        scope.push_str(self.text(s).trim_start_matches("template").trim_start());
                        scope.push_str("::");
                    }
                    match cur.child_by_field_name("name") {
                        Some(nm) if nm.kind() == "qualified_identifier" => cur = nm,
                        Some(nm) if nm.kind() == "template_type" => {
                            let TypeExpr::Template(name, args) = self.type_expr(nm) else {
                                return TypeExpr::Name(self.text(n).to_string());
                            };
                            return TypeExpr::Template(format!("{scope}{name}"), args);
                        }
                        Some(nm) => return TypeExpr::Name(format!("{scope}{}", self.text(nm))),
                        None => return TypeExpr::Name(self.text(n).replace(' ', "")),
                    }
                }
            }
            "template_type" => {
                let name = n.child_by_field_name("name").map_or("", |x| self.text(x));
                let args = n
                    .child_by_field_name("arguments")
                    .map(|a| self.template_args(a))
                    .unwrap_or_default();
                // `__typeof__(float)`, shaped as a template by `typeof_of_types`.
                if name == TYPEOF
                    && let [arg] = &args[..]
                {
                    return match arg {
                        TemplateArg::Type(t) => t.clone(),
                        TemplateArg::Expr(e) => TypeExpr::Typeof(Box::new(e.clone())),
                    };
                }
                TypeExpr::Template(name.to_string(), args)
            }
            "placeholder_type_specifier" => TypeExpr::Auto,
            "type_descriptor" => self.type_descriptor(n),
            "decltype" => {
                let Some(arg) = named_children(n).into_iter().next() else {
                    return TypeExpr::Name(self.text(n).to_string());
                };
                let e = self.expr(arg);
                // `decltype` names a reference for an lvalue other than an unparenthesised
                // variable or member (`decltype((x))`, `decltype(a[i])`); `__typeof__` never.
                let reference = !self.text(n).starts_with(TYPEOF)
                    && !matches!(
                        arg.kind(),
                        "identifier" | "qualified_identifier" | "field_expression"
                    )
                    && is_lvalue(&e);
                let ty = TypeExpr::Typeof(Box::new(e));
                if reference {
                    TypeExpr::Ref(Box::new(ty))
                } else {
                    ty
                }
            }
            _ => TypeExpr::Name(self.text(n).to_string()),
        }
    }

    fn type_descriptor(&self, n: Node<'_>) -> TypeExpr {
        if n.kind() != "type_descriptor" {
            return self.type_expr(n);
        }
        let base = n
            .child_by_field_name("type")
            .map_or(TypeExpr::Name("int".into()), |t| self.type_expr(t));
        match n.child_by_field_name("declarator") {
            Some(d) => self.declarator(d, base).1,
            None => base,
        }
    }

    fn template_args(&self, n: Node<'_>) -> Vec<TemplateArg> {
        named_children(n)
            .into_iter()
            .map(|a| {
                let pattern = a.child_by_field_name("pattern");
                if let Some(t) = pattern.filter(|t| t.kind() == "type_descriptor") {
                    // `Ts...`, `Ts *...`.
                    TemplateArg::Type(TypeExpr::Expansion(Box::new(self.type_descriptor(t))))
                } else if a.kind() == "type_descriptor" {
                    // `T` alone parses as a type; a name may still be a constant (lowering decides).
                    TemplateArg::Type(self.type_descriptor(a))
                } else {
                    TemplateArg::Expr(self.expr(a))
                }
            })
            .collect()
    }

    /// Apply a declarator to a base type: the declared name and full type.
    fn declarator(&self, d: Node<'_>, base: TypeExpr) -> (String, TypeExpr) {
        match d.kind() {
            "identifier" | "field_identifier" | "type_identifier" => {
                (self.text(d).to_string(), base)
            }
            "qualified_identifier" => (self.text(d).replace(' ', ""), base),
            "pointer_declarator" | "abstract_pointer_declarator" => {
                let t = TypeExpr::Pointer(Box::new(base));
                match d.child_by_field_name("declarator") {
                    Some(x) => self.declarator(x, t),
                    None => (String::new(), t),
                }
            }
            // A pack's `... args`.
            "variadic_declarator" => match named_children(d).into_iter().next() {
                Some(x) => self.declarator(x, base),
                None => (String::new(), base),
            },
            "reference_declarator" | "abstract_reference_declarator" => {
                let t = TypeExpr::Ref(Box::new(base));
                match named_children(d).into_iter().next() {
                    Some(x) => self.declarator(x, t),
                    None => (String::new(), t),
                }
            }
            "array_declarator" | "abstract_array_declarator" => {
                let size = d
                    .child_by_field_name("size")
                    .map(|s| Box::new(self.expr(s)));
                // `a[2][3]`: the outer declarator's size applies last.
                match d.child_by_field_name("declarator") {
                    Some(x) => {
                        let (name, inner) = self.declarator(x, TypeExpr::Name("\u{0}".into()));
                        (
                            name,
                            substitute_hole(inner, TypeExpr::Array(Box::new(base), size)),
                        )
                    }
                    None => (String::new(), TypeExpr::Array(Box::new(base), size)),
                }
            }
            "init_declarator" => match d.child_by_field_name("declarator") {
                Some(x) => self.declarator(x, base),
                None => (String::new(), base),
            },
            "parenthesized_declarator" | "attributed_declarator" => {
                match named_children(d)
                    .into_iter()
                    .find(|c| c.kind() != "attribute_declaration")
                {
                    Some(x) => self.declarator(x, base),
                    None => (String::new(), base),
                }
            }
            _ => (self.text(d).to_string(), base),
        }
    }

    /// A declaration in a function body: `P s(buf, t);` with plain names for arguments, or
    /// array elements (`P s(a[i], b[0][j]);`), parses as a function's prototype (of parameters
    /// of types `buf`, `a[i]`), but there it defines `s` by a constructor call.
    fn local_declaration(&self, n: Node<'_>) -> Vec<VarDecl> {
        let mut out = self.declaration(n);
        let (Some(t), mut c) = (n.child_by_field_name("type"), n.walk()) else {
            return out;
        };
        for d in n.children_by_field_name("declarator", &mut c) {
            let (Some(name), Some(params)) = (
                d.child_by_field_name("declarator"),
                d.child_by_field_name("parameters"),
            ) else {
                continue;
            };
            let args: Vec<Node<'_>> = named_children(params);
            let values: Option<Vec<Expr>> =
                args.iter().map(|a| self.parameter_as_value(*a)).collect();
            let (true, Some(values)) = (
                d.kind() == "function_declarator"
                    && name.kind() == "identifier"
                    && !args.is_empty(),
                values,
            ) else {
                continue;
            };
            let (quals, ..) = self.quals(n);
            out.push(VarDecl {
                name: self.text(name).to_string(),
                ty: self.type_expr(t),
                quals,
                init: Some(Expr {
                    kind: ExprKind::InitList(values),
                    site: self.site(params),
                    span: (params.start_byte(), params.end_byte()),
                }),
                site: self.site(d),
            });
        }
        out
    }

    /// A prototype's parameter that reads as a value in a call (`buf`, `a[i]`, `b[0][j]`: a
    /// name, then array bounds as indexes), as that value.
    fn parameter_as_value(&self, a: Node<'_>) -> Option<Expr> {
        let t = a.child_by_field_name("type")?;
        if a.kind() != "parameter_declaration" || t.kind() != "type_identifier" {
            return None;
        }
        let name = Expr {
            kind: ExprKind::Ident(self.text(t).to_string()),
            site: self.site(t),
            span: (t.start_byte(), t.end_byte()),
        };
        // `a[i][j]`: the outer bound's declarator holds the inner one.
        fn indexed(p: &P<'_>, d: Option<Node<'_>>, name: Expr) -> Option<Expr> {
            let Some(d) = d else { return Some(name) };
            if d.kind() != "abstract_array_declarator" {
                return None;
            }
            let size = d.child_by_field_name("size")?;
            let inner = indexed(p, d.child_by_field_name("declarator"), name)?;
            let span = (inner.span.0, d.end_byte());
            Some(Expr {
                site: inner.site,
                kind: ExprKind::Index(Box::new(inner), Box::new(p.expr(size))),
                span,
            })
        }
        indexed(self, a.child_by_field_name("declarator"), name)
    }

    fn declaration(&self, n: Node<'_>) -> Vec<VarDecl> {
        let (quals, ..) = self.quals(n);
        let Some(t) = n.child_by_field_name("type") else {
            return Vec::new();
        };
        let base = self.type_expr(t);
        let mut out = Vec::new();
        let mut c = n.walk();
        for d in n.children_by_field_name("declarator", &mut c) {
            if d.kind() == "function_declarator" {
                continue;
            }
            let (name, ty) = self.declarator(d, base.clone());
            let init = if d.kind() == "init_declarator" {
                d.child_by_field_name("value").map(|v| {
                    if v.kind() == "argument_list" {
                        // `T x(a, b)`: as `T x{a, b}`.
                        Expr {
                            kind: ExprKind::InitList(
                                named_children(v)
                                    .into_iter()
                                    .map(|c| self.expr(c))
                                    .collect(),
                            ),
                            site: self.site(v),
                            span: (v.start_byte(), v.end_byte()),
                        }
                    } else {
                        self.expr(v)
                    }
                })
            } else {
                None
            };
            out.push(VarDecl {
                name,
                ty,
                quals,
                init,
                site: self.site(d),
            });
        }
        out
    }

    // ------------------------------------------------------------------ statements

    fn block(&self, n: Node<'_>) -> Vec<Stmt> {
        named_children(n)
            .into_iter()
            .map(|c| self.stmt(c))
            .collect()
    }

    fn stmt(&self, n: Node<'_>) -> Stmt {
        let level = u32::from(nests(n));
        let depth = self.stmt_depth.get() + level;
        if depth > MAX_STATEMENT_NESTING {
            let deep = depth - 1 + nesting(n);
            return Stmt {
                kind: StmtKind::Unsupported(
                    format!(
                        "nesting statements {deep} deep (warpsim allows {MAX_STATEMENT_NESTING})"
                    ),
                    Some(
                        "flatten the code: combine conditions with `&&`, leave early with \
                         `return`, `break` or `continue`"
                            .into(),
                    ),
                ),
                site: self.site(n),
            };
        }
        self.stmt_depth.set(depth);
        let s = self.stmt_at(n);
        self.stmt_depth.set(depth - level);
        s
    }

    fn stmt_at(&self, n: Node<'_>) -> Stmt {
        let site = self.site(n);
        let unsupported = |what: &str, help: Option<&str>| Stmt {
            kind: StmtKind::Unsupported(what.to_string(), help.map(str::to_string)),
            site,
        };
        if n.is_error() || n.is_missing() {
            return unsupported(
                "a syntax error",
                Some("fix the code so that it compiles with nvcc"),
            );
        }
        let kind = match n.kind() {
            "compound_statement" => StmtKind::Block(self.block(n)),
            "declaration" => {
                if let Some(t) = n.child_by_field_name("type")
                    && let Some(refusal) = self.local_type(t)
                {
                    return refusal;
                }
                StmtKind::Decl(self.local_declaration(n))
            }
            // `union { int a; float b; };` in a function makes `a` and `b` variables that share
            // storage; `struct S { .. };` defines a type of the function's.
            "struct_specifier" | "class_specifier" | "union_specifier" => {
                if let Some(refusal) = self.local_type(n) {
                    return refusal;
                }
                if is_anonymous_definition(n) {
                    return unsupported(
                        "an anonymous struct or union whose members are variables of the function",
                        Some("name a variable of it (`union { .. } u;`) and use `u.a`"),
                    );
                }
                StmtKind::Empty
            }
            "expression_statement" => match named_children(n).into_iter().next() {
                Some(e) if e.kind() == "gnu_asm_expression" => {
                    return unsupported(
                        "inline PTX assembly (`asm`)",
                        Some("write the operation in CUDA C; warpsim runs C, not PTX"),
                    );
                }
                Some(e) => match self.template_declaration(e) {
                    Some(d) => StmtKind::Decl(vec![d]),
                    None => StmtKind::Expr(self.expr(e)),
                },
                None => StmtKind::Empty,
            },
            "if_statement" => {
                let cond = n
                    .child_by_field_name("condition")
                    .map(|c| self.condition(c))
                    .unwrap_or_else(|| self.bad(n, "an if without a condition"));
                let then = n
                    .child_by_field_name("consequence")
                    .map_or(StmtKind::Empty, |c| self.stmt(c).kind);
                let els = n.child_by_field_name("alternative").map(|a| {
                    let s = if a.kind() == "else_clause" {
                        named_children(a).into_iter().next().map_or(
                            Stmt {
                                kind: StmtKind::Empty,
                                site,
                            },
                            |x| self.stmt(x),
                        )
                    } else {
                        self.stmt(a)
                    };
                    Box::new(s)
                });
                let then_site = n
                    .child_by_field_name("consequence")
                    .map_or(site, |c| self.site(c));
                StmtKind::If(
                    cond,
                    Box::new(Stmt {
                        kind: then,
                        site: then_site,
                    }),
                    els,
                )
            }
            "for_statement" => {
                let init = n.child_by_field_name("initializer").map(|i| {
                    Box::new(if i.kind() == "declaration" {
                        self.stmt(i)
                    } else {
                        Stmt {
                            kind: StmtKind::Expr(self.expr(i)),
                            site: self.site(i),
                        }
                    })
                });
                let cond = n.child_by_field_name("condition").map(|c| self.expr(c));
                let step = n.child_by_field_name("update").map(|c| self.expr(c));
                let body = n.child_by_field_name("body").map_or(
                    Stmt {
                        kind: StmtKind::Empty,
                        site,
                    },
                    |b| self.stmt(b),
                );
                StmtKind::For(init, cond, step, Box::new(body))
            }
            "while_statement" => {
                let cond = n
                    .child_by_field_name("condition")
                    .map(|c| self.condition(c))
                    .unwrap_or_else(|| self.bad(n, "a while without a condition"));
                let body = n.child_by_field_name("body").map_or(
                    Stmt {
                        kind: StmtKind::Empty,
                        site,
                    },
                    |b| self.stmt(b),
                );
                StmtKind::While(cond, Box::new(body))
            }
            "do_statement" => {
                let cond = n
                    .child_by_field_name("condition")
                    .map(|c| self.expr(c))
                    .unwrap_or_else(|| self.bad(n, "a do-while without a condition"));
                let body = n.child_by_field_name("body").map_or(
                    Stmt {
                        kind: StmtKind::Empty,
                        site,
                    },
                    |b| self.stmt(b),
                );
                StmtKind::DoWhile(Box::new(body), cond)
            }
            "switch_statement" => {
                let cond = n
                    .child_by_field_name("condition")
                    .map(|c| self.condition(c))
                    .unwrap_or_else(|| self.bad(n, "a switch without a condition"));
                let body = n
                    .child_by_field_name("body")
                    .map(|b| self.block(b))
                    .unwrap_or_default();
                StmtKind::Switch(cond, body)
            }
            "case_statement" => {
                let value = n.child_by_field_name("value").map(|v| self.expr(v));
                let body = named_children(n)
                    .into_iter()
                    .filter(|c| Some(c.id()) != n.child_by_field_name("value").map(|v| v.id()))
                    .map(|c| self.stmt(c))
                    .collect();
                StmtKind::Case(value, body)
            }
            "break_statement" => StmtKind::Break,
            "continue_statement" => StmtKind::Continue,
            "return_statement" => {
                StmtKind::Return(named_children(n).into_iter().next().map(|e| self.expr(e)))
            }
            "goto_statement" => {
                return unsupported(
                    "`goto`",
                    Some("use structured control flow (loops, break, continue)"),
                );
            }
            "labeled_statement" => {
                return unsupported(
                    "a statement label (for `goto`)",
                    Some("use structured control flow"),
                );
            }
            "attributed_statement" => {
                return named_children(n)
                    .into_iter()
                    .find(|c| c.kind() != "attribute_declaration")
                    .map_or(
                        Stmt {
                            kind: StmtKind::Empty,
                            site,
                        },
                        |c| self.stmt(c),
                    );
            }
            "type_definition" => {
                let (Some(ty), Some(d)) = (
                    n.child_by_field_name("type"),
                    n.child_by_field_name("declarator"),
                ) else {
                    return unsupported("this typedef", None);
                };
                if let Some(refusal) = self.local_type(ty) {
                    return refusal;
                }
                let (name, t) = self.declarator(d, self.type_expr(ty));
                StmtKind::Typedef(name, t)
            }
            "alias_declaration" => {
                let (Some(name), Some(t)) =
                    (n.child_by_field_name("name"), n.child_by_field_name("type"))
                else {
                    return unsupported("this type alias", None);
                };
                StmtKind::Typedef(self.text(name).to_string(), self.type_descriptor(t))
            }
            // `namespace cg = cooperative_groups;` (collected with the file's aliases) and
            // `using namespace ...;`.
            "namespace_alias_definition" => StmtKind::Empty,
            "using_declaration" if self.text(n).starts_with("using namespace") => StmtKind::Empty,
            // `using ns::g;` would make `g` name ns::g in this block only.
            "using_declaration" => {
                return unsupported(
                    "a using-declaration inside a function (`using ns::g;`)",
                    Some("call the function by its qualified name (`ns::g(x)`)"),
                );
            }
            "try_statement" | "throw_statement" => {
                return unsupported(
                    "C++ exceptions",
                    Some("device code cannot throw; use assert or __trap()"),
                );
            }
            "for_range_loop" => {
                return unsupported(
                    "a range-based for loop",
                    Some("write `for (int i = 0; i < n; ++i)`"),
                );
            }
            "static_assert_declaration" => StmtKind::Empty,
            other => {
                return unsupported(&format!("the statement `{other}`"), None);
            }
        };
        Stmt { kind, site }
    }

    /// Grammar quirk: without knowing that `thread_block_tile` is a template, the C++ grammar
    /// reads `cg::thread_block_tile<32> t = init;` as the expression `(A < 32) > t = init`.
    /// Such an expression is meaningless as C++ (a comparison cannot be assigned), so it is
    /// turned back into the declaration it is.
    fn template_declaration(&self, e: Node<'_>) -> Option<VarDecl> {
        let (cmp, init) = match e.kind() {
            "assignment_expression"
                if e.child_by_field_name("operator").map(|o| self.text(o)) == Some("=") =>
            {
                (
                    e.child_by_field_name("left")?,
                    e.child_by_field_name("right"),
                )
            }
            "binary_expression" => (e, None),
            _ => return None,
        };
        let gt = cmp;
        if gt.kind() != "binary_expression"
            || gt.child_by_field_name("operator").map(|o| self.text(o)) != Some(">")
        {
            return None;
        }
        let lt = gt.child_by_field_name("left")?;
        let mut name = gt.child_by_field_name("right")?;
        let mut init = init;
        // `(A < 32) > (t = init)` is how it parses inside some bodies.
        if name.kind() == "assignment_expression"
            && init.is_none()
            && name.child_by_field_name("operator").map(|o| self.text(o)) == Some("=")
        {
            init = name.child_by_field_name("right");
            name = name.child_by_field_name("left")?;
        }
        if lt.kind() != "binary_expression"
            || lt.child_by_field_name("operator").map(|o| self.text(o)) != Some("<")
            || name.kind() != "identifier"
        {
            return None;
        }
        let tname = lt.child_by_field_name("left")?;
        if !matches!(tname.kind(), "identifier" | "qualified_identifier") {
            return None;
        }
        let arg = lt.child_by_field_name("right")?;
        let ty = TypeExpr::Template(
            self.text(tname).split_whitespace().collect(),
            vec![TemplateArg::Expr(self.expr(arg))],
        );
        Some(VarDecl {
            name: self.text(name).to_string(),
            ty,
            quals: Quals::default(),
            init: init.map(|i| self.expr(i)),
            site: self.site(name),
        })
    }

    /// A `condition_clause` (or a parenthesized expression).
    fn condition(&self, n: Node<'_>) -> Expr {
        if n.kind() == "condition_clause" {
            if let Some(v) = n.child_by_field_name("value") {
                if v.kind() == "declaration" {
                    return self.bad(v, "a declaration in a condition");
                }
                return self.expr(v);
            }
            if n.child_by_field_name("initializer").is_some() {
                return self.bad(n, "an init-statement in a condition");
            }
            return match named_children(n).into_iter().next() {
                Some(e) => self.expr(e),
                None => self.bad(n, "an empty condition"),
            };
        }
        self.expr(n)
    }

    // ------------------------------------------------------------------ expressions

    fn bad(&self, n: Node<'_>, what: &str) -> Expr {
        self.unsupported(n, what, None)
    }

    fn unsupported(&self, n: Node<'_>, what: &str, help: Option<&str>) -> Expr {
        Expr {
            kind: ExprKind::Unsupported(what.to_string(), help.map(str::to_string)),
            site: self.site(n),
            span: (n.start_byte(), n.end_byte()),
        }
    }

    fn expr(&self, n: Node<'_>) -> Expr {
        if self.depth.get() >= MAX_NESTING {
            return self.unsupported(
                n,
                &format!("an expression nested more than {MAX_NESTING} levels deep"),
                Some("split it into steps with local variables"),
            );
        }
        self.depth.set(self.depth.get() + 1);
        let e = self.expr_at(n);
        self.depth.set(self.depth.get() - 1);
        e
    }

    fn expr_at(&self, n: Node<'_>) -> Expr {
        let site = self.site(n);
        let span = (n.start_byte(), n.end_byte());
        let mk = |kind| Expr { kind, site, span };
        let field = |name: &str| n.child_by_field_name(name);
        let sub = |name: &str| -> Box<Expr> {
            Box::new(match n.child_by_field_name(name) {
                Some(c) => self.expr(c),
                None => self.bad(n, "an incomplete expression"),
            })
        };
        if n.is_error() || n.is_missing() {
            return self.unsupported(
                n,
                "a syntax error",
                Some("fix the code so that it compiles with nvcc"),
            );
        }
        match n.kind() {
            "identifier" | "field_identifier" | "namespace_identifier" | "type_identifier" => {
                mk(ExprKind::Ident(self.text(n).to_string()))
            }
            "qualified_identifier" => {
                // `cg::tiled_partition<32>` as a callee: keep the template args on the call.
                if let Some(nm) = field("name")
                    && nm.kind() == "template_function"
                {
                    let scope = field("scope").map_or("", |s| self.text(s));
                    let inner = self.expr(nm);
                    if let ExprKind::Call(f, targs, _) = inner.kind
                        && let ExprKind::Ident(name) = f.kind
                    {
                        return mk(ExprKind::Call(
                            Box::new(mk(ExprKind::Ident(format!("{scope}::{name}")))),
                            targs,
                            Vec::new(),
                        ));
                    }
                }
                // `std::numeric_limits<T>::max`, `std::is_same<A, B>::value`: a member of a
                // standard class template's instance, kept as `std::numeric_limits::max` with its
                // template arguments, like a callee with them (the lowering knows these members;
                // a program's own templates' members keep their names).
                if let Some((name, targs)) = self.std_template_member(n) {
                    return mk(ExprKind::Call(
                        Box::new(mk(ExprKind::Ident(name))),
                        targs,
                        Vec::new(),
                    ));
                }
                mk(ExprKind::Ident(squeeze(self.text(n))))
            }
            "template_function" => {
                // A name with template arguments; a Call with no args marks "not yet called".
                let name = field("name").map_or("", |x| self.text(x)).to_string();
                let args = field("arguments")
                    .map(|a| self.template_args(a))
                    .unwrap_or_default();
                mk(ExprKind::Call(
                    Box::new(mk(ExprKind::Ident(name))),
                    args,
                    Vec::new(),
                ))
            }
            "number_literal" => {
                let t = self.text(n);
                let (neg, body) = match t.strip_prefix('-') {
                    Some(b) => (true, b),
                    None => (false, t.strip_prefix('+').unwrap_or(t)),
                };
                let lit = number(body)
                    .unwrap_or_else(|| ExprKind::Unsupported(format!("the number `{t}`"), None));
                if neg {
                    mk(ExprKind::Unary(Unary::Neg, Box::new(mk(lit))))
                } else {
                    mk(lit)
                }
            }
            "char_literal" => match char_value(self.text(n)) {
                Some(v) => mk(ExprKind::Char(v)),
                None => self.bad(n, "this character literal"),
            },
            "string_literal" | "concatenated_string" | "raw_string_literal" => {
                mk(ExprKind::Str(self.string(n)))
            }
            "true" => mk(ExprKind::Bool(true)),
            "false" => mk(ExprKind::Bool(false)),
            "null" | "nullptr" => mk(ExprKind::Null),
            "parenthesized_expression" => match named_children(n).into_iter().next() {
                Some(e) => self.expr(e),
                None => self.bad(n, "empty parentheses"),
            },
            "binary_expression" => {
                let op = field("operator").map_or("", |o| self.text(o));
                let b = match op {
                    "+" => Binary::Add,
                    "-" => Binary::Sub,
                    "*" => Binary::Mul,
                    "/" => Binary::Div,
                    "%" => Binary::Rem,
                    "<<" => Binary::Shl,
                    ">>" => Binary::Shr,
                    "&" => Binary::BitAnd,
                    "|" => Binary::BitOr,
                    "^" => Binary::BitXor,
                    "<" => Binary::Lt,
                    "<=" => Binary::Le,
                    ">" => Binary::Gt,
                    ">=" => Binary::Ge,
                    "==" => Binary::Eq,
                    "!=" => Binary::Ne,
                    "&&" | "and" => Binary::LogAnd,
                    "||" | "or" => Binary::LogOr,
                    other => return self.bad(n, &format!("the operator `{other}`")),
                };
                mk(ExprKind::Binary(b, sub("left"), sub("right")))
            }
            "unary_expression" | "pointer_expression" => {
                let op = field("operator").map_or("", |o| self.text(o));
                let u = match op {
                    "-" => Unary::Neg,
                    "+" => Unary::Plus,
                    "~" => Unary::BitNot,
                    "!" | "not" => Unary::Not,
                    "*" => Unary::Deref,
                    "&" => Unary::AddrOf,
                    other => return self.bad(n, &format!("the operator `{other}`")),
                };
                mk(ExprKind::Unary(u, sub("argument")))
            }
            "update_expression" => {
                let op = field("operator");
                let arg = field("argument");
                let (Some(op), Some(arg)) = (op, arg) else {
                    return self.bad(n, "an incomplete ++/--");
                };
                let prefix = op.start_byte() < arg.start_byte();
                mk(ExprKind::IncDec(
                    self.text(op) == "++",
                    prefix,
                    Box::new(self.expr(arg)),
                ))
            }
            "assignment_expression" => {
                let op = field("operator").map_or("=", |o| self.text(o));
                let b = match op {
                    "=" => None,
                    "+=" => Some(Binary::Add),
                    "-=" => Some(Binary::Sub),
                    "*=" => Some(Binary::Mul),
                    "/=" => Some(Binary::Div),
                    "%=" => Some(Binary::Rem),
                    "<<=" => Some(Binary::Shl),
                    ">>=" => Some(Binary::Shr),
                    "&=" => Some(Binary::BitAnd),
                    "|=" => Some(Binary::BitOr),
                    "^=" => Some(Binary::BitXor),
                    other => return self.bad(n, &format!("the operator `{other}`")),
                };
                mk(ExprKind::Assign(b, sub("left"), sub("right")))
            }
            "conditional_expression" => mk(ExprKind::Cond(
                sub("condition"),
                sub("consequence"),
                sub("alternative"),
            )),
            "comma_expression" => mk(ExprKind::Comma(sub("left"), sub("right"))),
            "subscript_expression" => {
                let idx = field("indices")
                    .and_then(|i| {
                        if i.kind() == "subscript_argument_list" {
                            named_children(i).into_iter().next()
                        } else {
                            Some(i)
                        }
                    })
                    .or_else(|| field("index"));
                let idx = match idx {
                    Some(i) => self.expr(i),
                    None => self.bad(n, "an empty subscript"),
                };
                mk(ExprKind::Index(sub("argument"), Box::new(idx)))
            }
            "field_expression" => {
                let arrow = field("operator").is_some_and(|o| self.text(o) == "->");
                // `obj.f<T>` and `obj.template f<T>`: a member function template's explicit
                // arguments, kept as a callee not yet called (as `f<T>` is).
                let method = field("field").and_then(|f| match f.kind() {
                    "template_method" => Some(f),
                    "dependent_name" => named_children(f)
                        .into_iter()
                        .find(|c| c.kind() == "template_method"),
                    _ => None,
                });
                if let Some(m) = method {
                    let name = m.child_by_field_name("name").map_or("", |x| self.text(x));
                    let targs = m
                        .child_by_field_name("arguments")
                        .map(|a| self.template_args(a))
                        .unwrap_or_default();
                    let member = mk(ExprKind::Member(sub("argument"), name.to_string(), arrow));
                    return mk(ExprKind::Call(Box::new(member), targs, Vec::new()));
                }
                let f = field("field").map_or("", |f| self.text(f)).to_string();
                mk(ExprKind::Member(sub("argument"), f, arrow))
            }
            "cast_expression" => {
                let ty =
                    field("type").map_or(TypeExpr::Name("int".into()), |t| self.type_descriptor(t));
                mk(ExprKind::Cast(ty, sub("value")))
            }
            "sizeof_expression" => {
                if children(n).iter().any(|c| c.kind() == "...") {
                    return match named_children(n).into_iter().next() {
                        Some(p) => mk(ExprKind::SizeofPack(self.text(p).to_string())),
                        None => self.bad(n, "`sizeof...` without a pack"),
                    };
                }
                if let Some(t) = field("type") {
                    mk(ExprKind::SizeofType(self.type_descriptor(t)))
                } else {
                    mk(ExprKind::SizeofExpr(sub("value")))
                }
            }
            "alignof_expression" => match field("type") {
                Some(t) => mk(ExprKind::Alignof(self.type_descriptor(t))),
                None => self.bad(n, "alignof of an expression"),
            },
            "initializer_list" => mk(ExprKind::InitList(
                named_children(n)
                    .into_iter()
                    .map(|c| self.expr(c))
                    .collect(),
            )),
            "compound_literal_expression" => {
                let ty =
                    field("type").map_or(TypeExpr::Name("int".into()), |t| self.type_descriptor(t));
                mk(ExprKind::Cast(ty, sub("value")))
            }
            "call_expression" => self.call(n),
            "gnu_asm_expression" => self.unsupported(
                n,
                "inline PTX assembly (`asm`)",
                Some("write the operation in CUDA C; warpsim runs C, not PTX"),
            ),
            "lambda_expression" => {
                let decl = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "lambda_declarator");
                let params = decl
                    .and_then(|d| {
                        named_children(d)
                            .into_iter()
                            .find(|c| c.kind() == "parameter_list")
                    })
                    .map(|p| self.params(p))
                    .unwrap_or_default();
                let ret = decl
                    .and_then(|d| {
                        named_children(d)
                            .into_iter()
                            .find(|c| c.kind() == "trailing_return_type")
                    })
                    .and_then(|r| named_children(r).into_iter().next())
                    .map_or(TypeExpr::Auto, |t| self.type_descriptor(t));
                let body = field("body").map(|b| self.block(b)).unwrap_or_default();
                let mut captures = crate::cuda::front::ast::Captures::default();
                if let Some(spec) = field("captures") {
                    let mut cur = spec.walk();
                    let mut by_ref = false;
                    let mut deref = false;
                    for c in spec.children(&mut cur) {
                        match c.kind() {
                            "&" => by_ref = true,
                            "*" => deref = true,
                            "lambda_default_capture" => captures.all = self.text(c) == "=",
                            "identifier" if by_ref => {
                                captures.by_ref.push(self.text(c).to_string())
                            }
                            "identifier" => captures.named.push((self.text(c).to_string(), None)),
                            "lambda_capture_initializer" if !by_ref => {
                                let name =
                                    c.child_by_field_name("left").map_or("", |x| self.text(x));
                                let init = c.child_by_field_name("right").map(|x| self.expr(x));
                                captures.named.push((name.to_string(), init));
                            }
                            "this" => captures.this_copy = deref,
                            "," => {
                                by_ref = false;
                                deref = false;
                            }
                            _ => {}
                        }
                    }
                }
                mk(ExprKind::Lambda(
                    Box::new(Function {
                        name: "lambda".into(),
                        global: false,
                        device: true,
                        template: Vec::new(),
                        ret,
                        params,
                        body,
                        site,
                        syntax_error: self.first_error(n),
                        is_static: false,
                        is_const: false,
                        inits: Vec::new(),
                        specialization: None,
                    }),
                    captures,
                ))
            }
            "new_expression" | "delete_expression" => self.unsupported(
                n,
                "new/delete in device code",
                Some("use local arrays or buffers passed as parameters"),
            ),
            "this" => mk(ExprKind::This),
            "parameter_pack_expansion" => match field("pattern") {
                Some(p) if p.kind() != "type_descriptor" => {
                    mk(ExprKind::PackExpansion(Box::new(self.expr(p))))
                }
                _ => self.bad(n, "a pack expansion of a type here"),
            },
            "fold_expression" => self.unsupported(
                n,
                "a fold expression (`(args + ...)`)",
                Some("expand the pack into a call's arguments (`f(args...)`) or a braced list, and combine them there"),
            ),
            // `({ int t = a; t * 2; })`, the GNU extension macros use for a value.
            "compound_statement" => mk(ExprKind::StmtExpr(self.block(n))),
            "primitive_type" | "sized_type_specifier" => {
                mk(ExprKind::Ident(self.text(n).to_string()))
            }
            other => self.bad(n, &format!("the expression `{other}`")),
        }
    }

    /// `std::C<A, B>::m` (a qualified name whose last scope is an instance of a standard class
    /// template: `std::numeric_limits<T>::max`, `std::make_unsigned<T>::type`) as `std::C::m` and
    /// the instance's template arguments.
    fn std_template_member(&self, n: Node<'_>) -> Option<(String, Vec<TemplateArg>)> {
        self.member_of_template_instance(n).filter(|(name, _)| {
            matches!(
                name.trim_start_matches("::").rsplitn(3, "::").nth(2),
                Some("std" | "cuda::std")
            )
        })
    }

    /// `ns::C<A, B>::m` (a qualified name whose last scope is a template instance) as
    /// `ns::C::m` and the instance's template arguments.
    fn member_of_template_instance(&self, n: Node<'_>) -> Option<(String, Vec<TemplateArg>)> {
        let mut prefix = String::new();
        let mut cur = n;
        loop {
            let scope = cur.child_by_field_name("scope")?;
            let name = cur.child_by_field_name("name")?;
            if scope.kind() == "template_type" {
                if !matches!(
                    name.kind(),
                    "identifier" | "field_identifier" | "type_identifier"
                ) {
                    return None;
                }
                let class = scope.child_by_field_name("name")?;
                let targs = scope
                    .child_by_field_name("arguments")
                    .map(|a| self.template_args(a))
                    .unwrap_or_default();
                let member = format!("{prefix}{}::{}", self.text(class), self.text(name));
                return Some((member, targs));
            }
            prefix.push_str(self.text(scope));
            prefix.push_str("::");
            if name.kind() != "qualified_identifier" {
                return None;
            }
            cur = name;
        }
    }

    fn call(&self, n: Node<'_>) -> Expr {
        let site = self.site(n);
        let span = (n.start_byte(), n.end_byte());
        let mk = |kind| Expr { kind, site, span };
        if named_children(n)
            .iter()
            .any(|c| c.kind() == "kernel_call_syntax")
        {
            return self.unsupported(
                n,
                "a kernel launch from device code (dynamic parallelism)",
                Some("launch kernels from the host; warpsim runs one kernel per launch"),
            );
        }
        let args: Vec<Expr> = n
            .child_by_field_name("arguments")
            .map(|a| {
                named_children(a)
                    .into_iter()
                    .map(|c| self.expr(c))
                    .collect()
            })
            .unwrap_or_default();
        let Some(f) = n.child_by_field_name("function") else {
            return self.bad(n, "a call without a callee");
        };
        // `static_cast<T>(x)` and friends, `float(x)` (functional casts).
        if f.kind() == "template_function" {
            let name = f.child_by_field_name("name").map_or("", |x| self.text(x));
            if matches!(name, "static_cast" | "reinterpret_cast" | "const_cast") {
                let ty = f
                    .child_by_field_name("arguments")
                    .and_then(|a| named_children(a).into_iter().next())
                    .map_or(TypeExpr::Name("int".into()), |t| self.type_descriptor(t));
                let Some(v) = args.into_iter().next() else {
                    return self.bad(n, "a cast without a value");
                };
                // `reinterpret_cast<T &>(x)` is `*reinterpret_cast<T *>(&x)`: the object's
                // bytes as a `T`.
                if let (TypeExpr::Ref(to), "reinterpret_cast") = (&ty, name) {
                    let addr = mk(ExprKind::Unary(Unary::AddrOf, Box::new(v)));
                    let ptr = TypeExpr::Pointer(to.clone());
                    let cast = mk(ExprKind::Cast(ptr, Box::new(addr)));
                    return mk(ExprKind::Unary(Unary::Deref, Box::new(cast)));
                }
                return mk(ExprKind::Cast(ty, Box::new(v)));
            }
            if name == "dynamic_cast" {
                return self.bad(n, "dynamic_cast");
            }
        }
        if matches!(f.kind(), "primitive_type" | "sized_type_specifier") && args.len() == 1 {
            let ty = self.type_expr(f);
            let v = args.into_iter().next().expect("one argument");
            return mk(ExprKind::Cast(ty, Box::new(v)));
        }
        let callee = self.expr(f);
        match callee.kind {
            ExprKind::Call(inner, targs, no_args) if no_args.is_empty() => {
                mk(ExprKind::Call(inner, targs, args))
            }
            kind => mk(ExprKind::Call(
                Box::new(Expr {
                    kind,
                    site: callee.site,
                    span: callee.span,
                }),
                Vec::new(),
                args,
            )),
        }
    }

    /// The value of a (possibly concatenated) string literal.
    fn string(&self, n: Node<'_>) -> String {
        if n.kind() == "concatenated_string" {
            return named_children(n)
                .into_iter()
                .map(|c| self.string(c))
                .collect();
        }
        let t = self.text(n);
        let t = t.trim_start_matches(['L', 'u', 'U', '8']);
        let inner = t
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(t);
        unescape(inner)
    }
}

/// `A<T>::B<U>` without its template arguments: `A::B`.
/// What an enum declared in a struct adds to it: the struct's name, its static members and its
/// member types.
type Members<'a> = (
    &'a str,
    &'a mut Vec<VarDecl>,
    &'a mut Vec<(String, TypeExpr)>,
);

/// Whether a member declarator declares a member function (`T &get() const;`), not a field.
fn declares_function(d: Node<'_>) -> bool {
    match d.kind() {
        "function_declarator" => true,
        "pointer_declarator" | "reference_declarator" | "parenthesized_declarator" => {
            named_children(d).into_iter().any(declares_function)
        }
        _ => false,
    }
}

/// `text` without its spaces, but for one between two words (`S<unsigned int, 4>::n` is
/// `S<unsigned int,4>::n`).
fn squeeze(text: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    for w in text.split_whitespace() {
        if out.ends_with(word) && w.starts_with(word) {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

fn without_template_args(scope: &str) -> String {
    let mut depth = 0;
    scope
        .chars()
        .filter(|&c| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => return depth == 0,
            }
            false
        })
        .collect()
}

/// Whether `e` is an lvalue in C++ (what `decltype` makes a reference of).
fn is_lvalue(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ident(_)
        | ExprKind::Index(..)
        | ExprKind::Member(..)
        | ExprKind::Str(_)
        | ExprKind::Unary(Unary::Deref, _)
        | ExprKind::Assign(..)
        | ExprKind::IncDec(_, true, _) => true,
        ExprKind::Cond(_, a, b) => is_lvalue(a) && is_lvalue(b),
        ExprKind::Comma(_, b) => is_lvalue(b),
        _ => false,
    }
}

/// Replace the innermost placeholder of a nested array type by `t` (C's declarator order).
fn substitute_hole(ty: TypeExpr, t: TypeExpr) -> TypeExpr {
    match ty {
        TypeExpr::Name(n) if n == "\u{0}" => t,
        TypeExpr::Array(inner, size) => TypeExpr::Array(Box::new(substitute_hole(*inner, t)), size),
        TypeExpr::Pointer(inner) => TypeExpr::Pointer(Box::new(substitute_hole(*inner, t))),
        TypeExpr::Ref(inner) => TypeExpr::Ref(Box::new(substitute_hole(*inner, t))),
        other => other,
    }
}

/// A numeric literal's kind (integer with suffixes, or floating with its `f` suffix).
fn number(t: &str) -> Option<ExprKind> {
    let lower = t.to_ascii_lowercase().replace('\'', "");
    let is_hex = lower.starts_with("0x");
    let is_float =
        !is_hex && (lower.contains('.') || lower.contains('e')) || (is_hex && lower.contains('p'));
    if is_float || (!is_hex && lower.ends_with('f') && lower.len() > 1) {
        let f32_suffix = lower.ends_with('f');
        let body = lower.trim_end_matches(['f', 'l']);
        let v: f64 = match body.strip_prefix("0x") {
            Some(hex) => hex_float(hex)?,
            None => body.parse().ok()?,
        };
        return Some(ExprKind::Float(v, f32_suffix));
    }
    parse_int(t).map(ExprKind::Int)
}

/// The value of a hexadecimal floating literal's digits after `0x` (`1.8p+1` is 3.0), or `None`
/// where its mantissa has more than 53 significant bits: rounding it here and again to `float`
/// could differ from the compiler's one rounding, so such a literal is refused.
fn hex_float(hex: &str) -> Option<f64> {
    let (mantissa, exp) = hex.split_once('p')?;
    let mut exp: i64 = exp.parse().ok()?;
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{frac}");
    let digits = digits.trim_start_matches('0');
    let significant = digits.trim_end_matches('0');
    exp += 4 * (digits.len() as i64 - significant.len() as i64 - frac.len() as i64);
    let digits = significant;
    if digits.is_empty() {
        return Some(0.0);
    }
    let bits = u64::from_str_radix(digits, 16).ok()?;
    if digits.len() > 16 || 64 - (bits.leading_zeros() + bits.trailing_zeros()) > 53 {
        return None;
    }
    // Each step but the last keeps the value normal, so it scales exactly; the last rounds once.
    let mut v = bits as f64;
    while exp > 1000 {
        v *= 2f64.powi(1000);
        exp -= 1000;
    }
    while exp < -1000 {
        v *= 2f64.powi(-1000);
        exp += 1000;
    }
    Some(v * 2f64.powi(exp as i32))
}
