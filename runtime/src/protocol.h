/* The messages between a host program and warpsim (protocol version 5).
 *
 * src/cuda/host/protocol.rs is the other side; a test checks that both list the same numbers.
 *
 * Transport: a stream socket pair created by warpsim; the program inherits its end as the
 * descriptor named by WARPSIM_FD, and a shared memory file for bulk copies ("staging") as
 * WARPSIM_STAGING_FD, WARPSIM_STAGING_BYTES long, which both sides use as two halves. Both are
 * high descriptors (just under the soft limit on open files, at most 1023), out of the way of
 * the program's own; WARPSIM_PID is warpsim's process. One process of the program talks to
 * warpsim: the first that takes a write lock on byte 0 of the staging file (fcntl F_SETLK).
 *
 * Every message is a frame: u32 length of what follows, then the body, little-endian. A request
 * body is u32 opcode, then its fields; a reply body is i32 status (a cudaError_t), then its
 * fields. Strings are u32 length + bytes; byte blobs likewise. The program sends HELLO first and
 * nothing else until warpsim has replied. HELLO carries the address of 8 bytes in the program's
 * memory, their value and the process they are in (the program, or a process it forked): if
 * warpsim can read them (process_vm_readv), its reply says "direct"
 * and every bulk copy moves straight between the program's memory and warpsim's, one reply per
 * request. A second HELLO (another process, once the first has gone) is refused with
 * cudaErrorDevicesUnavailable. Each request gets exactly one reply, except the bulk copies when
 * not direct:
 *
 *   WRITE (host to device): reply (status) to the request; then for each chunk the program fills
 *     half k % 2 of the staging file and sends a CHUNK frame (u32 opcode, u64 bytes), which
 *     warpsim answers with an ACK reply once it has taken the chunk. The program waits for the
 *     ACK of chunk k - 2 before it refills that half.
 *   READ (device to host): reply (status) to the request; then for each chunk warpsim fills half
 *     k % 2 and sends a READY reply (u64 bytes), which the program answers with an ACK frame
 *     (u32 opcode) once it has copied the chunk out.
 */
#ifndef WARPSIM_PROTOCOL_H
#define WARPSIM_PROTOCOL_H

#define WARPSIM_PROTOCOL_MAGIC 0x54525357u /* "WSRT" */
#define WARPSIM_PROTOCOL_VERSION 5u

enum warpsim_op {
    WS_HELLO = 1,       /* u32 magic, u32 version, u64 probe address, u64 probe value,
                           u32 pid -> u32 version, u64 staging bytes, u32 direct */
    WS_PROPS = 2,       /* -> str device name, u32 n, n x (str property, i64 value) */
    WS_MALLOC = 3,      /* u64 bytes -> u64 address */
    WS_MANAGED = 4,     /* u64 host address, u64 bytes -> (device memory at that address) */
    WS_FREE = 5,        /* u64 address -> */
    WS_MEMSET = 6,      /* u64 address, u32 byte value, u64 bytes -> */
    WS_COPY = 7,        /* u64 dst, u64 src, u64 bytes (device to device) -> */
    WS_WRITE = 8,       /* u64 dst, u64 bytes, u64 host address -> (direct: done; else chunks) */
    WS_READ = 9,        /* u64 src, u64 bytes, u64 host address -> (direct: done; else chunks) */
    WS_CHUNK = 10,      /* u64 bytes (in the staging half) */
    WS_ACK = 11,        /* (the program has copied a READY chunk out) */
    WS_KERNEL = 12,     /* str name, u32 unit -> u32 n, n x u32 parameter size, then
                           i64 x 7 attributes: static shared bytes, const bytes, local bytes,
                           max threads per block, registers, ptx version, binary version */
    WS_LAUNCH = 13,     /* str name, u32 unit, u32 x 3 grid, u32 x 3 block, u64 shared bytes,
                           u64 stream, u32 cooperative, u32 n, n x blob argument -> */
    WS_OCCUPANCY = 14,  /* str name, u32 unit, u32 block threads, u64 dynamic shared bytes
                           -> u32 blocks per SM */
    WS_SYMBOL = 15,     /* str name, u32 unit -> u64 address, u64 bytes */
    WS_SYNC = 16,       /* -> str printf output since the last SYNC */
    WS_CLOCK = 17,      /* -> u64 nanoseconds of device work so far (for events) */
    WS_RESET = 18,      /* -> (every allocation freed, the sticky error cleared) */
    WS_MEM_INFO = 19,   /* -> u64 free, u64 total */
    WS_BYE = 20,        /* u32 exit code -> */
    WS_TEXTURE = 21,    /* u64 address, u32 channel kind, u32 x 4 channel bits, u64 x 3 extent,
                           u64 pitch, u64 slice, u32 x 3 address modes, u32 filter, u32 read
                           mode, u32 normalized, u32 linear -> u64 texture object */
    WS_TEXTURE_FREE = 22 /* u64 texture object -> */
};

#endif
