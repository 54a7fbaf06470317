//! Check mode: hazards a GPU would hide.
//!
//! (Being built: see issue 6.) Hooks called by the engine in [`crate::Mode::Check`].

use crate::error::AccessKind;
use crate::lanes::Mask;
use crate::launch::{Dim3, LaunchCtx};
use crate::memory::{Access, Target};
use crate::scheduler::BlockState;
use crate::warp::Warp;
use std::fmt;

/// One hazard found by check mode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The block it happened in.
    pub block: Dim3,
    /// What was found.
    pub message: String,
}

/// Everything check mode found in a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// The kernel.
    pub kernel: String,
    /// The findings, lowest block first.
    pub findings: Vec<Finding>,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "check mode found {} hazard(s) in kernel `{}`",
            self.findings.len(),
            self.kernel
        )
    }
}

/// Per-warp check state.
#[derive(Default)]
pub(crate) struct WarpCheck {}

/// Per-block check state.
#[derive(Default)]
pub(crate) struct BlockCheck {}

impl BlockCheck {
    pub fn reset(&mut self) {}
}

pub(crate) fn on_access(_w: &mut Warp<'_>, _t: &Target<'_>, _a: &Access, _kind: AccessKind) {}
pub(crate) fn on_barrier(_w: &mut Warp<'_>) {}
pub(crate) fn on_sync_warp(_w: &mut Warp<'_>, _mask: Mask) {}
pub(crate) fn on_member_mask(_w: &mut Warp<'_>, _mask: Mask, _name: &'static str) {}
pub(crate) fn end_block(_ctx: &LaunchCtx, _st: &BlockState, _warps: &[Warp<'_>]) {}
pub(crate) fn finish(_ctx: &LaunchCtx, _warnings: &mut Vec<Finding>) -> Result<(), crate::Error> {
    Ok(())
}
