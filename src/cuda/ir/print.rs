//! A readable listing of a lowered kernel (for tests, debugging and `--dump`-style output):
//! one line per statement, counted operations marked `*`.

use std::fmt::Write;

use super::{Addr, Base, Builtin, Kernel, Op, Operand, Stmt};

/// The kernel as text.
pub fn kernel(k: &Kernel) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "kernel {}", k.name);
    for (i, p) in k.params.iter().enumerate() {
        let _ = writeln!(out, "  param {i} {}: {:?}", p.name, p.kind);
    }
    for (i, s) in k.shared.iter().enumerate() {
        let _ = writeln!(
            out,
            "  shared {i} {}: {} bytes, align {}",
            s.name, s.bytes, s.align
        );
    }
    for (i, l) in k.locals.iter().enumerate() {
        let _ = writeln!(out, "  local {i} {}: {}[{}]", l.name, l.ty, l.len);
    }
    block(k, &k.body, 1, &mut out);
    out
}

fn var(k: &Kernel, v: super::VarId) -> String {
    let d = &k.vars[v.0 as usize];
    format!("{}{}", d.name, if d.uniform { "" } else { "'" })
}

fn operand(k: &Kernel, o: &Operand) -> String {
    match o {
        Operand::Var(v) => var(k, *v),
        Operand::Const(c) => match c.ty {
            super::Scalar::F32 => format!("{}f", f32::from_bits(c.bits as u32)),
            super::Scalar::F64 => format!("{}", f64::from_bits(c.bits)),
            s if s.is_signed() => format!("{}", c.bits as i64),
            _ => format!("{}", c.bits),
        },
        Operand::Builtin(b) => match b {
            Builtin::ThreadIdx(a) => format!("threadIdx.{a:?}").to_lowercase(),
            Builtin::BlockIdx(a) => format!("blockIdx.{a:?}").to_lowercase(),
            Builtin::BlockDim(a) => format!("blockDim.{a:?}").to_lowercase(),
            Builtin::GridDim(a) => format!("gridDim.{a:?}").to_lowercase(),
            other => format!("{other:?}"),
        },
    }
}

fn addr(k: &Kernel, a: &Addr) -> String {
    let base = match a.base {
        Base::Param(i) => k.buffer_name(i),
        Base::Shared(i) => k
            .shared
            .get(i as usize)
            .map_or(format!("shared{i}"), |s| s.name.clone()),
        Base::DynamicShared => "extern_shared".into(),
        Base::Global(i) => k
            .globals
            .get(i as usize)
            .map_or(format!("global{i}"), |g| g.name.clone()),
        Base::Null => "null".into(),
        Base::Var(v) => format!("buffer({})", var(k, v)),
    };
    let mut s = format!("{base}[{}", operand(k, &a.offset));
    for (o, scale) in &a.index {
        let _ = write!(s, " + {}*{scale}", operand(k, o));
    }
    s.push(']');
    s
}

fn block(k: &Kernel, stmts: &[Stmt], depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for s in stmts {
        match s {
            Stmt::Assign(a) => {
                let rhs = match &a.op {
                    Op::Copy { src } => operand(k, src),
                    Op::Convert { src, from } => {
                        format!("({}) {} /*{from}*/", a.ty, operand(k, src))
                    }
                    Op::Bitcast { src, from } => {
                        format!("bitcast<{}>({} /*{from}*/)", a.ty, operand(k, src))
                    }
                    Op::Unary { op, a: x } => format!("{op:?}({})", operand(k, x)),
                    Op::Binary { op, a: x, b } => {
                        format!("{op:?}({}, {})", operand(k, x), operand(k, b))
                    }
                    Op::Fma {
                        a: x,
                        b,
                        c,
                        negate_product,
                        negate_addend,
                    } => format!(
                        "fma({}{}, {}, {}{})",
                        if *negate_product { "-" } else { "" },
                        operand(k, x),
                        operand(k, b),
                        if *negate_addend { "-" } else { "" },
                        operand(k, c)
                    ),
                    Op::Cmp { op, of, a: x, b } => {
                        format!("{op:?}<{of}>({}, {})", operand(k, x), operand(k, b))
                    }
                    Op::Select { cond, a: x, b } => {
                        format!(
                            "{} ? {} : {}",
                            operand(k, cond),
                            operand(k, x),
                            operand(k, b)
                        )
                    }
                    Op::And { a: x, b } => format!("{} && {}", operand(k, x), operand(k, b)),
                    Op::Or { a: x, b } => format!("{} || {}", operand(k, x), operand(k, b)),
                    Op::Offset { offset, index } => {
                        let mut s = format!("offset({}", operand(k, offset));
                        for (o, sc) in index {
                            let _ = write!(s, " + {}*{sc}", operand(k, o));
                        }
                        s.push(')');
                        s
                    }
                };
                let star = if a.varying { "*" } else { " " };
                let _ = writeln!(out, "{pad}{star}{}: {} = {rhs}", var(k, a.dst), a.ty);
            }
            Stmt::Load {
                dst, ty, addr: ad, ..
            } => {
                let d: Vec<String> = dst.iter().map(|v| var(k, *v)).collect();
                let _ = writeln!(out, "{pad}*{} = load.{ty} {}", d.join(", "), addr(k, ad));
            }
            Stmt::Store {
                ty,
                addr: ad,
                values,
                ..
            } => {
                let v: Vec<String> = values.iter().map(|o| operand(k, o)).collect();
                let _ = writeln!(out, "{pad}*store.{ty} {} = {}", addr(k, ad), v.join(", "));
            }
            Stmt::Atomic {
                dst,
                ty,
                op,
                addr: ad,
                a,
                b,
                ..
            } => {
                let d = dst.map_or("_".into(), |v| var(k, v));
                let b = b.map_or(String::new(), |b| format!(", {}", operand(k, &b)));
                let _ = writeln!(
                    out,
                    "{pad}*{d} = atomic{op:?}.{ty} {}, {}{b}",
                    addr(k, ad),
                    operand(k, a)
                );
            }
            Stmt::If {
                cond,
                then,
                els,
                varying,
                ..
            } => {
                let star = if *varying { "*" } else { " " };
                let _ = writeln!(out, "{pad}{star}if {} {{", operand(k, cond));
                block(k, then, depth + 1, out);
                if !els.is_empty() {
                    let _ = writeln!(out, "{pad} }} else {{");
                    block(k, els, depth + 1, out);
                }
                let _ = writeln!(out, "{pad} }}");
            }
            Stmt::Loop {
                body,
                step,
                varying,
                unrolled,
                ..
            } => {
                let star = if *varying { "*" } else { " " };
                let unrolled = if *unrolled { " (unrolled)" } else { "" };
                let _ = writeln!(out, "{pad}{star}loop{unrolled} {{");
                block(k, body, depth + 1, out);
                if !step.is_empty() {
                    let _ = writeln!(out, "{pad} }} step {{");
                    block(k, step, depth + 1, out);
                }
                let _ = writeln!(out, "{pad} }}");
            }
            Stmt::Break => {
                let _ = writeln!(out, "{pad} break");
            }
            Stmt::Continue => {
                let _ = writeln!(out, "{pad} continue");
            }
            Stmt::Return => {
                let _ = writeln!(out, "{pad} return");
            }
            Stmt::Inline { body } => {
                let _ = writeln!(out, "{pad} inline {{");
                block(k, body, depth + 1, out);
                let _ = writeln!(out, "{pad} }}");
            }
            Stmt::Sync {
                kind, pred, dst, ..
            } => {
                let p = pred.map_or(String::new(), |p| operand(k, &p));
                let d = dst.map_or(String::new(), |d| format!("{} = ", var(k, d)));
                let _ = writeln!(out, "{pad}*{d}syncthreads.{kind:?}({p})");
            }
            Stmt::SyncWarp { mask, .. } => {
                let _ = writeln!(out, "{pad}*syncwarp({})", operand(k, mask));
            }
            Stmt::Fence { .. } => {
                let _ = writeln!(out, "{pad}*threadfence");
            }
            Stmt::Shfl {
                dst,
                ty,
                kind,
                mask,
                value,
                lane,
                width,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "{pad}*{} = shfl.{kind:?}.{ty}({}, {}, {}, {})",
                    var(k, *dst),
                    mask.as_ref()
                        .map_or("active".to_string(), |m| operand(k, m)),
                    operand(k, value),
                    operand(k, lane),
                    operand(k, width)
                );
            }
            Stmt::Vote {
                dst,
                kind,
                mask,
                arg,
                ..
            } => {
                let m = mask.map_or(String::new(), |m| operand(k, &m));
                let a = arg.map_or(String::new(), |a| format!(", {}", operand(k, &a)));
                let _ = writeln!(out, "{pad}*{} = vote.{kind:?}({m}{a})", var(k, *dst));
            }
            Stmt::Printf { format, args, .. } => {
                let a: Vec<String> = args
                    .iter()
                    .map(|(o, t)| format!("{}:{t}", operand(k, o)))
                    .collect();
                let _ = writeln!(out, "{pad} printf({format:?}, {})", a.join(", "));
            }
            Stmt::Texture {
                dst,
                ty,
                texture,
                fetch,
                coords,
                ..
            } => {
                let d: Vec<String> = dst.iter().map(|v| var(k, *v)).collect();
                let c: Vec<String> = coords.iter().map(|o| operand(k, o)).collect();
                let name = match fetch {
                    super::texture::Fetch::Index => "tex1Dfetch".to_string(),
                    super::texture::Fetch::Coords(n) => format!("tex{n}D"),
                };
                let t = match texture {
                    Base::Global(i) => k
                        .globals
                        .get(*i as usize)
                        .map_or(format!("global{i}"), |g| g.name.clone()),
                    other => format!("texture{}", other.encode().unwrap_or(0)),
                };
                let _ = writeln!(
                    out,
                    "{pad} {} = {name}<{ty}>({t}, {})",
                    d.join(", "),
                    c.join(", ")
                );
            }
            Stmt::LocalLoad {
                dst, array, index, ..
            } => {
                let _ = writeln!(
                    out,
                    "{pad} {} = local{array}[{}]",
                    var(k, *dst),
                    operand(k, index)
                );
            }
            Stmt::LocalStore {
                array,
                index,
                value,
                ..
            } => {
                let _ = writeln!(
                    out,
                    "{pad} local{array}[{}] = {}",
                    operand(k, index),
                    operand(k, value)
                );
            }
            Stmt::Trap { message, .. } => {
                let _ = writeln!(out, "{pad} trap {message:?}");
            }
        }
    }
}
