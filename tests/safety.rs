//! `unsafe` lives in one audited place: the compiled tier's entry (`src/cuda/jit/enter.rs`),
//! each use with a `// SAFETY:` comment. The crate root denies `unsafe_code` and only that
//! module is allowed it; this test finds `unsafe` nowhere else, so the allowance cannot spread.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn unsafe_code_is_only_in_the_compiled_tiers_entry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["src", "kernels"] {
        rust_files(&root.join(d), &mut files);
    }
    let entry = root.join("src/cuda/jit/enter.rs");
    let mut uses = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let is_unsafe = code.contains("unsafe {")
                || code.contains("unsafe fn")
                || code.contains("unsafe impl")
                || code.contains("unsafe extern");
            let allows =
                code.contains("allow(unsafe_code)") || code.contains("expect(unsafe_code)");
            if *f == entry {
                if is_unsafe {
                    uses += 1;
                    let before: Vec<&str> = text.lines().take(n).collect();
                    let commented = before
                        .iter()
                        .rev()
                        .take_while(|l| l.trim_start().starts_with("//") || l.contains("let f"))
                        .any(|l| l.contains("// SAFETY:"));
                    assert!(
                        commented,
                        "{}:{}: `unsafe` without a `// SAFETY:` comment",
                        f.display(),
                        n + 1
                    );
                }
                continue;
            }
            let allowed_here = f.ends_with("src/cuda/jit/mod.rs") && allows;
            assert!(
                !is_unsafe && (!allows || allowed_here),
                "{}:{}: `unsafe` outside src/cuda/jit/enter.rs: {line}",
                f.display(),
                n + 1
            );
        }
    }
    assert!(uses >= 1, "the entry calls compiled code through `unsafe`");
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("readable");
    assert!(
        lib.contains("#![deny(unsafe_code)]"),
        "the crate root denies unsafe code"
    );
    let jit = std::fs::read_to_string(root.join("src/cuda/jit/mod.rs")).expect("readable");
    assert_eq!(
        jit.matches("allow(unsafe_code)").count(),
        1,
        "one module is allowed it"
    );
}
