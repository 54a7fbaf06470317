//! Texture fetches (`tex1Dfetch`, `tex1D`, `tex2D`, `tex3D`): what a GPU's texture unit returns
//! for a texture object's description and coordinates, defined once for every tier.
//!
//! # The model
//!
//! A texture object ([`Texture`]) describes memory the launch binds like a pointer parameter:
//! its texel format ([`Format`]), its extent and row pitch, and how it is sampled — the
//! address mode per dimension, point or linear filtering, whether coordinates are normalized
//! and whether integer texels read as numbers in [0, 1] ([`ReadMode::NormalizedFloat`]). The
//! rules are the CUDA Programming Guide's appendix "Texture Fetching":
//!
//! * **Point sampling** reads the texel `floor(x)` (coordinates scaled by the extent first when
//!   normalized). **Linear filtering** reads the two (1-D), four (2-D) or eight (3-D) texels
//!   around `x - 0.5` and blends them with weights kept, as the hardware keeps them, in 9-bit
//!   fixed point with 8 fractional bits.
//! * **Address modes** place a coordinate outside the texture: clamp to the edge texel; border
//!   (the texel reads as zero); wrap and mirror repeat it — with normalized coordinates only:
//!   unnormalized ones clamp under those two, as a GPU does.
//! * `tex1Dfetch` reads a linear texture by integer index with neither filtering nor address
//!   modes: an index outside it reads zero.
//!
//! A fetch returns four channels, each as the 32 bits of its value: a `float` (a float texel, or
//! any texel read as normalized float), or the texel's integer, sign- or zero-extended. A
//! channel the format lacks reads zero.

/// What a channel's bits are (`cudaChannelFormatKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    /// Signed integers.
    Signed,
    /// Unsigned integers.
    Unsigned,
    /// IEEE floating point (32 bits, or 16: `half`).
    Float,
}

/// How one texel is stored (`cudaChannelFormatDesc`): up to four channels of 8, 16 or 32 bits,
/// all of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Bits of each channel, `x y z w` (0: no such channel).
    pub bits: [u8; 4],
    /// What the bits are.
    pub kind: ChannelKind,
}

impl Format {
    /// The format, if CUDA has it: 1, 2 or 4 channels of one size (8, 16 or 32 bits; a float
    /// channel 16 or 32), the unused ones zero.
    pub fn new(bits: [u8; 4], kind: ChannelKind) -> Option<Format> {
        let channels = bits.iter().take_while(|&&b| b != 0).count();
        let size = bits[0];
        let sizes_ok = match kind {
            ChannelKind::Float => matches!(size, 16 | 32),
            _ => matches!(size, 8 | 16 | 32),
        };
        let same = bits[..channels].iter().all(|&b| b == size);
        let rest_zero = bits[channels..].iter().all(|&b| b == 0);
        (sizes_ok && same && rest_zero && matches!(channels, 1 | 2 | 4))
            .then_some(Format { bits, kind })
    }

    /// Channels per texel.
    pub fn channels(&self) -> usize {
        self.bits.iter().take_while(|&&b| b != 0).count()
    }

    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u64 {
        self.bits.iter().map(|&b| u64::from(b)).sum::<u64>() / 8
    }

    /// Whether its channels read as `float`s under `read`, which linear filtering needs.
    pub fn reads_float(&self, read: ReadMode) -> bool {
        self.kind == ChannelKind::Float || (read == ReadMode::NormalizedFloat && self.bits[0] < 32)
    }
}

/// Where a coordinate outside the texture reads (`cudaTextureAddressMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    /// Repeat the texture (normalized coordinates only).
    Wrap,
    /// The edge texel.
    Clamp,
    /// Repeat it mirrored (normalized coordinates only).
    Mirror,
    /// Zero.
    Border,
}

/// Point sampling or linear filtering (`cudaTextureFilterMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// The nearest texel.
    Point,
    /// A blend of the nearest two, four or eight.
    Linear,
}

/// How integer texels read (`cudaTextureReadMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMode {
    /// As they are stored.
    Element,
    /// 8- and 16-bit integers as `float`s in [0, 1] (unsigned) or [-1, 1] (signed).
    NormalizedFloat,
}

/// A texture object: its memory's layout and how it is sampled. The memory itself is the
/// buffer the launch binds beside it; byte 0 is texel (0, 0, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Texture {
    /// The texel format.
    pub format: Format,
    /// Width, height and depth in texels (1 for a dimension it lacks).
    pub extent: [u64; 3],
    /// Bytes from one row to the next.
    pub pitch: u64,
    /// Bytes from one 2-D slice to the next.
    pub slice: u64,
    /// The address mode of each dimension.
    pub address: [AddressMode; 3],
    /// Point or linear.
    pub filter: Filter,
    /// How integer texels read.
    pub read: ReadMode,
    /// Whether coordinates run over [0, 1) rather than [0, extent).
    pub normalized: bool,
    /// Whether it is linear memory (`cudaResourceTypeLinear`), which `tex1Dfetch` reads.
    pub linear: bool,
}

impl Texture {
    /// The bytes its texels span.
    pub fn bytes(&self) -> u64 {
        let [w, h, d] = self.extent;
        (d - 1) * self.slice + (h - 1) * self.pitch + w * self.format.texel_bytes()
    }

    /// Why the description is not one a GPU samples, if it is not.
    pub fn invalid(&self) -> Option<String> {
        if self.extent.contains(&0) {
            return Some("a texture of no texels".into());
        }
        let row = self.extent[0] * self.format.texel_bytes();
        if self.pitch < row || (self.extent[2] > 1 && self.slice < self.pitch * self.extent[1]) {
            return Some(format!(
                "a pitch of {} bytes for rows of {row} bytes",
                self.pitch
            ));
        }
        if self.filter == Filter::Linear && !self.format.reads_float(self.read) {
            return Some(
                "linear filtering of texels that read as integers (use cudaReadModeNormalizedFloat \
                 for 8- and 16-bit ones, or cudaFilterModePoint)"
                    .into(),
            );
        }
        None
    }
}

/// Which fetch: `tex1Dfetch` (an integer index into linear memory), or `tex1D`, `tex2D`,
/// `tex3D` (that many `float` coordinates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fetch {
    /// `tex1Dfetch(t, i)`.
    Index,
    /// `tex1D`/`tex2D`/`tex3D`: the number of coordinates.
    Coords(u8),
}

/// The four channels of one fetch (see the module documentation); `coords` are the bits of the
/// `int` index (`Fetch::Index`) or of the `float` coordinates; `texel(byte, dst)` reads the
/// texture's memory.
pub fn fetch(
    t: &Texture,
    f: Fetch,
    coords: [u32; 3],
    texel: &mut dyn FnMut(u64, &mut [u8]),
) -> [u32; 4] {
    let mut read = |at: [u64; 3]| {
        let mut raw = [0u8; 16];
        let n = t.format.texel_bytes() as usize;
        texel(
            at[2] * t.slice + at[1] * t.pitch + at[0] * n as u64,
            &mut raw[..n],
        );
        channels(t, &raw)
    };
    let dims = match f {
        Fetch::Index => {
            let i = coords[0] as i32;
            if i < 0 || i as u64 >= t.extent[0] {
                return [0; 4];
            }
            return read([i as u64, 0, 0]);
        }
        Fetch::Coords(n) => n as usize,
    };
    let x: [f64; 3] = std::array::from_fn(|d| {
        if d >= dims {
            return 0.0;
        }
        let c = f64::from(f32::from_bits(coords[d]));
        if !t.normalized {
            return c;
        }
        // The texture unit keeps 21 fractional bits of a normalized coordinate, truncated
        // (measured on an sm_90 GPU: `tests/data/programs/real/textures.cu`).
        floor(c * NORMALIZED_SCALE) / NORMALIZED_SCALE * t.extent[d] as f64
    });
    // A texel index in dimension `d`, or `None` for a border texel.
    let place = |d: usize, i: i64| -> Option<u64> {
        let n = t.extent[d] as i64;
        if d >= dims {
            return Some(0);
        }
        match t.address[d] {
            AddressMode::Border if i < 0 || i >= n => None,
            AddressMode::Wrap if t.normalized => Some(i.rem_euclid(n) as u64),
            AddressMode::Mirror if t.normalized => {
                let m = i.rem_euclid(2 * n);
                Some((if m < n { m } else { 2 * n - 1 - m }) as u64)
            }
            _ => Some(i.clamp(0, n - 1) as u64),
        }
    };
    let mut at = |i: [i64; 3]| -> [u32; 4] {
        match (place(0, i[0]), place(1, i[1]), place(2, i[2])) {
            (Some(a), Some(b), Some(c)) => read([a, b, c]),
            _ => [0; 4],
        }
    };
    if t.filter == Filter::Point {
        return at(x.map(floor_index));
    }
    // Linear: the texel below `x - 0.5` and the next one's weight in 1/256ths, rounded.
    let mut base = [0i64; 3];
    let mut frac = [0u32; 3];
    for d in 0..dims {
        let xb = x[d] - 0.5;
        base[d] = floor_index(xb);
        // In [0, 256] (an infinite coordinate: 0).
        frac[d] = (((xb - floor(xb)) * 256.0 + 0.5) as u32).min(256);
    }
    let weights = corner_weights(dims, frac);
    let mut sum = [0f64; 4];
    for (corner, &w) in weights.iter().enumerate().take(1 << dims) {
        // (Written out: a loop over the dimensions becomes a masked vector store that the
        // loads after it wait for, a third of a fetch's time.)
        let step = |d: usize| base[d] + (corner >> d & 1) as i64;
        let i = [step(0), step(1), step(2)];
        for (s, c) in sum.iter_mut().zip(at(i)).take(t.format.channels()) {
            // Linear filtering reads floats only (`Texture::invalid`).
            *s += f64::from(w) * f64::from(f32::from_bits(c));
        }
    }
    sum.map(|s| ((s / 256.0) as f32).to_bits())
}

/// 2^21: a normalized coordinate's fixed-point scale.
const NORMALIZED_SCALE: f64 = (1u32 << 21) as f64;

/// The weights, in 1/256ths summing to 256, of the corners of a linear fetch (corner `k` is
/// one step further along dimension `d` where bit `d` of `k` is set), from each dimension's
/// 8-bit fraction, as the GPU forms them (measured on sm_90): in 2-D the far corner's weight
/// is `a·b` rounded to 1/256 (halves up), the two beside it what is left of `a` and of `b`,
/// the near one what is left of the whole; a third dimension splits each of those by `c` the
/// same way.
fn corner_weights(dims: usize, [a, b, c]: [u32; 3]) -> [u32; 8] {
    let mut w = [0u32; 8];
    match dims {
        1 => (w[0], w[1]) = (256 - a, a),
        _ => {
            let ab = (a * b + 128) >> 8;
            // `256 + ab` is at least `a + b` (`(256 - a)(256 - b) >= 0`), so none of these wraps.
            (w[0], w[1], w[2], w[3]) = (256 + ab - a - b, a - ab, b - ab, ab);
        }
    }
    if dims == 3 {
        for k in 0..4 {
            w[k + 4] = (w[k] * c + 128) >> 8;
            w[k] -= w[k + 4];
        }
    }
    w
}

/// A warp's fetches: for each lane of `lanes`, its channels ([`fetch`] at `coords[d][lane]`)
/// as lanes of a type of `size` bytes, `signed` or not ([`lane`]); the other lanes read 0.
pub fn fetch_warp(
    t: &Texture,
    f: Fetch,
    coords: &[[u32; 32]; 3],
    (size, signed): (u32, bool),
    lanes: u32,
    texel: &mut dyn FnMut(u64, &mut [u8]),
) -> [[u32; 32]; 4] {
    let mut out = [[0; 32]; 4];
    for l in (0..32).filter(|l| lanes >> l & 1 != 0) {
        let v = fetch(t, f, [coords[0][l], coords[1][l], coords[2][l]], texel);
        for (o, v) in out.iter_mut().zip(v) {
            o[l] = lane(v, size, signed);
        }
    }
    out
}

/// A channel's 32 bits as a lane of a type of `size` bytes (a sub-word integer keeps its low
/// bits, sign-extended where `signed`, as a lane holds it).
pub fn lane(bits: u32, size: u32, signed: bool) -> u32 {
    match (size, signed) {
        (1, true) => bits as i8 as i32 as u32,
        (1, false) => bits & 0xff,
        (2, true) => bits as i16 as i32 as u32,
        (2, false) => bits & 0xffff,
        _ => bits,
    }
}

/// `floor(c)` as a texel index, within ±2^40 (far outside every texture, and room to step
/// to a neighbour); NaN reads texel 0.
fn floor_index(c: f64) -> i64 {
    const FAR: f64 = (1u64 << 40) as f64;
    floor(c.clamp(-FAR, FAR)) as i64
}

/// `floor(c)` for a coordinate, by truncation (without SSE4.1 `f64::floor` is a library call,
/// and a fetch makes up to six); NaN gives 0.
fn floor(c: f64) -> f64 {
    if c.is_nan() {
        return 0.0;
    }
    // From 2^52 on every `f64` is a whole number.
    if c.abs() >= (1u64 << 52) as f64 {
        return c;
    }
    let t = c as i64;
    (t - i64::from((t as f64) > c)) as f64
}

/// A texel's channels from its bytes, under the texture's read mode.
fn channels(t: &Texture, raw: &[u8; 16]) -> [u32; 4] {
    let bits = u32::from(t.format.bits[0]);
    let word = u128::from_le_bytes(*raw);
    let mask = u32::MAX >> (32 - bits);
    let mut out = [0; 4];
    for (k, o) in out.iter_mut().enumerate().take(t.format.channels()) {
        *o = channel(t, (word >> (k as u32 * bits)) as u32 & mask, bits);
    }
    out
}

/// One channel of `bits` bits, `u`, as read: a `float`'s bits, or an integer's.
fn channel(t: &Texture, u: u32, bits: u32) -> u32 {
    let normalize = t.read == ReadMode::NormalizedFloat && bits < 32;
    // A signed channel, sign-extended.
    let signed = || ((u << (32 - bits)) as i32) >> (32 - bits);
    match t.format.kind {
        ChannelKind::Float if bits == 16 => half(u as u16).to_bits(),
        ChannelKind::Float => u,
        ChannelKind::Unsigned if normalize => {
            (u as f32 / (u32::MAX >> (32 - bits)) as f32).to_bits()
        }
        ChannelKind::Signed if normalize => {
            let max = (u32::MAX >> (33 - bits)) as f32;
            (signed() as f32 / max).max(-1.0).to_bits()
        }
        ChannelKind::Unsigned => u,
        ChannelKind::Signed => signed() as u32,
    }
}

/// An IEEE half-precision value as `f32` (exact).
fn half(h: u16) -> f32 {
    let sign = if h >> 15 == 1 { -1.0f32 } else { 1.0 };
    let exp = i32::from(h >> 10 & 0x1f);
    let frac = f32::from(h & 0x3ff);
    sign * match exp {
        0 => frac * (2.0f32).powi(-24),
        31 if frac == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + frac / 1024.0) * (2.0f32).powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex(format: Format, w: u64, h: u64) -> Texture {
        Texture {
            format,
            extent: [w, h, 1],
            pitch: w * format.texel_bytes(),
            slice: w * h * format.texel_bytes(),
            address: [AddressMode::Clamp; 3],
            filter: Filter::Point,
            read: ReadMode::Element,
            normalized: false,
            linear: false,
        }
    }

    fn run(t: &Texture, mem: &[u8], f: Fetch, c: [f32; 3]) -> [u32; 4] {
        let coords = if f == Fetch::Index {
            [c[0] as i32 as u32, 0, 0]
        } else {
            c.map(f32::to_bits)
        };
        fetch(t, f, coords, &mut |at, dst| {
            let at = at as usize;
            dst.copy_from_slice(&mem[at..at + dst.len()]);
        })
    }

    fn floats(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn point_sampling_reads_the_texel_under_the_coordinate() {
        let f = Format::new([32, 0, 0, 0], ChannelKind::Float).unwrap();
        let t = tex(f, 4, 2);
        let mem = floats(&[0., 1., 2., 3., 10., 11., 12., 13.]);
        assert_eq!(
            f32::from_bits(run(&t, &mem, Fetch::Coords(2), [2.99, 1.0, 0.])[0]),
            12.0
        );
        // Clamped outside.
        assert_eq!(
            f32::from_bits(run(&t, &mem, Fetch::Coords(2), [-5.0, 9.0, 0.])[0]),
            10.0
        );
        // Border reads zero; unnormalized wrap clamps.
        let mut b = t;
        b.address = [AddressMode::Border; 3];
        assert_eq!(run(&b, &mem, Fetch::Coords(2), [4.5, 0.0, 0.])[0], 0);
        let mut w = t;
        w.address = [AddressMode::Wrap; 3];
        assert_eq!(
            f32::from_bits(run(&w, &mem, Fetch::Coords(2), [4.5, 0.0, 0.])[0]),
            3.0
        );
        // Normalized wrap repeats.
        w.normalized = true;
        assert_eq!(
            f32::from_bits(run(&w, &mem, Fetch::Coords(2), [1.3, 0.75, 0.])[0]),
            11.0
        );
        // Mirror: 1.3 mirrors to 0.7 (texel 2).
        let mut m = w;
        m.address = [AddressMode::Mirror; 3];
        assert_eq!(
            f32::from_bits(run(&m, &mem, Fetch::Coords(2), [1.3, 0.25, 0.])[0]),
            2.0
        );
    }

    #[test]
    fn linear_filtering_blends_with_eight_bit_weights() {
        let f = Format::new([32, 0, 0, 0], ChannelKind::Float).unwrap();
        let mut t = tex(f, 2, 1);
        t.filter = Filter::Linear;
        let mem = floats(&[0.0, 1.0]);
        // x = 1.0: halfway between texel centres 0.5 and 1.5.
        assert_eq!(
            f32::from_bits(run(&t, &mem, Fetch::Coords(1), [1.0, 0., 0.])[0]),
            0.5
        );
        // A weight of 0.3 is kept as 77/256.
        let got = f32::from_bits(run(&t, &mem, Fetch::Coords(1), [0.8, 0., 0.])[0]);
        assert_eq!(got, 77.0 / 256.0);
        // At and before the first centre: the edge texel (clamped).
        assert_eq!(run(&t, &mem, Fetch::Coords(1), [0.2, 0., 0.])[0], 0);
    }

    #[test]
    fn integer_texels_read_as_numbers_or_normalized() {
        let f = Format::new([8, 8, 8, 8], ChannelKind::Unsigned).unwrap();
        let mut t = tex(f, 1, 1);
        let mem = [0u8, 51, 255, 7];
        assert_eq!(
            run(&t, &mem, Fetch::Coords(2), [0.5, 0.5, 0.]),
            [0, 51, 255, 7]
        );
        t.read = ReadMode::NormalizedFloat;
        let got = run(&t, &mem, Fetch::Coords(2), [0.5, 0.5, 0.]).map(f32::from_bits);
        assert_eq!(got, [0.0, 0.2, 1.0, 7.0 / 255.0]);
        let s = Format::new([8, 0, 0, 0], ChannelKind::Signed).unwrap();
        let mut t = tex(s, 2, 1);
        let mem = [0x80u8, 0xff];
        assert_eq!(run(&t, &mem, Fetch::Coords(1), [1.5, 0., 0.])[0], u32::MAX);
        t.read = ReadMode::NormalizedFloat;
        assert_eq!(
            f32::from_bits(run(&t, &mem, Fetch::Coords(1), [0.5, 0., 0.])[0]),
            -1.0
        );
    }

    #[test]
    fn a_fetch_by_index_reads_zero_outside() {
        let f = Format::new([32, 0, 0, 0], ChannelKind::Signed).unwrap();
        let t = tex(f, 3, 1);
        let mem: Vec<u8> = [5i32, 6, 7].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(run(&t, &mem, Fetch::Index, [2.0, 0., 0.])[0], 7);
        assert_eq!(run(&t, &mem, Fetch::Index, [3.0, 0., 0.])[0], 0);
        assert_eq!(run(&t, &mem, Fetch::Index, [-1.0, 0., 0.])[0], 0);
    }

    #[test]
    fn any_coordinate_reads_inside_or_the_border() {
        let f = Format::new([32, 0, 0, 0], ChannelKind::Float).unwrap();
        let mem = floats(&[1.0, 2.0, 3.0, 4.0]);
        for filter in [Filter::Point, Filter::Linear] {
            for address in [
                AddressMode::Wrap,
                AddressMode::Clamp,
                AddressMode::Mirror,
                AddressMode::Border,
            ] {
                for normalized in [false, true] {
                    let mut t = tex(f, 2, 2);
                    (t.filter, t.address, t.normalized) = (filter, [address; 3], normalized);
                    for c in [
                        f32::NAN,
                        f32::INFINITY,
                        -f32::INFINITY,
                        f32::MAX,
                        -f32::MAX,
                        1e12,
                        -3e9,
                    ] {
                        let v = f32::from_bits(run(&t, &mem, Fetch::Coords(2), [c, 0.5, 0.0])[0]);
                        assert!(v == 0.0 || (1.0..=4.0).contains(&v), "{c} {t:?}: {v}");
                    }
                }
            }
        }
    }

    #[test]
    fn corner_weights_sum_to_one_for_every_fraction() {
        for a in 0..=256 {
            for b in (0..=256).step_by(7).chain([256]) {
                for c in [0, 1, 128, 255, 256] {
                    for dims in 1..=3 {
                        let w = corner_weights(dims, [a, b, c]);
                        assert_eq!(w.iter().sum::<u32>(), 256, "{dims} {a} {b} {c}");
                    }
                }
            }
        }
        // The far corner's weight rounds halves up, the others take what is left (sm_90).
        assert_eq!(corner_weights(2, [24, 240, 0])[..4], [15, 1, 217, 23]);
    }

    #[test]
    fn formats_cuda_lacks_are_refused() {
        assert!(Format::new([8, 8, 8, 0], ChannelKind::Unsigned).is_none());
        assert!(Format::new([8, 16, 0, 0], ChannelKind::Unsigned).is_none());
        assert!(Format::new([8, 0, 0, 0], ChannelKind::Float).is_none());
        assert!(Format::new([16, 16, 0, 0], ChannelKind::Float).is_some());
        assert_eq!(half(0x3c00), 1.0);
        assert_eq!(half(0xc000), -2.0);
        assert_eq!(half(0x0001), 2.0f32.powi(-24));
    }
}
