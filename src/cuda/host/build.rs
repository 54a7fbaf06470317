//! Building a whole program's host side with the system C++ compiler, cached by content.
//!
//! Every local file the program reaches (its sources, and the headers they include from beside
//! themselves or from `-I` directories) is copied into a build tree that mirrors its absolute
//! path, and the files with device code are replaced by their host pass
//! ([`crate::cuda::front::split`]). The mirror's directories come first on the include path, so
//! the compiler reads the host pass wherever the original would have been read. The runtime's
//! headers (`runtime/include`, embedded in warpsim) stand in for the CUDA toolkit's, and its
//! implementation (`runtime/src`) is compiled once per compiler and linked into every program.
//!
//! The executable is cached under a hash of everything that goes into it (file contents and
//! names, flags, the compiler's identity, the runtime's text): a second run of an unchanged
//! program starts it without compiling. Each cache entry carries a seal (its files' sizes and
//! hashes), checked before it is used, so that a damaged entry is rebuilt rather than run.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cuda::front::split;

/// The runtime warpsim ships, as (path under `runtime/`, text): the headers host code compiles
/// against and the implementation it links.
pub const RUNTIME_FILES: &[(&str, &str)] = &[
    (
        "include/builtin_types.h",
        include_str!("../../../runtime/include/builtin_types.h"),
    ),
    (
        "include/cooperative_groups.h",
        include_str!("../../../runtime/include/cooperative_groups.h"),
    ),
    (
        "include/cooperative_groups/memcpy_async.h",
        include_str!("../../../runtime/include/cooperative_groups/memcpy_async.h"),
    ),
    (
        "include/cooperative_groups/reduce.h",
        include_str!("../../../runtime/include/cooperative_groups/reduce.h"),
    ),
    (
        "include/cooperative_groups/scan.h",
        include_str!("../../../runtime/include/cooperative_groups/scan.h"),
    ),
    (
        "include/cuComplex.h",
        include_str!("../../../runtime/include/cuComplex.h"),
    ),
    (
        "include/cuda.h",
        include_str!("../../../runtime/include/cuda.h"),
    ),
    (
        "include/cuda_bf16.h",
        include_str!("../../../runtime/include/cuda_bf16.h"),
    ),
    (
        "include/cuda_fp16.h",
        include_str!("../../../runtime/include/cuda_fp16.h"),
    ),
    (
        "include/cuda_fp8.h",
        include_str!("../../../runtime/include/cuda_fp8.h"),
    ),
    (
        "include/cuda_gl_interop.h",
        include_str!("../../../runtime/include/cuda_gl_interop.h"),
    ),
    (
        "include/cuda_host_math.h",
        include_str!("../../../runtime/include/cuda_host_math.h"),
    ),
    (
        "include/cuda_profiler_api.h",
        include_str!("../../../runtime/include/cuda_profiler_api.h"),
    ),
    (
        "include/cuda_runtime.h",
        include_str!("../../../runtime/include/cuda_runtime.h"),
    ),
    (
        "include/cuda_runtime_api.h",
        include_str!("../../../runtime/include/cuda_runtime_api.h"),
    ),
    (
        "include/curand.h",
        include_str!("../../../runtime/include/curand.h"),
    ),
    (
        "include/curand_kernel.h",
        include_str!("../../../runtime/include/curand_kernel.h"),
    ),
    (
        "include/device_launch_parameters.h",
        include_str!("../../../runtime/include/device_launch_parameters.h"),
    ),
    (
        "include/driver_types.h",
        include_str!("../../../runtime/include/driver_types.h"),
    ),
    (
        "include/host_defines.h",
        include_str!("../../../runtime/include/host_defines.h"),
    ),
    (
        "include/math_constants.h",
        include_str!("../../../runtime/include/math_constants.h"),
    ),
    (
        "include/mma.h",
        include_str!("../../../runtime/include/mma.h"),
    ),
    (
        "include/nvToolsExt.h",
        include_str!("../../../runtime/include/nvToolsExt.h"),
    ),
    (
        "include/nvtx3/nvToolsExt.h",
        include_str!("../../../runtime/include/nvtx3/nvToolsExt.h"),
    ),
    (
        "include/sm_61_intrinsics.h",
        include_str!("../../../runtime/include/sm_61_intrinsics.h"),
    ),
    (
        "include/vector_functions.h",
        include_str!("../../../runtime/include/vector_functions.h"),
    ),
    (
        "include/vector_types.h",
        include_str!("../../../runtime/include/vector_types.h"),
    ),
    (
        "include/warpsim_fp.h",
        include_str!("../../../runtime/include/warpsim_fp.h"),
    ),
    (
        "src/protocol.h",
        include_str!("../../../runtime/src/protocol.h"),
    ),
    (
        "src/warpsim_runtime.cpp",
        include_str!("../../../runtime/src/warpsim_runtime.cpp"),
    ),
];

/// What to build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// The program's sources: `.cu` (device and host code), `.cpp`/`.cc`/`.cxx` (host C++),
    /// `.c` (host C), in the order given.
    pub files: Vec<PathBuf>,
    /// `-I` directories.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME=VALUE` definitions (`-D NAME` is `NAME=1`; an empty value defines nothing).
    pub defines: Vec<(String, String)>,
    /// The C++ compiler; `None`: `$CXX`, else `c++`, `g++` or `clang++` on `PATH`.
    pub cxx: Option<String>,
    /// Options for the host compiler, given to every compile and to the link (nvcc's
    /// `-Xcompiler`: `-fopenmp`).
    pub host_flags: Vec<String>,
    /// Options for the link alone, after the objects (`-lgomp`, `-L/opt/lib`).
    pub link_flags: Vec<String>,
    /// Where built programs are cached; `None`: [`cache_dir`].
    pub cache: Option<PathBuf>,
}

/// Why a program could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The command line names something that cannot be built.
    Usage(String),
    /// A device pass (the split) failed at a located construct.
    Split(crate::cuda::Diagnostic),
    /// No C++ compiler was found.
    NoCompiler(String),
    /// The compiler failed: its command and its messages (pointing at the user's files).
    Compile {
        /// What was run.
        command: String,
        /// What the compiler printed, with warpsim's notes.
        output: String,
    },
    /// A file of the cache could not be written.
    Io(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Usage(m) | BuildError::NoCompiler(m) | BuildError::Io(m) => f.write_str(m),
            BuildError::Split(d) => write!(f, "{d}"),
            BuildError::Compile { command, output } => {
                write!(
                    f,
                    "{}\nthe host code did not compile ({command})",
                    output.trim_end()
                )
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// A built program: its executable and the sources of its device code.
#[derive(Clone, Debug)]
pub struct Built {
    /// The executable.
    pub exe: PathBuf,
    /// The program's name as nvcc would have built it, beside its first source file (`app`
    /// for `app.cu`): what it sees as `argv[0]` (the samples find their data by it).
    pub name: PathBuf,
    /// The `.cu` files, in order: translation unit `k` of the runtime's messages is `cu[k]`.
    pub cu: Vec<PathBuf>,
    /// Whether the executable came from the cache.
    pub cached: bool,
}

/// The source languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lang {
    Cuda,
    Cxx,
    C,
}

fn lang(path: &Path) -> Option<Lang> {
    match path.extension()?.to_str()? {
        "cu" => Some(Lang::Cuda),
        "cpp" | "cc" | "cxx" | "C" | "c++" => Some(Lang::Cxx),
        "c" => Some(Lang::C),
        _ => None,
    }
}

/// Where built programs are kept: `$WARPSIM_CACHE_DIR`, else `$XDG_CACHE_HOME/warpsim`, else
/// `~/.cache/warpsim`, else the temporary directory's `warpsim-cache`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("WARPSIM_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("warpsim");
    }
    if let Some(h) = std::env::var_os("HOME") {
        return PathBuf::from(h).join(".cache/warpsim");
    }
    std::env::temp_dir().join("warpsim-cache")
}

/// A 128-bit content hash in hex (two SipHash passes with different keys).
struct ContentHash(
    std::collections::hash_map::DefaultHasher,
    std::collections::hash_map::DefaultHasher,
);

impl ContentHash {
    fn new() -> ContentHash {
        let mut b = std::collections::hash_map::DefaultHasher::new();
        0xa5a5_u16.hash(&mut b);
        ContentHash(std::collections::hash_map::DefaultHasher::new(), b)
    }
    fn add(&mut self, part: &[u8]) {
        part.hash(&mut self.0);
        part.hash(&mut self.1);
    }
    fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.0.finish(), self.1.finish())
    }
}

/// The compiler to use: `choice`, else `$CXX`, else the first of `c++`, `g++`, `clang++` on
/// `PATH`.
pub fn find_cxx(choice: Option<&str>) -> Result<PathBuf, BuildError> {
    let env = std::env::var("CXX").ok().filter(|s| !s.trim().is_empty());
    let named = choice.map(str::to_string).or(env);
    if let Some(n) = named {
        return which(&n).ok_or_else(|| {
            BuildError::NoCompiler(format!(
                "the C++ compiler `{n}` was not found; install it or choose another with --cxx \
                 (or $CXX)"
            ))
        });
    }
    ["c++", "g++", "clang++"]
        .iter()
        .find_map(|n| which(n))
        .ok_or_else(|| {
            BuildError::NoCompiler(
                "no C++ compiler found (c++, g++ or clang++ on PATH): a whole program's host code \
                 is compiled by the system's C++ compiler; install one (Debian/Ubuntu: `apt-get \
                 install g++`) or name it with --cxx or $CXX"
                    .into(),
            )
        })
}

/// The C compiler for `.c` files: `$CC`, else `cc`, `gcc`, `clang`.
fn find_cc() -> Option<PathBuf> {
    std::env::var("CC")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .and_then(|n| which(&n))
        .or_else(|| ["cc", "gcc", "clang"].iter().find_map(|n| which(n)))
}

fn which(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.components().count() > 1 {
        return p.is_file().then(|| p.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|c| c.is_file())
}

/// The identity of a compiler for the cache: its path, size and modification time.
fn compiler_id(path: &Path) -> String {
    let meta = std::fs::metadata(path).ok();
    format!(
        "{}:{}:{:?}",
        path.display(),
        meta.as_ref().map_or(0, |m| m.len()),
        meta.and_then(|m| m.modified().ok())
    )
}

/// One file of the build tree.
struct Mirrored {
    /// The original, absolute.
    original: PathBuf,
    /// The text the compiler reads.
    text: Vec<u8>,
}

/// Every local file reachable from the sources, with its host-pass text.
fn mirror(opts: &BuildOptions) -> Result<BTreeMap<PathBuf, Mirrored>, BuildError> {
    let mut out: BTreeMap<PathBuf, Mirrored> = BTreeMap::new();
    let mut todo: Vec<PathBuf> = Vec::new();
    for f in &opts.files {
        lang(f).ok_or_else(|| {
            BuildError::Usage(format!(
                "{}: not a source file warpsim builds (.cu, .cpp/.cc/.cxx or .c)",
                f.display()
            ))
        })?;
        todo.push(absolute(f)?);
    }
    let dirs: Vec<PathBuf> = opts
        .include_dirs
        .iter()
        .map(|d| absolute(d))
        .collect::<Result<_, _>>()?;
    // Every file first, with the local files it includes: a file's host pass reads the
    // macros of the headers it includes.
    let mut read: BTreeMap<PathBuf, (String, Vec<u8>, Vec<PathBuf>)> = BTreeMap::new();
    while let Some(path) = todo.pop() {
        if read.contains_key(&path) {
            continue;
        }
        let bytes = std::fs::read(&path)
            .map_err(|e| BuildError::Usage(format!("cannot read {}: {e}", path.display())))?;
        let text = crate::cuda::source::text(&bytes).to_string();
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut included = Vec::new();
        for (name, quoted) in includes(&text) {
            let found = quoted
                .then(|| dir.join(&name))
                .into_iter()
                .chain(dirs.iter().map(|d| d.join(&name)))
                .find(|p| p.is_file());
            if let Some(p) = found {
                included.push(absolute(&p)?);
            }
        }
        todo.extend(included.iter().cloned());
        read.insert(path, (text, bytes, included));
    }
    for (path, (text, bytes, _)) in &read {
        let shown = display_name(path);
        // A file without device code is mirrored byte for byte (but for a byte order mark).
        let host = if split::has_device_code(text) {
            let mut headers = Vec::new();
            let mut seen = std::collections::BTreeSet::new();
            let mut next: Vec<&PathBuf> = read[path].2.iter().collect();
            while let Some(h) = next.pop() {
                if h != path && seen.insert(h) {
                    headers.push(read[h].0.as_str());
                    next.extend(&read[h].2);
                }
            }
            split::host_file(&shown, text, &headers)
                .map_err(BuildError::Split)?
                .text
                .into_bytes()
        } else {
            let mut h = format!("#line 1 \"{}\"\n", shown.replace('"', "\\\"")).into_bytes();
            h.extend_from_slice(crate::cuda::source::without_bom(bytes));
            h
        };
        out.insert(
            path.clone(),
            Mirrored {
                original: path.clone(),
                text: host,
            },
        );
    }
    Ok(out)
}

/// The `#include`s of a text, in every branch of its conditionals: (name, quoted).
fn includes(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest
            .strip_prefix("include_next")
            .or_else(|| rest.strip_prefix("include"))
        else {
            continue;
        };
        let rest = rest.trim();
        if let Some(r) = rest.strip_prefix('"') {
            if let Some(end) = r.find('"') {
                out.push((r[..end].to_string(), true));
            }
        } else if let Some(r) = rest.strip_prefix('<')
            && let Some(end) = r.find('>')
        {
            out.push((r[..end].to_string(), false));
        }
    }
    out
}

/// A path as the user would recognise it: relative to the working directory when inside it.
fn display_name(abs: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| abs.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| abs.to_path_buf())
        .display()
        .to_string()
}

fn absolute(p: &Path) -> Result<PathBuf, BuildError> {
    std::fs::canonicalize(p).map_err(|e| BuildError::Usage(format!("{}: {e}", p.display())))
}

/// Where the mirror of an absolute path lives under `root`.
fn mirrored(root: &Path, abs: &Path) -> PathBuf {
    root.join(abs.strip_prefix("/").unwrap_or(abs))
}

/// The file in a published directory that lists its sealed files' sizes and hashes.
const SEAL: &str = "SEAL";

/// Whether `dest` was published whole: its seal is there and every file it names has the size
/// and content hash it had when sealed (a file cut short by a full disk or a crash, or emptied,
/// is not). Reads every sealed file: for the executable, a millisecond.
fn intact(dest: &Path) -> bool {
    let Ok(seal) = std::fs::read_to_string(dest.join(SEAL)) else {
        return false;
    };
    let mut files = 0;
    for line in seal.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(size), Some(hash), Some(name)) = (parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        match std::fs::read(dest.join(name)) {
            Ok(bytes) if bytes.len().to_string() == size && content_hash(&bytes) == hash => {}
            _ => return false,
        }
        files += 1;
    }
    files > 0
}

fn content_hash(bytes: &[u8]) -> String {
    let mut h = ContentHash::new();
    h.add(bytes);
    h.hex()
}

/// A temporary sibling of `dest` for this process: `.NAME.PID.NANOS`.
fn sibling(dest: &Path, parent: &Path) -> PathBuf {
    parent.join(format!(
        ".{}.{}.{}",
        dest.file_name().and_then(|n| n.to_str()).unwrap_or("build"),
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
    ))
}

/// Remove what builds that were killed left in `parent`: temporary directories whose process
/// is gone.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str().and_then(|n| n.strip_prefix('.')) else {
            continue;
        };
        let mut parts = name.rsplitn(3, '.');
        let (Some(nanos), Some(pid), Some(_)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if nanos.parse::<u32>().is_err() || pid == std::process::id() {
            continue;
        }
        if !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Flush `path` (a file or a directory) to the disk.
fn sync(path: &Path) -> Result<(), BuildError> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| io(path, e))
}

/// Fill a fresh directory that replaces `dest` only when complete, so that concurrent builds
/// never see half a tree, with `sealed` (its files later runs read) hashed into its seal and
/// flushed to the disk before the rename, so that a crash leaves the old state or the new one.
/// A `dest` whose seal does not hold is rebuilt.
fn publish(
    dest: &Path,
    sealed: &[&str],
    fill: impl FnOnce(&Path) -> Result<(), BuildError>,
) -> Result<(), BuildError> {
    if intact(dest) {
        return Ok(());
    }
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    sweep(parent);
    if dest.exists() && !intact(dest) {
        // Broken (or from a warpsim without seals): moved aside at once, so that no other run
        // takes it for whole, then removed.
        let aside = sibling(dest, parent);
        if std::fs::rename(dest, &aside).is_ok() {
            let _ = std::fs::remove_dir_all(&aside);
        }
    }
    let tmp = sibling(dest, parent);
    std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
    let r = fill(&tmp).and_then(|()| {
        let mut seal = String::new();
        for name in sealed {
            let path = tmp.join(name);
            let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
            seal += &format!("{} {} {name}\n", bytes.len(), content_hash(&bytes));
            sync(&path)?;
        }
        write(&tmp.join(SEAL), seal)?;
        sync(&tmp.join(SEAL))?;
        sync(&tmp)
    });
    if r.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
        return r;
    }
    if std::fs::rename(&tmp, dest).is_err() {
        // Another build got there first: theirs is the same.
        let _ = std::fs::remove_dir_all(&tmp);
        if !intact(dest) {
            return Err(BuildError::Io(format!("cannot create {}", dest.display())));
        }
    }
    let _ = sync(parent);
    Ok(())
}

fn io(p: &Path, e: std::io::Error) -> BuildError {
    BuildError::Io(format!("{}: {e}", p.display()))
}

fn write(path: &Path, text: impl AsRef<[u8]>) -> Result<(), BuildError> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| io(d, e))?;
    }
    std::fs::write(path, text).map_err(|e| io(path, e))
}

/// The runtime (headers and object) for `cxx`, built once: its directory.
fn runtime(cache: &Path, cxx: &Path, notify: &mut dyn FnMut(&str)) -> Result<PathBuf, BuildError> {
    let mut h = ContentHash::new();
    h.add(compiler_id(cxx).as_bytes());
    for (name, text) in RUNTIME_FILES {
        h.add(name.as_bytes());
        h.add(text.as_bytes());
    }
    let dir = cache.join("runtime").join(h.hex());
    if !intact(&dir) {
        notify(&format!(
            "compiling warpsim's CUDA runtime with {} (once per compiler)",
            cxx.display()
        ));
    }
    let mut sealed: Vec<&str> = RUNTIME_FILES.iter().map(|(name, _)| *name).collect();
    sealed.push("warpsim_runtime.o");
    publish(&dir, &sealed, |tmp| {
        for (name, text) in RUNTIME_FILES {
            write(&tmp.join(name), text)?;
        }
        let mut cmd = Command::new(cxx);
        cmd.args(["-std=c++17", "-O2", "-fPIC", "-c", "-I"])
            .arg(tmp.join("include"))
            .arg(tmp.join("src/warpsim_runtime.cpp"))
            .arg("-o")
            .arg(tmp.join("warpsim_runtime.o"));
        compile(cmd)
    })?;
    Ok(dir)
}

/// Run a compiler command; its messages become the error.
fn compile(mut cmd: Command) -> Result<(), BuildError> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| BuildError::Compile {
        command: shown.clone(),
        output: format!("cannot run the compiler: {e}"),
    })?;
    if out.status.success() {
        return Ok(());
    }
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    Err(BuildError::Compile {
        command: shown,
        output: explain(&text),
    })
}

/// The compiler's messages with a note where the cause is warpsim's runtime: a CUDA function or
/// header it does not provide.
fn explain(text: &str) -> String {
    let mut out = text.to_string();
    let mut notes: Vec<String> = Vec::new();
    let textures = "warpsim: textures and surfaces are not supported (README, \"What it \
                    refuses\"): read the data through a pointer to global memory instead"
        .to_string();
    for line in text.lines() {
        // `'cudaFoo' was not declared`, `use of undeclared identifier 'cudaFoo'`, `'texture'
        // does not name a type`.
        let undeclared = line.contains("not declared")
            || line.contains("undeclared identifier")
            || line.contains("does not name a type");
        if undeclared && let Some(name) = line.split(['\'', '‘', '’']).nth(1) {
            let texture = ["texture", "surface", "tex1D", "tex2D", "tex3D", "surf"]
                .iter()
                .any(|t| name.starts_with(t))
                || name.starts_with("cuda")
                    && (name.contains("Texture") || name.contains("Surface"))
                || name == "cudaBindTexture"
                || name == "cudaUnbindTexture";
            let n = if texture {
                textures.clone()
            } else if name.starts_with("curandState") {
                format!(
                    "warpsim: `{name}` is not provided: of cuRAND's device API warpsim has the \
                     XORWOW (`curandState`) and Philox (`curandStatePhilox4_32_10_t`) generators"
                )
            } else if name.starts_with("cuda") || name.starts_with("cu") && name.len() > 2 {
                format!(
                    "warpsim: `{name}` is not part of the CUDA runtime warpsim provides (the \
                     README lists what is: \"Running CUDA programs\")"
                )
            } else {
                continue;
            };
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        if line.contains("No such file or directory") && line.contains("fatal error") {
            let name = line
                .split("fatal error:")
                .nth(1)
                .and_then(|r| r.split(':').next())
                .unwrap_or("")
                .trim();
            // Only a CUDA library's header is warpsim's to provide; another is the system's.
            let cuda = [
                "cu",
                "nv",
                "thrust/",
                "cub/",
                "cooperative_groups/",
                "helper_",
                "mma.h",
                "sm_",
                "device_",
                "crt/",
            ]
            .iter()
            .any(|p| name.starts_with(p));
            if !name.is_empty() && cuda {
                notes.push(format!(
                    "warpsim: `{name}` was not found: it is not one of the CUDA headers warpsim \
                     provides (CUDA libraries such as cuBLAS, cuRAND's host API or Thrust are not \
                     supported), nor in a directory given with -I"
                ));
            } else if !name.is_empty() {
                notes.push(format!(
                    "warpsim: `{name}` was not found by the host compiler: a system or C++ \
                     library header (host code is compiled as C++17; name another compiler with \
                     --cxx, options with -Xcompiler), or one of the program's own (-I)"
                ));
            }
        }
    }
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// Build the program (or find it in the cache); `notify` hears what takes time (compiling).
pub fn build(opts: &BuildOptions, notify: &mut dyn FnMut(&str)) -> Result<Built, BuildError> {
    if opts.files.is_empty() {
        return Err(BuildError::Usage("no source files to build".into()));
    }
    let cxx = find_cxx(opts.cxx.as_deref())?;
    let cache = opts.cache.clone().unwrap_or_else(cache_dir);
    let files = mirror(opts)?;
    let sources: Vec<(PathBuf, Lang)> = opts
        .files
        .iter()
        .map(|f| Ok((absolute(f)?, lang(f).expect("checked by mirror"))))
        .collect::<Result<_, BuildError>>()?;
    let cc = if sources.iter().any(|(_, l)| *l == Lang::C) {
        Some(find_cc().ok_or_else(|| {
            BuildError::NoCompiler(
                "no C compiler found for the .c files (cc, gcc or clang on PATH, or $CC)".into(),
            )
        })?)
    } else {
        None
    };
    let rt = runtime(&cache, &cxx, notify)?;
    let dirs: Vec<PathBuf> = opts
        .include_dirs
        .iter()
        .map(|d| absolute(d))
        .collect::<Result<_, _>>()?;
    let mut h = ContentHash::new();
    h.add(rt.as_os_str().as_encoded_bytes());
    h.add(compiler_id(&cxx).as_bytes());
    if let Some(cc) = &cc {
        h.add(compiler_id(cc).as_bytes());
    }
    for (k, v) in &opts.defines {
        h.add(format!("-D{k}={v}").as_bytes());
    }
    for f in opts.host_flags.iter().chain(&opts.link_flags) {
        h.add(f.as_bytes());
    }
    for d in &dirs {
        h.add(d.as_os_str().as_encoded_bytes());
    }
    for (s, _) in &sources {
        h.add(s.as_os_str().as_encoded_bytes());
    }
    for (path, m) in &files {
        h.add(path.as_os_str().as_encoded_bytes());
        h.add(&m.text);
    }
    let dir = cache.join("programs").join(h.hex());
    let exe = dir.join("program");
    // The device pass reads the files as the user named them (its messages name them so).
    let cu: Vec<PathBuf> = opts
        .files
        .iter()
        .filter(|f| lang(f) == Some(Lang::Cuda))
        .cloned()
        .collect();
    let name = opts.files[0].with_extension("");
    if intact(&dir) {
        return Ok(Built {
            exe,
            name,
            cu,
            cached: true,
        });
    }
    notify(&format!(
        "compiling the host code with {} (cached for the next run)",
        cxx.display()
    ));
    publish(&dir, &["program"], |tmp| {
        let root = tmp.join("tree");
        for m in files.values() {
            write(&mirrored(&root, &m.original), &m.text)?;
        }
        // The include path: for each directory, its mirror first.
        let mut include = Vec::new();
        for d in &dirs {
            include.push(format!("-I{}", mirrored(&root, d).display()));
            include.push(format!("-I{}", d.display()));
        }
        include.push(format!("-isystem{}", rt.join("include").display()));
        let defines: Vec<String> = opts
            .defines
            .iter()
            .map(|(k, v)| format!("-D{k}={v}"))
            .collect();
        let mut objects = Vec::new();
        let mut children = Vec::new();
        let mut unit = 0;
        for (k, (src, l)) in sources.iter().enumerate() {
            let obj = tmp.join(format!("{k}.o"));
            let mut cmd = Command::new(if *l == Lang::C {
                cc.as_ref().expect("found for .c files")
            } else {
                &cxx
            });
            cmd.arg("-c").arg("-O2");
            if *l != Lang::C {
                cmd.arg("-std=c++17");
            }
            if *l == Lang::Cuda {
                cmd.args([
                    "-D__CUDACC__",
                    "-D__NVCC__",
                    "-D__CUDACC_VER_MAJOR__=12",
                    "-D__CUDACC_VER_MINOR__=4",
                    "-D__CUDACC_VER_BUILD__=0",
                    &format!("-D__WARPSIM_UNIT={unit}"),
                    "-include",
                    "cuda_runtime.h",
                    "-x",
                    "c++",
                ]);
                unit += 1;
            }
            // Every source compiles from its mirror, so that a header it includes from beside
            // itself is the mirror's too: a header reached from two directories must be read as
            // one file (`#pragma once` tells files apart by path). The original directory
            // comes after the mirror's, for headers not mirrored.
            if let Some(d) = src.parent() {
                cmd.arg(format!("-iquote{}", mirrored(&root, d).display()));
                cmd.arg(format!("-iquote{}", d.display()));
            }
            cmd.args(&include).args(&defines).args(&opts.host_flags);
            cmd.arg(mirrored(&root, src));
            cmd.arg("-o").arg(&obj);
            objects.push(obj);
            children.push(cmd);
        }
        // Compile two at a time (as many as the cores this project expects), in order.
        let threads = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .max(1);
        let results: Vec<Result<(), BuildError>> = std::thread::scope(|s| {
            let mut pending = Vec::new();
            let mut results = Vec::new();
            for cmd in children {
                if pending.len() >= threads {
                    let h: std::thread::ScopedJoinHandle<'_, Result<(), BuildError>> =
                        pending.remove(0);
                    results.push(
                        h.join().unwrap_or_else(|_| {
                            Err(BuildError::Io("a compile thread failed".into()))
                        }),
                    );
                }
                pending.push(s.spawn(move || compile(cmd)));
            }
            for h in pending {
                results.push(
                    h.join()
                        .unwrap_or_else(|_| Err(BuildError::Io("a compile thread failed".into()))),
                );
            }
            results
        });
        for r in results {
            r?;
        }
        let mut link = Command::new(&cxx);
        link.args(&objects)
            .arg(rt.join("warpsim_runtime.o"))
            .arg("-o")
            .arg(tmp.join("program"))
            .args(&opts.host_flags)
            .args(&opts.link_flags)
            .args(["-lm", "-lpthread"]);
        compile(link)
    })?;
    Ok(Built {
        exe,
        name,
        cu,
        cached: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runtime_file_is_embedded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
        let mut on_disk = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    on_disk.push(p.strip_prefix(&root).unwrap().display().to_string());
                }
            }
        }
        on_disk.sort();
        let embedded: Vec<String> = RUNTIME_FILES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn includes_in_every_branch() {
        let t = "#include \"a.h\"\n#if X\n  #  include <b.h>\n#else\n#include_next \"c.h\" // x\n#endif\nint x; // #include \"no.h\"\n";
        assert_eq!(
            includes(t),
            vec![
                ("a.h".to_string(), true),
                ("b.h".to_string(), false),
                ("c.h".to_string(), true)
            ]
        );
    }

    #[test]
    fn compiler_messages_get_notes() {
        let e =
            explain("x.cu:3:5: error: 'cudaGraphAddKernelNode' was not declared in this scope\n");
        assert!(
            e.contains("`cudaGraphAddKernelNode` is not part of the CUDA runtime warpsim provides")
        );
        let e = explain("x.cu:1:10: fatal error: cublas_v2.h: No such file or directory\n");
        assert!(e.contains("`cublas_v2.h` was not found: it is not one of the CUDA headers"));
        let e = explain("x.cu:1:10: fatal error: format: No such file or directory\n");
        assert!(
            e.contains("`format` was not found by the host compiler"),
            "{e}"
        );
        let e = explain("x.cu:3:1: error: 'curandStateMRG32k3a' does not name a type\n");
        assert!(e.contains("XORWOW (`curandState`) and Philox"), "{e}");
        // Texture code fails on several names: one note says why.
        let e = explain(
            "t.cu:2:1: error: 'texture' does not name a type\n\
             t.cu:4:9: error: 'cudaBindTexture' was not declared in this scope\n\
             t.cu:5:9: error: 'cudaCreateTextureObject' was not declared in this scope\n",
        );
        assert_eq!(
            e.matches("textures and surfaces are not supported").count(),
            1,
            "{e}"
        );
        assert!(!e.contains("is not part of the CUDA runtime"), "{e}");
    }
}
