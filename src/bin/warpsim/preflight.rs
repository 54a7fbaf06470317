//! Checks made before anything runs: that a report can be written (and is not an input), and
//! that a run fits in the machine's memory.

use crate::Failure;
use std::path::Path;
use warpsim::Mode;
use warpsim::kernels::{Entry, Params};

/// Fail with exit status 2 unless `path` (given to `flag`) can be written: its directory exists
/// and lets us create the file, or the file exists and is writable. Leaves no file behind.
pub fn writable(path: &Path, flag: &str) -> Result<(), Failure> {
    let fail =
        |why: String| Failure::Usage(format!("{flag} {}: {why}; nothing was run", path.display()));
    if path.as_os_str().is_empty() {
        return Err(fail("the path is empty".to_string()));
    }
    if path.is_dir() {
        return Err(fail(
            "that is a directory; give a file name such as report.html".to_string(),
        ));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(fail(format!(
            "the directory {} does not exist; create it first or write the report elsewhere",
            dir.display()
        )));
    }
    let existed = path.exists();
    match std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(_) => {
            if !existed {
                let _ = std::fs::remove_file(path);
            }
            Ok(())
        }
        Err(e) => Err(fail(format!("cannot write there ({e})"))),
    }
}

/// Fail with exit status 2 if `path` (given to `flag`) is one of the `inputs` (the source files
/// of the run) under any name: writing the output would destroy the program. Compared by device
/// and inode, so that `./a.cu`, a symbolic link and a hard link are all caught.
pub fn not_an_input(path: &Path, flag: &str, inputs: &[std::path::PathBuf]) -> Result<(), Failure> {
    use std::os::unix::fs::MetadataExt;
    let Ok(out) = std::fs::metadata(path) else {
        return Ok(()); // not there yet, so no input
    };
    for input in inputs {
        if let Ok(m) = std::fs::metadata(input)
            && (m.dev(), m.ino()) == (out.dev(), out.ino())
        {
            return Err(Failure::Usage(format!(
                "{flag} {}: that is the input file {}, which writing the output would overwrite; \
                 give another file name; nothing was run",
                path.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Bytes of memory available to this process, and where the figure comes from.
pub fn available_memory() -> Option<(u64, &'static str)> {
    warpsim::memory::available_host_memory()
}

/// `bytes` for people: `512 B`, `3.2 MiB`, `32.0 GiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Refuse (exit status 2) a run whose estimated memory exceeds what the machine has available,
/// unless `force`. Without a way to know the available memory, the run goes ahead. `params`
/// names the run's parameters in the message.
pub fn memory(
    entry: &Entry,
    p: &Params,
    params: &str,
    mode: Mode,
    force: bool,
) -> Result<(), Failure> {
    let need = entry.memory_estimate(p, mode);
    let Some((available, source)) = available_memory() else {
        return Ok(());
    };
    if force || need.total <= available {
        return Ok(());
    }
    let what = if need.check > 0 {
        format!(
            "{} for its buffers and host copies and {} for check mode's shadow of global memory",
            human(need.data),
            human(need.check)
        )
    } else {
        "for its buffers and host copies".to_string()
    };
    let hint = if need.check > 0 {
        "use a smaller size or leave out --check"
    } else {
        "use a smaller size"
    };
    Err(Failure::Usage(format!(
        "{} ({params}) would need about {} of memory ({what}), but only {} is available \
         ({source}); {hint}, or add --force to run anyway",
        entry.name,
        human(need.total),
        human(available),
    )))
}
