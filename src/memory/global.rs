//! Global memory and the coalescing counter.
//!
//! A [`Global<T>`] is a typed view of an allocation in the device's simulated address space.
//! Allocations start at multiples of 256 bytes (as `cudaMalloc` guarantees); a view made with
//! [`Global::slice`] or [`Global::cast`] keeps the true device addresses, so an access through a
//! view at an odd offset is counted (and, if misaligned, faults) exactly as on a GPU.
//!
//! **Coalescing.** Each warp-level load or store with at least one active lane is one *request*.
//! Its *sectors* are the distinct 32-byte-aligned sectors touched by the active lanes' bytes, its
//! *lines* the distinct 128-byte-aligned lines. Efficiency is requested bytes over fetched bytes:
//! against sectors × 32 on profiles whose loads bypass a 128-byte L1 (sm_61 and later), against
//! lines × 128 for loads on profiles that cache them in L1 (Fermi's sm_20, sm_13); stores are
//! always counted in sectors. The contiguous case (`base + lane`) is computed arithmetically; any
//! other pattern sorts the (at most 32) sector numbers.

use super::{Element, Memory, Place, PlaceKind, Target, WarpAccess, sealed};
use crate::lanes::Mask;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Weak};

/// One device allocation: words behind a device address.
#[doc(hidden)]
pub struct Allocation {
    pub(crate) name: String,
    pub(crate) base: u64,
    /// The bytes allocated (the words round them up to a multiple of 4).
    len: usize,
    /// Bytes of zeroed words before the allocation's first and after its last: where a kernel
    /// that reads or writes a little outside its buffer lands when the launch tolerates it
    /// (as a GPU, whose memory is mapped in pages around every allocation, does not fault).
    pad: usize,
    /// The pad, the allocation's words, the pad: a view's byte offsets count from here.
    pub(crate) words: Box<[AtomicU32]>,
    /// For allocations made uninitialised: one bit per word (of `words`), set once written.
    written: Option<Box<[AtomicU32]>>,
    /// Constant memory (a `__constant__` variable): its loads are not global transactions.
    pub(crate) constant: bool,
}

/// The most bytes of zeroed padding on each side of an allocation: an
/// allocation is padded by its own size rounded up to 256 bytes, from 256 bytes to this.
pub const MAX_PAD: usize = 16 << 10;

impl Allocation {
    pub fn bytes(&self) -> usize {
        self.len
    }

    /// Bytes of [`Allocation::words`], the padding included.
    pub(crate) fn padded_bytes(&self) -> usize {
        self.words.len() * 4
    }

    /// The device address of byte `offset` of [`Allocation::words`] (the allocation's first
    /// byte is at offset [`Allocation::pad`]).
    pub(crate) fn address_at(&self, offset: usize) -> u64 {
        self.base
            .wrapping_add(offset as u64)
            .wrapping_sub(self.pad as u64)
    }

    /// Note that the words holding bytes `byte..byte + len` have been written.
    pub(crate) fn mark_written(&self, byte: usize, len: usize) {
        if let Some(bits) = &self.written {
            for word in byte / 4..(byte + len).div_ceil(4) {
                bits[word / 32].fetch_or(1 << (word % 32), Relaxed);
            }
        }
    }

    /// Whether the allocation was made uninitialised (check mode tracks its writes).
    pub(crate) fn tracks_init(&self) -> bool {
        self.written.is_some()
    }

    /// Whether every word holding bytes `byte..byte + len` has been written.
    pub(crate) fn is_written(&self, byte: usize, len: usize) -> bool {
        self.written.as_ref().is_none_or(|bits| {
            (byte / 4..(byte + len).div_ceil(4))
                .all(|w| bits[w / 32].load(Relaxed) & 1 << (w % 32) != 0)
        })
    }
}

/// A typed view of device (global) memory, shared by every block of a launch.
///
/// Cheap to clone (the allocation is reference-counted). Host code reads and writes it with
/// [`Global::to_vec`] and [`Global::copy_from_slice`]; kernels with [`crate::Block::load`],
/// [`crate::Block::store`] and the atomics.
///
/// ```
/// use warpsim::Device;
/// let dev = Device::default();
/// let a = dev.alloc_from("a", &[1.0f32, 2.0, 3.0, 4.0]);
/// assert_eq!(a.address() % 256, 0);
/// let tail = a.slice(1..);
/// assert_eq!(tail.address(), a.address() + 4);
/// assert_eq!(tail.to_vec(), [2.0, 3.0, 4.0]);
/// ```
pub struct Global<T: Element> {
    alloc: Arc<Allocation>,
    /// Byte offset of element 0 in the allocation's words (past its front pad).
    offset: usize,
    len: usize,
    _elem: PhantomData<fn() -> T>,
}

impl<T: Element> Clone for Global<T> {
    fn clone(&self) -> Self {
        Global {
            alloc: Arc::clone(&self.alloc),
            offset: self.offset,
            len: self.len,
            _elem: PhantomData,
        }
    }
}

impl<T: Element> std::fmt::Debug for Global<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Global")
            .field("name", &self.alloc.name)
            .field("address", &format_args!("{:#x}", self.address()))
            .field("len", &self.len)
            .finish()
    }
}

/// `n` zeroed words from the allocator's zeroed memory: the pages of a large allocation
/// appear as they are first touched, as `calloc`'s do, rather than all at once.
fn zeroed(name: &str, n: usize) -> Box<[AtomicU32]> {
    bytemuck::try_zeroed_slice_box(n)
        .unwrap_or_else(|()| panic!("buffer `{name}`: {n} words of 4 bytes could not be allocated"))
}

impl<T: Element> Global<T> {
    pub(crate) fn new(
        name: &str,
        base: u64,
        len: usize,
        track_init: bool,
        constant: bool,
    ) -> Global<T> {
        let bytes = len.checked_mul(T::SIZE as usize).unwrap_or_else(|| {
            panic!(
                "buffer `{name}`: {len} elements of {} bytes overflow the address space",
                T::SIZE
            )
        });
        let pad = bytes.next_multiple_of(256).clamp(256, MAX_PAD);
        let words = bytes.div_ceil(4) + 2 * pad / 4;
        Global {
            alloc: Arc::new(Allocation {
                name: name.to_string(),
                base,
                len: bytes,
                pad,
                words: zeroed(name, words),
                written: track_init.then(|| zeroed(name, words.div_ceil(32))),
                constant,
            }),
            offset: pad,
            len,
            _elem: PhantomData,
        }
    }

    /// The whole allocation as bytes, and the byte offset of this view in it: a pointer into the
    /// middle of an allocation may be indexed backwards, as far as the allocation's start.
    pub(crate) fn whole(&self) -> (Global<u8>, usize) {
        let whole = Global {
            alloc: Arc::clone(&self.alloc),
            offset: self.alloc.pad,
            len: self.alloc.len,
            _elem: PhantomData,
        };
        (whole, self.offset - self.alloc.pad)
    }

    /// The view as compiled code addresses it: its first byte, its length in bytes (the
    /// elements the interpreter's `place_sized` sees) and its device address.
    pub(crate) fn raw(&self) -> crate::cuda::jit::Buf {
        crate::cuda::jit::Buf {
            ptr: self.alloc.words.as_ptr() as usize + self.offset,
            len: (self.len * T::SIZE as usize) as u64,
            address: self.address(),
            slack: 0,
        }
    }

    /// [`Global::raw`], with the allocation's padding as slack where `slack` (a launch that
    /// tolerates accesses a little outside a buffer).
    pub(crate) fn raw_slack(&self, slack: bool) -> crate::cuda::jit::Buf {
        crate::cuda::jit::Buf {
            slack: if slack { self.alloc.pad as u64 } else { 0 },
            ..self.raw()
        }
    }

    pub(crate) fn allocation(&self) -> Weak<Allocation> {
        Arc::downgrade(&self.alloc)
    }

    /// Number of elements in the view.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The allocation's name (used in error messages).
    pub fn name(&self) -> &str {
        &self.alloc.name
    }

    /// Whether the view is constant memory (its loads are not global transactions).
    pub(crate) fn is_constant(&self) -> bool {
        self.alloc.constant
    }

    /// Device address of element 0.
    pub fn address(&self) -> u64 {
        self.alloc.address_at(self.offset)
    }

    /// Host read of the element at byte `byte` of the allocation; a view made misaligned by
    /// [`Global::cast`] is read byte by byte, as `cudaMemcpy` would.
    fn host_read(&self, byte: usize) -> T {
        if byte.is_multiple_of(T::SIZE as usize) {
            return super::read_elem::<T, _>(&super::Atomics(&self.alloc.words), byte);
        }
        let mut w = [0u32; 4];
        for k in 0..T::SIZE as usize {
            let b = byte + k;
            let v = (self.alloc.words[b / 4].load(Relaxed) >> (b % 4 * 8)) & 0xff;
            w[k / 4] |= v << (k % 4 * 8);
        }
        T::from_words(w)
    }

    /// Host write of `v` at byte `byte`, byte by byte where misaligned.
    fn host_write(&self, byte: usize, v: T) {
        if byte.is_multiple_of(T::SIZE as usize) {
            return super::write_elem(&mut super::Atomics(&self.alloc.words), byte, v);
        }
        let w = v.to_words();
        for k in 0..T::SIZE as usize {
            let (b, val) = (byte + k, (w[k / 4] >> (k % 4 * 8)) & 0xff);
            let shift = b % 4 * 8;
            let _ = self.alloc.words[b / 4].fetch_update(Relaxed, Relaxed, |old| {
                Some((old & !(0xff << shift)) | val << shift)
            });
        }
    }

    /// Copy the view to host memory.
    pub fn to_vec(&self) -> Vec<T> {
        (0..self.len)
            .map(|i| self.host_read(self.offset + i * T::SIZE as usize))
            .collect()
    }

    /// Copy `src` into the view.
    ///
    /// # Panics
    /// If `src.len() != self.len()` (like [`slice::copy_from_slice`]).
    pub fn copy_from_slice(&self, src: &[T]) {
        assert_eq!(
            src.len(),
            self.len,
            "Global::copy_from_slice: source has {} elements, buffer `{}` has {}",
            src.len(),
            self.alloc.name,
            self.len
        );
        if T::SIZE < 4 {
            // Bytes and halves a word at a time: one read-modify-write per element took 0.3 s
            // for 64 MiB of `unsigned char`.
            const CHUNK: usize = 1 << 14;
            let size = T::SIZE as usize;
            let mut bytes = Vec::with_capacity(CHUNK * size);
            for (k, part) in src.chunks(CHUNK).enumerate() {
                bytes.clear();
                if size == 1 {
                    bytes.extend(part.iter().map(|v| v.to_words()[0] as u8));
                } else {
                    bytes.extend(
                        part.iter()
                            .flat_map(|v| (v.to_words()[0] as u16).to_le_bytes()),
                    );
                }
                self.cast::<u8>().write_bytes(k * CHUNK * size, &bytes);
            }
            return;
        }
        for (i, &v) in src.iter().enumerate() {
            self.host_write(self.offset + i * T::SIZE as usize, v);
        }
        self.alloc
            .mark_written(self.offset, self.len * T::SIZE as usize);
    }

    /// Set every element of the view to `v`.
    pub fn fill(&self, v: T) {
        for i in 0..self.len {
            self.host_write(self.offset + i * T::SIZE as usize, v);
        }
        self.alloc
            .mark_written(self.offset, self.len * T::SIZE as usize);
    }

    /// A view of `range` (element indices), keeping true device addresses (`&a[k..]` in CUDA is
    /// `a.slice(k..)`).
    ///
    /// # Panics
    /// If the range is out of bounds, like slicing.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Global<T> {
        let start = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s + 1,
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(&e) => e + 1,
            Bound::Excluded(&e) => e,
            Bound::Unbounded => self.len,
        };
        assert!(
            start <= end && end <= self.len,
            "Global::slice: range {start}..{end} out of bounds for buffer `{}` of {} elements",
            self.alloc.name,
            self.len
        );
        Global {
            alloc: Arc::clone(&self.alloc),
            offset: self.offset + start * T::SIZE as usize,
            len: end - start,
            _elem: PhantomData,
        }
    }

    /// The same bytes viewed as elements of `U` (`reinterpret_cast<U*>` in CUDA). The view may be
    /// misaligned for `U`; accessing it then faults with [`crate::Error::Misaligned`].
    pub fn cast<U: Element>(&self) -> Global<U> {
        Global {
            alloc: Arc::clone(&self.alloc),
            offset: self.offset,
            len: self.len * T::SIZE as usize / U::SIZE as usize,
            _elem: PhantomData,
        }
    }
}

impl Global<u8> {
    /// Copy `src` into the view's bytes `at..at + src.len()` (a `cudaMemcpy` to the device).
    ///
    /// # Panics
    /// If the range is not inside the view.
    pub fn write_bytes(&self, at: usize, src: &[u8]) {
        assert!(
            at.checked_add(src.len()).is_some_and(|end| end <= self.len),
            "Global::write_bytes: {} bytes at {at} do not fit buffer `{}` of {} bytes",
            src.len(),
            self.alloc.name,
            self.len
        );
        let start = self.offset + at;
        // Whole words at once, the unaligned ends byte by byte.
        let head = (start.next_multiple_of(4) - start).min(src.len());
        for (k, &b) in src[..head].iter().enumerate() {
            self.host_write(start + k, b);
        }
        let (words, tail) = src[head..].as_chunks::<4>();
        let w0 = (start + head) / 4;
        for (w, c) in self.alloc.words[w0..w0 + words.len()].iter().zip(words) {
            w.store(u32::from_le_bytes(*c), Relaxed);
        }
        let t0 = start + head + words.len() * 4;
        for (k, &b) in tail.iter().enumerate() {
            self.host_write(t0 + k, b);
        }
        self.alloc.mark_written(start, src.len());
    }

    /// Copy the view's bytes `at..at + dst.len()` into `dst` (a `cudaMemcpy` to the host).
    ///
    /// # Panics
    /// If the range is not inside the view.
    pub fn read_bytes(&self, at: usize, dst: &mut [u8]) {
        assert!(
            at.checked_add(dst.len()).is_some_and(|end| end <= self.len),
            "Global::read_bytes: {} bytes at {at} do not fit buffer `{}` of {} bytes",
            dst.len(),
            self.alloc.name,
            self.len
        );
        let start = self.offset + at;
        let head = (start.next_multiple_of(4) - start).min(dst.len());
        for (k, b) in dst[..head].iter_mut().enumerate() {
            *b = self.host_read(start + k);
        }
        let (words, tail) = dst[head..].as_chunks_mut::<4>();
        let w0 = (start + head) / 4;
        let n = words.len();
        for (c, w) in words.iter_mut().zip(&self.alloc.words[w0..w0 + n]) {
            *c = w.load(Relaxed).to_le_bytes();
        }
        let t0 = start + head + n * 4;
        for (k, b) in tail.iter_mut().enumerate() {
            *b = self.host_read(t0 + k);
        }
    }

    /// Set the view's bytes `at..at + len` to `value` (a `cudaMemset`).
    ///
    /// # Panics
    /// If the range is not inside the view.
    pub fn fill_bytes(&self, at: usize, len: usize, value: u8) {
        const CHUNK: usize = 1 << 16;
        let block = [value; CHUNK];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(CHUNK);
            self.write_bytes(at + done, &block[..n]);
            done += n;
        }
    }
}

impl<T: Element> Global<T> {
    /// The view as a place of elements of `size` bytes (the CUDA executor reads one buffer
    /// through pointers of any type).
    pub(crate) fn place_sized(&self, size: u32) -> PlaceKind<'_> {
        let bytes = self.len * T::SIZE as usize;
        PlaceKind::Global(&self.alloc, self.offset, bytes / size as usize)
    }
}

impl<T: Element> sealed::Sealed for Global<T> {}

impl<T: Element> Memory for Global<T> {
    type Elem = T;
    #[inline]
    fn place(&self) -> Place<'_> {
        Place(PlaceKind::Global(&self.alloc, self.offset, self.len))
    }
}

/// Distinct 32-byte sectors and 128-byte lines touched by the lanes of `a`.
pub(crate) fn coalesce(t: &Target<'_>, a: &WarpAccess<'_>) -> (u64, u64) {
    let elem = u64::from(t.elem);
    if Mask(a.mask).is_contiguous()
        && let Some(first) = a.idx.contiguous(a.mask)
    {
        // The lanes form one run touching one contiguous byte range.
        let l0 = u64::from(a.mask.trailing_zeros());
        let l1 = 31 - u64::from(a.mask.leading_zeros());
        let lo = t.base + (u64::from(first) + l0) * elem;
        let hi = t.base + (u64::from(first) + l1) * elem + elem - 1;
        return ((hi >> 5) - (lo >> 5) + 1, (hi >> 7) - (lo >> 7) + 1);
    }
    // Naturally aligned elements of at most 16 bytes lie within one sector each.
    let mut sectors = [0u64; 32];
    let mut n = 0;
    for l in a.lanes() {
        sectors[n] = t.address(a.idx.lane(l)) >> 5;
        n += 1;
    }
    let s = &mut sectors[..n];
    if !a.idx.increasing(a.mask) {
        s.sort_unstable();
    }
    let (mut ns, mut nl) = (0, 0);
    for (i, &sec) in s.iter().enumerate() {
        if i == 0 || sec != s[i - 1] {
            ns += 1;
        }
        if i == 0 || sec >> 2 != s[i - 1] >> 2 {
            nl += 1;
        }
    }
    (ns, nl)
}
