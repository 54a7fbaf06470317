//! The messages between a host program and warpsim: protocol version 5.
//!
//! `runtime/src/protocol.h` is the program's side and describes the framing; the opcodes here
//! are the same numbers (a test reads the header and compares). Every message is a frame: a
//! `u32` length, then the body, little-endian. A request is an opcode and its fields; a reply is
//! a status (a `cudaError_t`) and its fields.

use std::io::{self, Read, Write};

/// The first word of `HELLO`.
pub const MAGIC: u32 = 0x5452_5357;
/// The protocol version this warpsim speaks.
pub const VERSION: u32 = 5;
/// The largest frame either side may send (a launch's arguments are the largest request).
pub const MAX_FRAME: u32 = 1 << 26;

/// A request's opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Op {
    /// `u32 magic, u32 version, u64 probe address, u64 probe value` → `u32 version, u64 staging
    /// bytes, u32 direct` (1: warpsim read the probe out of the program's memory, so copies go
    /// straight between the program's memory and warpsim's).
    Hello = 1,
    /// → `str device name, u32 n, n × (str property, i64 value)`.
    Props = 2,
    /// `u64 bytes` → `u64 address`.
    Malloc = 3,
    /// `u64 host address, u64 bytes` → (device memory mirrored at that address).
    Managed = 4,
    /// `u64 address`.
    Free = 5,
    /// `u64 address, u32 byte value, u64 bytes`.
    Memset = 6,
    /// `u64 dst, u64 src, u64 bytes` (device to device).
    Copy = 7,
    /// `u64 dst, u64 bytes, u64 host address`: direct, the reply comes when the copy is done;
    /// staged, chunks from the staging file follow the reply.
    Write = 8,
    /// `u64 src, u64 bytes, u64 host address`: as `Write`, the other way.
    Read = 9,
    /// `u64 bytes`: a chunk of a `Write` is in its staging half.
    Chunk = 10,
    /// The program has copied a chunk of a `Read` out.
    Ack = 11,
    /// `str name, u32 unit` → parameter sizes and attributes.
    Kernel = 12,
    /// `str name, u32 unit, u32×3 grid, u32×3 block, u64 shared, u64 stream, u32 cooperative,
    /// u32 n, n × blob`.
    Launch = 13,
    /// `str name, u32 unit, u32 block threads, u64 dynamic shared` → `u32 blocks per SM`.
    Occupancy = 14,
    /// `str name, u32 unit` → `u64 address, u64 bytes`.
    Symbol = 15,
    /// → `str printf output` (a synchronisation).
    Sync = 16,
    /// → `u64 nanoseconds of device work`.
    Clock = 17,
    /// Every allocation freed, the sticky error cleared.
    Reset = 18,
    /// → `u64 free, u64 total`.
    MemInfo = 19,
    /// `u32 exit code`: the program is leaving.
    Bye = 20,
    /// `u64 address, u32 channel kind, 4 × u32 channel bits, u64 × 3 extent, u64 pitch, u64
    /// slice, u32 × 3 address modes, u32 filter, u32 read mode, u32 normalized, u32 linear` (the
    /// numbers of CUDA's enums) → `u64 texture object`.
    Texture = 21,
    /// `u64 texture object`: destroyed.
    TextureFree = 22,
}

impl Op {
    /// Every opcode, for the check against `protocol.h`.
    pub const ALL: [Op; 22] = [
        Op::Hello,
        Op::Props,
        Op::Malloc,
        Op::Managed,
        Op::Free,
        Op::Memset,
        Op::Copy,
        Op::Write,
        Op::Read,
        Op::Chunk,
        Op::Ack,
        Op::Kernel,
        Op::Launch,
        Op::Occupancy,
        Op::Symbol,
        Op::Sync,
        Op::Clock,
        Op::Reset,
        Op::MemInfo,
        Op::Bye,
        Op::Texture,
        Op::TextureFree,
    ];

    /// The opcode of a number.
    pub fn from_u32(v: u32) -> Option<Op> {
        Op::ALL.iter().copied().find(|op| *op as u32 == v)
    }

    /// The name `protocol.h` gives it (`WS_HELLO`).
    pub fn c_name(self) -> String {
        let name = format!("{self:?}");
        let mut out = String::from("WS_");
        for (i, c) in name.chars().enumerate() {
            if c.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_uppercase());
        }
        out
    }
}

/// Why a message could not be read.
#[derive(Debug)]
pub enum WireError {
    /// The channel was closed (the program exited, or closed it).
    Closed,
    /// Reading or writing failed.
    Io(io::Error),
    /// The message does not follow the protocol.
    Malformed(String),
}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        // The program (or warpsim, when the program exits) shut the channel.
        if matches!(
            e.kind(),
            io::ErrorKind::UnexpectedEof
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::ConnectionReset
        ) {
            WireError::Closed
        } else {
            WireError::Io(e)
        }
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Closed => f.write_str("the program closed its channel"),
            WireError::Io(e) => write!(f, "the channel failed: {e}"),
            WireError::Malformed(m) => write!(f, "a malformed message from the program: {m}"),
        }
    }
}

/// One frame's body, read field by field.
#[derive(Debug)]
pub struct Body {
    bytes: Vec<u8>,
    at: usize,
}

impl Body {
    /// A body to read from the start.
    pub fn new(bytes: Vec<u8>) -> Body {
        Body { bytes, at: 0 }
    }

    fn take(&mut self, n: usize) -> Result<&[u8], WireError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| {
                WireError::Malformed(format!(
                    "a field of {n} bytes at byte {} of a {}-byte message",
                    self.at,
                    self.bytes.len()
                ))
            })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    /// A length-prefixed byte string.
    pub fn blob(&mut self) -> Result<Vec<u8>, WireError> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self) -> Result<String, WireError> {
        String::from_utf8(self.blob()?)
            .map_err(|_| WireError::Malformed("a string that is not UTF-8".into()))
    }
}

/// A reply being built: the length to be filled in, the status, then the fields.
#[derive(Debug, Default)]
pub struct Frame(Vec<u8>);

impl Frame {
    /// A reply with `status` (a `cudaError_t`).
    pub fn reply(status: i32) -> Frame {
        let mut f = Frame(Vec::with_capacity(32));
        f.0.extend_from_slice(&[0; 4]);
        f.0.extend_from_slice(&status.to_le_bytes());
        f
    }

    /// Append a `u32`.
    pub fn u32(mut self, v: u32) -> Frame {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Append a `u64`.
    pub fn u64(mut self, v: u64) -> Frame {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Append an `i64`.
    pub fn i64(mut self, v: i64) -> Frame {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Append a length-prefixed string.
    pub fn str(mut self, s: &str) -> Frame {
        self.0.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
        self
    }

    /// Send the frame (one write).
    pub fn send(mut self, w: &mut impl Write) -> Result<(), WireError> {
        let len = (self.0.len() - 4) as u32;
        self.0[..4].copy_from_slice(&len.to_le_bytes());
        w.write_all(&self.0)?;
        Ok(())
    }
}

/// Read one frame's body.
pub fn recv(r: &mut impl Read) -> Result<Body, WireError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(WireError::Malformed(format!(
            "a frame of {len} bytes (at most {MAX_FRAME})"
        )));
    }
    let mut bytes = vec![0u8; len as usize];
    r.read_exact(&mut bytes)?;
    Ok(Body::new(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_match_the_runtime_header() {
        let header = include_str!("../../../runtime/src/protocol.h");
        for op in Op::ALL {
            let name = op.c_name();
            let line = header
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{name} =")))
                .unwrap_or_else(|| panic!("{name} is not in protocol.h"));
            let value: u32 = line
                .split('=')
                .nth(1)
                .map(|v| {
                    v.trim()
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                })
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no number in `{line}`"));
            assert_eq!(value, op as u32, "{name}");
        }
        assert!(header.contains(&format!("WARPSIM_PROTOCOL_VERSION {VERSION}u")));
        assert!(header.contains(&format!("WARPSIM_PROTOCOL_MAGIC {MAGIC:#x}u")));
    }

    #[test]
    fn a_short_body_is_malformed_not_a_panic() {
        let mut b = Body::new(vec![1, 2, 3]);
        assert!(matches!(b.u32(), Err(WireError::Malformed(_))));
        let mut b = Body::new(vec![255, 255, 255, 255]);
        assert!(matches!(b.blob(), Err(WireError::Malformed(_))));
        let mut frame: &[u8] = &[0xff, 0xff, 0xff, 0xff];
        assert!(matches!(recv(&mut frame), Err(WireError::Malformed(_))));
        let mut empty: &[u8] = &[];
        assert!(matches!(recv(&mut empty), Err(WireError::Closed)));
    }
}
