//! Texture fetches on the compiled tier: compiled code hands a warp's coordinates to
//! [`fetch_lanes`], which samples every lane with the interpreter's function
//! ([`crate::cuda::ir::texture::fetch`]), so both tiers return the same bits.
//!
//! The helper is called from compiled code (a `helper!`): it must not panic. A lane that does
//! not execute is sampled too (at whatever its coordinates hold: a fetch reads only inside its
//! texture); compiled code keeps the executing lanes' results.

use crate::Global;
use crate::cuda::ir::Base;
use crate::cuda::ir::texture::{self, Fetch, Texture};

/// A texture object a launch binds, if any: the memory it samples, and how.
pub(crate) type Sampled = Option<(Global<u8>, Texture)>;

/// The launch's texture objects ([`crate::cuda::ir::Stmt::Texture::texture`]), on both tiers:
/// the memory each samples, and how.
pub(crate) struct Textures {
    /// By buffer slot ([`Base::Param`]): those of `cudaTextureObject_t` parameters.
    pub params: Vec<Sampled>,
    /// By [`crate::cuda::ir::Kernel::globals`] index: those bound to texture references.
    pub globals: Vec<Sampled>,
}

impl Textures {
    /// The texture object bound to `base`, if any.
    pub fn get(&self, base: Base) -> Option<&(Global<u8>, Texture)> {
        match base {
            Base::Param(i) => self.params.get(i as usize)?.as_ref(),
            Base::Global(i) => self.globals.get(i as usize)?.as_ref(),
            _ => None,
        }
    }
}

helper! {
    /// `out[k][l]`: channel `k` of lane `l`'s fetch (`fetch`: 0 for `tex1Dfetch`, else the
    /// number of coordinates) from the texture at `base` ([`Base::encode`]), at `coords[d][l]`, as a lane of a
    /// type of `size` bytes, `signed` or not ([`texture::lane`]).
    fn fetch_lanes(
        textures: &Textures,
        base: u32,
        fetch: u32,
        size: u32,
        signed: u32,
        coords: &[[u32; 32]; 3],
        out: &mut [[u32; 32]; 4],
    ) {
        let Some((memory, t)) = textures.get(Base::decode(base)) else {
            return;
        };
        let fetch = match fetch {
            0 => Fetch::Index,
            n => Fetch::Coords(n.min(3) as u8),
        };
        let mut texel = |at: u64, bytes: &mut [u8]| memory.read_bytes(at as usize, bytes);
        *out = texture::fetch_warp(t, fetch, coords, (size, signed != 0), u32::MAX, &mut texel);
    }
}
