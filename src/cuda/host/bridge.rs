//! The bridge: the host program runs as a child process and sends its runtime calls to warpsim
//! over a socket pair it inherits. Bulk copies move straight between the program's memory and
//! warpsim's where the kernel allows it (`process_vm_readv`/`writev` on Linux, on the child
//! warpsim started: one copy per byte), else through a shared memory file (two copies).
//! `WARPSIM_COPIES=staged` chooses the shared memory file.
//!
//! Nothing here trusts the program: every message is checked (an unknown opcode, a field past
//! the frame's end, a chunk larger than its staging half are protocol errors that stop the
//! program, never a panic).
//!
//! The run lasts as long as the program: serving ends when the program exits (a thread waits
//! for it and shuts the channel), even while processes it started still hold the channel, and
//! the program ends with warpsim (its runtime asks for `SIGKILL` when warpsim dies, and
//! [`forward_signals`] passes on the signals that stop warpsim). The channel and staging file
//! sit on high descriptors (see [`descriptors`]), out of the way of the program's own.

use rayon::prelude::*;
use std::fs::File;
use std::io::{BufReader, IoSlice, IoSliceMut, Read};
use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use command_fds::{CommandFdExt, FdMapping};

use super::protocol::{self, Body, Frame, Op, WireError};
use super::runtime::{self, Event, Runtime, status};
use crate::Dim3;

/// A copy's chunk moves in pieces of this size, in parallel on the CPU threads.
const PIECE: usize = 1 << 20;

/// Move a chunk piece by piece, in parallel: `f` gets each piece of `buf` and its offset in
/// the chunk.
fn in_pieces(
    buf: &mut [u8],
    f: impl Fn(&mut [u8], usize) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    buf.par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| f(piece, i * PIECE))
}

/// A direct copy of `bytes` between the program's memory at `host` and the device bytes at
/// `off`, through `buf` in parallel pieces: `step` moves each piece, given its device offset and
/// host address.
fn direct(
    buf: &mut [u8],
    off: usize,
    host: u64,
    bytes: u64,
    step: impl Fn(&mut [u8], usize, u64) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    if host.checked_add(bytes).is_none() {
        return Err(std::io::Error::other("it wraps around the address space"));
    }
    let mut done = 0u64;
    while done < bytes {
        let len = (bytes - done).min(buf.len() as u64) as usize;
        let (at, from) = (off + done as usize, host + done);
        in_pieces(&mut buf[..len], |piece, o| {
            step(piece, at + o, from + o as u64)
        })?;
        done += len as u64;
    }
    Ok(())
}

/// Bytes of the staging file; each of its two halves carries one chunk of a copy.
pub const STAGING_BYTES: u64 = 16 << 20;

/// The program's memory, which warpsim reads and writes in place: every access checked by the
/// kernel, so an address that is not the program's readable (or writable) memory is an error.
#[cfg(target_os = "linux")]
struct Peer(nix::unistd::Pid);

/// Without `process_vm_readv` there is no peer: copies are staged.
#[cfg(not(target_os = "linux"))]
enum Peer {}

#[cfg(target_os = "linux")]
impl Peer {
    /// The program `pid`, if its `value` at `at` can be read back.
    fn probe(pid: u32, at: u64, value: u64) -> Option<Peer> {
        let peer = Peer(nix::unistd::Pid::from_raw(i32::try_from(pid).ok()?));
        let mut got = [0u8; 8];
        peer.pull(at, &mut got).ok()?;
        (u64::from_le_bytes(got) == value).then_some(peer)
    }

    fn remote(at: u64, len: usize) -> [nix::sys::uio::RemoteIoVec; 1] {
        [nix::sys::uio::RemoteIoVec {
            base: at as usize,
            len,
        }]
    }

    /// Fill `buf` from the program's bytes at `at`.
    fn pull(&self, at: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let want = buf.len();
        let remote = Self::remote(at, want);
        let n = nix::sys::uio::process_vm_readv(self.0, &mut [IoSliceMut::new(buf)], &remote)?;
        Self::whole(n, want)
    }

    /// Write `buf` to the program's bytes at `at`.
    fn push(&self, at: u64, buf: &[u8]) -> std::io::Result<()> {
        let remote = Self::remote(at, buf.len());
        let n = nix::sys::uio::process_vm_writev(self.0, &[IoSlice::new(buf)], &remote)?;
        Self::whole(n, buf.len())
    }

    /// A partial transfer stopped at memory the program does not have.
    fn whole(n: usize, want: usize) -> std::io::Result<()> {
        if n == want {
            Ok(())
        } else {
            Err(std::io::Error::from_raw_os_error(nix::libc::EFAULT))
        }
    }
}

#[cfg(not(target_os = "linux"))]
impl Peer {
    fn probe(_pid: u32, _at: u64, _value: u64) -> Option<Peer> {
        None
    }

    fn pull(&self, _at: u64, _buf: &mut [u8]) -> std::io::Result<()> {
        match *self {}
    }

    fn push(&self, _at: u64, _buf: &[u8]) -> std::io::Result<()> {
        match *self {}
    }
}

/// The descriptor numbers the program finds its channel and staging file at: the top two below
/// the soft limit on open files, or 1022 and 1023 where the limit is higher. A program's own
/// files are numbered from 3 up, so they do not meet these, and a descriptor the program
/// inherits (a harness's `3>log`) stays its own.
pub fn descriptors() -> (i32, i32) {
    #[cfg(target_os = "linux")]
    let soft = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
        .map_or(1024, |(soft, _)| soft);
    #[cfg(not(target_os = "linux"))]
    let soft = 1024u64;
    let top = soft.clamp(16, 1024) as i32;
    (top - 2, top - 1)
}

/// The programs running now, to which [`forward_signals`] passes the signals warpsim gets.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Pass `SIGTERM`, `SIGINT` and `SIGHUP` on to the programs being run, so that stopping warpsim
/// stops its program too and warpsim reports how it ended; while none runs, such a signal ends
/// the process as it would have. Call it first in `main`, before any thread starts: it blocks
/// these signals in the calling thread, whose mask later threads inherit (programs start with
/// none blocked), and starts the thread that waits for them.
#[cfg(target_os = "linux")]
pub fn forward_signals() -> std::io::Result<()> {
    use nix::sys::signal::{SigSet, Signal, kill, raise};
    let mut set = SigSet::empty();
    for s in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        set.add(s);
    }
    set.thread_block()?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            loop {
                let Ok(sig) = set.wait() else { continue };
                let running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
                for &pid in running.iter() {
                    let _ = kill(nix::unistd::Pid::from_raw(pid as i32), sig);
                }
                if running.is_empty() {
                    drop(running);
                    let mut one = SigSet::empty();
                    one.add(sig);
                    let _ = one.thread_unblock();
                    let _ = raise(sig);
                }
            }
        })?;
    Ok(())
}

/// Without Linux's signal masks, warpsim's signals stop it alone.
#[cfg(not(target_os = "linux"))]
pub fn forward_signals() -> std::io::Result<()> {
    Ok(())
}

/// Whether process `pid` is `root` or one of its descendants (by `/proc`'s parent links): only
/// those may ask warpsim to reach into their memory.
fn descends(pid: u32, root: u32) -> bool {
    let mut at = pid;
    for _ in 0..64 {
        if at == root {
            return true;
        }
        let Ok(status) = std::fs::read_to_string(format!("/proc/{at}/status")) else {
            return false;
        };
        match status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|p| p.trim().parse::<u32>().ok())
        {
            Some(p) if p > 1 => at = p,
            _ => return false,
        }
    }
    false
}

/// How the program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It returned from `main` or called `exit` with this status.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
}

/// How a program's bulk copies moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copies {
    /// Straight between its memory and warpsim's.
    Direct,
    /// Through the staging file (`WARPSIM_COPIES=staged`, or the system does not let warpsim
    /// reach the program's memory).
    Staged,
}

impl Copies {
    /// `"direct"` or `"staged"`.
    pub fn name(self) -> &'static str {
        match self {
            Copies::Direct => "direct",
            Copies::Staged => "staged",
        }
    }
}

/// Why running the program failed (as opposed to the program failing).
#[derive(Debug)]
pub enum BridgeError {
    /// The program could not be started.
    Spawn(String),
    /// The program broke the protocol; it was stopped.
    Protocol(String),
}

impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BridgeError::Spawn(m) => write!(f, "cannot start the program: {m}"),
            BridgeError::Protocol(m) => write!(f, "the program's runtime broke the protocol: {m}"),
        }
    }
}

/// A shared memory file, unlinked at once: only the program and warpsim hold it.
fn staging_file() -> std::io::Result<File> {
    let dir = Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    for k in 0..100u32 {
        let path = dir.join(format!("warpsim-staging-{}-{k}", std::process::id()));
        match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                let _ = std::fs::remove_file(&path);
                f.set_len(STAGING_BYTES)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for the staging file"))
}

/// Run `exe`, named `name` (its `argv[0]`), with `args`, serving its runtime calls with `rt`
/// until it exits; how it exited and how its copies moved (`None`: it made no CUDA call).
pub fn run(
    exe: &Path,
    name: &Path,
    args: &[String],
    rt: &mut Runtime<'_>,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<(Exit, Option<Copies>), BridgeError> {
    let spawn = |e: std::io::Error| BridgeError::Spawn(e.to_string());
    let (ours, theirs) = UnixStream::pair().map_err(spawn)?;
    let staging = staging_file().map_err(spawn)?;
    let (channel_fd, staging_fd) = descriptors();
    let mut cmd = Command::new(exe);
    cmd.arg0(name)
        .args(args)
        .env("WARPSIM_FD", channel_fd.to_string())
        .env("WARPSIM_STAGING_FD", staging_fd.to_string())
        .env("WARPSIM_STAGING_BYTES", STAGING_BYTES.to_string())
        .env("WARPSIM_PID", std::process::id().to_string());
    cmd.fd_mappings(vec![
        FdMapping {
            parent_fd: theirs.into(),
            child_fd: channel_fd,
        },
        FdMapping {
            parent_fd: staging.try_clone().map_err(spawn)?.into(),
            child_fd: staging_fd,
        },
    ])
    .map_err(|e| BridgeError::Spawn(e.to_string()))?;
    let mut child = {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        let child = cmd.spawn().map_err(spawn)?;
        running.push(child.id());
        child
    };
    // The command holds the program's ends: close them here.
    drop(cmd);
    let waiter = exit_watch(child.id(), ours.try_clone().map_err(spawn)?);
    let staged = std::env::var_os("WARPSIM_COPIES").is_some_and(|v| v == "staged");
    let mut s = Session {
        reader: BufReader::new(Patient(ours.try_clone().map_err(spawn)?)),
        writer: ours,
        staging,
        buf: vec![0; (STAGING_BYTES / 2) as usize],
        hello: None,
        child: child.id(),
        staged,
        peer: None,
    };
    let broken = s.serve(rt, events).err();
    if broken.is_some() {
        let _ = child.kill();
    }
    // From here the program's process may be reaped and its number reused.
    RUNNING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&p| p != child.id());
    let status = child.wait().map_err(spawn)?;
    let _ = waiter.join();
    if let Some(e) = broken {
        return Err(BridgeError::Protocol(e.to_string()));
    }
    let exit = match (status.code(), status.signal()) {
        (Some(c), _) => Exit::Code(c),
        (None, Some(sig)) => Exit::Signal(sig),
        (None, None) => Exit::Code(1),
    };
    let copies = s.hello.map(|_| match s.peer {
        Some(_) => Copies::Direct,
        None => Copies::Staged,
    });
    Ok((exit, copies))
}

/// A thread that waits for the program `pid` to exit, without reaping it (its number stays its
/// own until [`run`] reaps it), then shuts `channel`: the session ends with the program even
/// while processes it started hold the channel open.
fn exit_watch(pid: u32, channel: UnixStream) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        #[cfg(target_os = "linux")]
        {
            use nix::sys::wait::{Id, WaitPidFlag, waitid};
            let id = || Id::Pid(nix::unistd::Pid::from_raw(pid as i32));
            while waitid(id(), WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT)
                == Err(nix::errno::Errno::EINTR)
            {}
        }
        // Elsewhere the channel's end of file, when the last holder leaves, ends the session.
        #[cfg(not(target_os = "linux"))]
        let _ = pid;
        #[cfg(target_os = "linux")]
        let _ = channel.shutdown(std::net::Shutdown::Both);
        #[cfg(not(target_os = "linux"))]
        drop(channel);
    })
}

/// The channel's reading end. A program's requests often follow each other within
/// microseconds (a loop of launches): reading polls for a while before it sleeps, since waking
/// a sleeping process costs more than serving a small launch.
struct Patient(UnixStream);

/// How long a read polls before it sleeps.
const POLL: Duration = Duration::from_micros(200);

impl Read for Patient {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.set_nonblocking(true)?;
        let start = Instant::now();
        let polled = loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if start.elapsed() > POLL {
                        break None;
                    }
                    std::hint::spin_loop();
                }
                r => break Some(r),
            }
        };
        // Blocking again: the writer shares the socket's flags.
        self.0.set_nonblocking(false)?;
        match polled {
            Some(r) => r,
            None => self.0.read(buf),
        }
    }
}

struct Session {
    reader: BufReader<Patient>,
    writer: UnixStream,
    staging: File,
    buf: Vec<u8>,
    /// The process that said hello: the program, or a process it forked.
    hello: Option<u32>,
    /// The program's process.
    child: u32,
    /// Whether copies must go through the staging file.
    staged: bool,
    /// The memory of the process that said hello, once the handshake showed that warpsim can
    /// reach it.
    peer: Option<Peer>,
}

/// A reply with a status and nothing else, or the status of a failed request.
fn status_of(r: Result<(), i32>) -> Frame {
    Frame::reply(r.err().unwrap_or(status::SUCCESS))
}

impl Session {
    fn send(&mut self, f: Frame) -> Result<(), WireError> {
        f.send(&mut self.writer)
    }

    /// Answer requests until the program closes the channel.
    fn serve(
        &mut self,
        rt: &mut Runtime<'_>,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), WireError> {
        loop {
            let mut body = match protocol::recv(&mut self.reader) {
                Ok(b) => b,
                Err(WireError::Closed) => return Ok(()),
                Err(e) => return Err(e),
            };
            let code = body.u32()?;
            let op = Op::from_u32(code)
                .ok_or_else(|| WireError::Malformed(format!("unknown request {code}")))?;
            if self.hello.is_none() && op != Op::Hello {
                return Err(WireError::Malformed(format!("{op:?} before the handshake")));
            }
            match self.request(op, &mut body, rt, events) {
                Ok(()) => {}
                // The program may exit right after its last request.
                Err(WireError::Closed) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }

    fn request(
        &mut self,
        op: Op,
        b: &mut Body,
        rt: &mut Runtime<'_>,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), WireError> {
        let reply = match op {
            Op::Hello => {
                let (magic, version) = (b.u32()?, b.u32()?);
                if magic != protocol::MAGIC {
                    return Err(WireError::Malformed("the handshake's magic number".into()));
                }
                if version != protocol::VERSION {
                    events(Event::Note(format!(
                        "the program was built for runtime protocol {version}, this warpsim \
                         speaks {}; rebuild it",
                        protocol::VERSION
                    )));
                    self.send(Frame::reply(status::INSUFFICIENT_DRIVER))?;
                    return Err(WireError::Malformed("a protocol version mismatch".into()));
                }
                let (probe_at, probe, pid) = (b.u64()?, b.u64()?, b.u32()?);
                if let Some(first) = self.hello {
                    // Once the process that said hello has gone, another may try (the
                    // runtime's lock keeps two from talking at once).
                    events(Event::Note(format!(
                        "process {pid} of the program asked for CUDA after process {first} \
                         had used it: warpsim serves one process of a program, so its CUDA \
                         calls return cudaErrorDevicesUnavailable; make every CUDA call in one \
                         process"
                    )));
                    return self.send(Frame::reply(status::DEVICES_UNAVAILABLE));
                }
                self.hello = Some(pid);
                let reachable = !self.staged && descends(pid, self.child);
                self.peer = reachable
                    .then(|| Peer::probe(pid, probe_at, probe))
                    .flatten();
                Frame::reply(status::SUCCESS)
                    .u32(protocol::VERSION)
                    .u64(STAGING_BYTES)
                    .u32(self.peer.is_some().into())
            }
            Op::Props => {
                let (name, props) = rt.properties();
                let mut f = Frame::reply(status::SUCCESS)
                    .str(&name)
                    .u32(props.len() as u32);
                for (k, v) in props {
                    f = f.str(k).i64(v);
                }
                f
            }
            Op::Malloc => match rt.malloc(b.u64()?, events) {
                Ok(a) => Frame::reply(status::SUCCESS).u64(a),
                Err(e) => Frame::reply(e),
            },
            Op::Managed => {
                let (address, bytes) = (b.u64()?, b.u64()?);
                status_of(rt.managed(address, bytes, events))
            }
            Op::Free => status_of(rt.free(b.u64()?, events)),
            Op::Memset => {
                let (address, value, bytes) = (b.u64()?, b.u32()?, b.u64()?);
                status_of(rt.memset(address, value as u8, bytes, events))
            }
            Op::Copy => {
                let (dst, src, bytes) = (b.u64()?, b.u64()?, b.u64()?);
                status_of(rt.copy(dst, src, bytes, events))
            }
            Op::Write => return self.write(b, rt, events),
            Op::Read => return self.read(b, rt, events),
            Op::Chunk | Op::Ack => {
                return Err(WireError::Malformed(format!("{op:?} outside a copy")));
            }
            Op::Kernel => {
                let (name, unit) = (b.str()?, b.u32()?);
                match rt.kernel_info(unit, &name, events) {
                    Ok((sizes, attrs)) => {
                        let mut f = Frame::reply(status::SUCCESS).u32(sizes.len() as u32);
                        for s in sizes {
                            f = f.u32(s);
                        }
                        for a in attrs {
                            f = f.i64(a);
                        }
                        f
                    }
                    Err(e) => Frame::reply(e),
                }
            }
            Op::Launch => {
                let (name, unit) = (b.str()?, b.u32()?);
                let grid = Dim3::new(b.u32()?, b.u32()?, b.u32()?);
                let block = Dim3::new(b.u32()?, b.u32()?, b.u32()?);
                let (smem, _stream, cooperative) = (b.u64()?, b.u64()?, b.u32()? != 0);
                let n = b.u32()?;
                let mut args = Vec::new();
                for _ in 0..n {
                    args.push(b.blob()?);
                }
                status_of(rt.launch(unit, &name, (grid, block), smem, cooperative, &args, events))
            }
            Op::Occupancy => {
                let (name, unit, threads, smem) = (b.str()?, b.u32()?, b.u32()?, b.u64()?);
                match rt.occupancy(unit, &name, threads, smem, events) {
                    Ok(n) => Frame::reply(status::SUCCESS).u32(n),
                    Err(e) => Frame::reply(e),
                }
            }
            Op::Symbol => {
                let (name, unit) = (b.str()?, b.u32()?);
                match rt.symbol(unit, &name, events) {
                    Ok((a, n)) => Frame::reply(status::SUCCESS).u64(a).u64(n),
                    Err(e) => Frame::reply(e),
                }
            }
            Op::Sync => {
                let text = rt.take_printed();
                Frame::reply(rt.sticky().unwrap_or(status::SUCCESS)).str(&text)
            }
            Op::Clock => Frame::reply(status::SUCCESS).u64(rt.clock().as_nanos() as u64),
            Op::Reset => {
                rt.reset();
                Frame::reply(status::SUCCESS)
            }
            Op::MemInfo => {
                let (free, total) = rt.mem_info();
                Frame::reply(status::SUCCESS).u64(free).u64(total)
            }
            Op::Texture => {
                let address = b.u64()?;
                let kind = b.u32()?;
                let bits = [b.u32()?, b.u32()?, b.u32()?, b.u32()?];
                let extent = [b.u64()?, b.u64()?, b.u64()?];
                let (pitch, slice) = (b.u64()?, b.u64()?);
                let modes = [b.u32()?, b.u32()?, b.u32()?];
                let (filter, read, normalized, linear) = (b.u32()?, b.u32()?, b.u32()?, b.u32()?);
                let desc = runtime::TextureRequest {
                    address,
                    kind,
                    bits,
                    extent,
                    pitch,
                    slice,
                    modes,
                    filter,
                    read,
                    normalized: normalized != 0,
                    linear: linear != 0,
                };
                match rt.create_texture(&desc, events) {
                    Ok(h) => Frame::reply(status::SUCCESS).u64(h),
                    Err(e) => Frame::reply(e),
                }
            }
            Op::TextureFree => status_of(rt.destroy_texture(b.u64()?, events)),
            Op::Bye => {
                let _code = b.u32()?;
                Frame::reply(status::SUCCESS)
            }
        };
        self.send(reply)
    }

    fn half(k: u64) -> u64 {
        (k % 2) * (STAGING_BYTES / 2)
    }

    /// A host-to-device copy: straight out of the program's memory, or chunk by chunk out of
    /// the staging halves.
    fn write(
        &mut self,
        b: &mut Body,
        rt: &mut Runtime<'_>,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), WireError> {
        const WHAT: &str = "cudaMemcpy (host to device)";
        let (dst, bytes, host) = (b.u64()?, b.u64()?, b.u64()?);
        let (g, off) = match rt.transfer(WHAT, dst, bytes, events) {
            Ok(t) => t,
            Err(e) => return self.send(Frame::reply(e)),
        };
        let start = Instant::now();
        if let Some(peer) = &self.peer {
            let result = direct(&mut self.buf, off, host, bytes, |piece, at, from| {
                peer.pull(from, piece)?;
                g.write_bytes(at, piece);
                Ok(())
            });
            rt.spent(start.elapsed(), bytes);
            let reply = Self::direct_status(WHAT, "readable", result, host, bytes, events);
            return self.send(reply);
        }
        self.send(Frame::reply(status::SUCCESS))?;
        let (mut done, mut k) = (0u64, 0u64);
        while done < bytes {
            let mut c = protocol::recv(&mut self.reader)?;
            if Op::from_u32(c.u32()?) != Some(Op::Chunk) {
                return Err(WireError::Malformed("a copy's chunk expected".into()));
            }
            let len = c.u64()?;
            if len == 0 || len > STAGING_BYTES / 2 || len > bytes - done {
                return Err(WireError::Malformed(format!("a chunk of {len} bytes")));
            }
            let (at, half, staging) = (off + done as usize, Self::half(k), &self.staging);
            in_pieces(&mut self.buf[..len as usize], |piece, o| {
                staging.read_exact_at(piece, half + o as u64)?;
                g.write_bytes(at + o, piece);
                Ok(())
            })?;
            self.send(Frame::reply(status::SUCCESS))?;
            done += len;
            k += 1;
        }
        rt.spent(start.elapsed(), bytes);
        Ok(())
    }

    /// A device-to-host copy: straight into the program's memory, or chunk by chunk into the
    /// staging halves.
    fn read(
        &mut self,
        b: &mut Body,
        rt: &mut Runtime<'_>,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), WireError> {
        const WHAT: &str = "cudaMemcpy (device to host)";
        let (src, bytes, host) = (b.u64()?, b.u64()?, b.u64()?);
        let (g, off) = match rt.transfer(WHAT, src, bytes, events) {
            Ok(t) => t,
            Err(e) => return self.send(Frame::reply(e)),
        };
        let start = Instant::now();
        if let Some(peer) = &self.peer {
            let result = direct(&mut self.buf, off, host, bytes, |piece, at, to| {
                g.read_bytes(at, piece);
                peer.push(to, piece)
            });
            rt.spent(start.elapsed(), bytes);
            let reply = Self::direct_status(WHAT, "writable", result, host, bytes, events);
            return self.send(reply);
        }
        self.send(Frame::reply(status::SUCCESS))?;
        let (mut done, mut k) = (0u64, 0u64);
        while done < bytes {
            if k >= 2 {
                self.ack()?;
            }
            let len = (bytes - done).min(STAGING_BYTES / 2);
            let (at, half, staging) = (off + done as usize, Self::half(k), &self.staging);
            in_pieces(&mut self.buf[..len as usize], |piece, o| {
                g.read_bytes(at + o, piece);
                staging.write_all_at(piece, half + o as u64)
            })?;
            self.send(Frame::reply(status::SUCCESS).u64(len))?;
            done += len;
            k += 1;
        }
        for _ in 0..k.min(2) {
            self.ack()?;
        }
        rt.spent(start.elapsed(), bytes);
        Ok(())
    }

    /// The reply to a direct copy: a host range the program does not have is its error (with
    /// CUDA its `memcpy` would crash), explained once.
    fn direct_status(
        what: &str,
        kind: &str,
        result: std::io::Result<()>,
        host: u64,
        bytes: u64,
        events: &mut dyn FnMut(Event<'_>),
    ) -> Frame {
        match result {
            Ok(()) => Frame::reply(status::SUCCESS),
            Err(e) => {
                events(Event::Note(format!(
                    "{what}: the host range {host:#x}..{:#x} is not {kind} memory of the \
                     program ({e}); the copy returns cudaErrorInvalidValue",
                    host.saturating_add(bytes),
                )));
                Frame::reply(status::INVALID_VALUE)
            }
        }
    }

    fn ack(&mut self) -> Result<(), WireError> {
        let mut a = protocol::recv(&mut self.reader)?;
        if Op::from_u32(a.u32()?) != Some(Op::Ack) {
            return Err(WireError::Malformed(
                "a copy's acknowledgement expected".into(),
            ));
        }
        Ok(())
    }
}
