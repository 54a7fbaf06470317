//! The report's pictures, as inline SVG drawn from a run's samples ([`warpsim::Samples`]):
//!
//! * [`coalescing`]: one warp's 32 addresses over 32-byte sectors and 128-byte lines, the
//!   fetched sectors shaded and the efficiency printed (document 001's figures);
//! * [`banks`]: the 32 banks as columns with the lanes' words placed in them, one row per
//!   wavefront (document 004's picture of a tile's column);
//! * [`divergence`]: for 2-D grids the grid of warps coloured by divergent branches (002's
//!   76 × 62 image), for 1-D kernels the blocks' warps and the divergent branches per warp index
//!   and per branch step (the reductions' Fig 5.13 vs 5.15).
//!
//! Every picture's `<svg>` carries its numbers as `data-` attributes as well as in its text.

use crate::lines::Sources;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use warpsim::profile::GlobalCaching;
use warpsim::site::SourcePos;
use warpsim::{AccessKind, AccessSample, LaunchReport, Metrics, Profile, Samples};

/// `s` with HTML's special characters escaped.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `kernels/reduction.rs:127` as `reduction.rs:127`.
fn place(site: Option<&SourcePos>) -> String {
    site.map(|p| {
        let file = p.file.rsplit(['/', '\\']).next().unwrap_or(&p.file);
        format!("{file}:{}", p.line)
    })
    .unwrap_or_else(|| "an unknown line".to_string())
}

/// The fill of a cell holding `v` on a scale up to `max`: pale for 0, then light orange to dark
/// red.
fn heat(v: u64, max: u64) -> String {
    if v == 0 || max == 0 {
        return "#edf1f5".to_string();
    }
    let t = (v as f64 / max as f64).clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(253.0, 179.0),
        mix(212.0, 0.0),
        mix(158.0, 0.0)
    )
}

/// Text that must be readable on `heat(v, max)`.
fn ink(v: u64, max: u64) -> &'static str {
    if max > 0 && v as f64 / max as f64 > 0.55 {
        "#fff"
    } else {
        "#222"
    }
}

fn open_svg(class: &str, width: f64, height: f64, label: &str, data: &str) -> String {
    // Wide enough for the title (the label), drawn in bold 13 px.
    let width = width.max(40.0 + label.chars().count() as f64 * 8.0);
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="picture {class}" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="{label}"{data}>"#,
        label = escape(label)
    )
}

fn text(svg: &mut String, x: f64, y: f64, class: &str, anchor: &str, s: &str) {
    let _ = write!(
        svg,
        r#"<text x="{x:.1}" y="{y:.1}" class="{class}" text-anchor="{anchor}">{}</text>"#,
        escape(s)
    );
}

fn access_name(a: AccessKind) -> &'static str {
    match a {
        AccessKind::Load => "load",
        AccessKind::Store => "store",
        AccessKind::Atomic => "atomic",
    }
}

/// The numbers of a coalescing picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Coalescing {
    /// Bytes the active lanes asked for.
    pub requested: u64,
    /// Bytes moved: sectors × 32, or lines × 128 for loads on profiles caching them in L1.
    pub fetched: u64,
    /// `100 × requested / fetched`.
    pub efficiency: f64,
}

/// What `s` requested and what it cost under `profile`.
pub fn coalescing_numbers(s: &AccessSample, profile: &Profile) -> Coalescing {
    let active = s.addresses.iter().flatten().count() as u64;
    let requested = active * u64::from(s.elem_bytes);
    let fetched =
        if s.access == AccessKind::Load && profile.global_loads == GlobalCaching::L1Lines128 {
            s.lines * 128
        } else {
            s.sectors * 32
        };
    Coalescing {
        requested,
        fetched,
        efficiency: if fetched == 0 {
            0.0
        } else {
            100.0 * requested as f64 / fetched as f64
        },
    }
}

/// One warp's global access drawn over the sectors and lines it touched (see the module).
/// `kernel` (the launch's metrics) adds the whole kernel's efficiency for comparison.
pub fn coalescing(s: &AccessSample, profile: &Profile, kernel: Option<&Metrics>) -> String {
    const W: f64 = 1000.0;
    const STRIP_Y: f64 = 122.0;
    const STRIP_H: f64 = 34.0;
    let elem = u64::from(s.elem_bytes.max(1));
    let lanes: Vec<(usize, u64)> = s
        .addresses
        .iter()
        .enumerate()
        .filter_map(|(l, a)| a.map(|a| (l, a)))
        .collect();
    let mut sectors = BTreeSet::new();
    let mut lines = BTreeSet::new();
    for &(_, a) in &lanes {
        sectors.extend(a / 32..=(a + elem - 1) / 32);
        lines.extend(a / 128..=(a + elem - 1) / 128);
    }
    let l1 = s.access == AccessKind::Load && profile.global_loads == GlobalCaching::L1Lines128;
    let nums = coalescing_numbers(s, profile);
    let line_list: Vec<u64> = lines.iter().copied().collect();
    let runs = 1 + line_list.windows(2).filter(|w| w[1] != w[0] + 1).count();
    let gap = if runs > 8 { 6.0 } else { 18.0 };
    let avail = W - 80.0 - gap * (runs.saturating_sub(1)) as f64;
    let scale = (avail / (line_list.len().max(1) as f64 * 128.0)).min(3.5);
    let used = line_list.len() as f64 * 128.0 * scale + gap * (runs.saturating_sub(1)) as f64;
    let mut x = 20.0 + (W - 40.0 - used).max(0.0) / 2.0;
    let mut line_x = BTreeMap::new();
    for (i, &l) in line_list.iter().enumerate() {
        if i > 0 && l != line_list[i - 1] + 1 {
            x += gap;
        }
        line_x.insert(l, x);
        x += 128.0 * scale;
    }
    let byte_x =
        |a: u64| line_x.get(&(a / 128)).copied().unwrap_or(20.0) + (a % 128) as f64 * scale;

    let kernel_line = kernel.map(|m| {
        let (name, eff, sec, req) = if s.access == AccessKind::Store {
            (
                "gst_efficiency",
                m.gst_efficiency,
                m.gst_sectors,
                m.gst_requests,
            )
        } else {
            (
                "gld_efficiency",
                m.gld_efficiency,
                m.gld_sectors,
                m.gld_requests,
            )
        };
        let per = if req == 0 {
            "-".to_string()
        } else {
            format!("{:.2}", sec as f64 / req as f64)
        };
        (
            eff,
            format!("whole launch: {name} {eff:.1} %, {per} sectors per request"),
        )
    });
    let height = 262.0;
    let title = format!(
        "Coalescing: the {} of `{}` at {} by warp {} of block {}",
        access_name(s.access),
        s.buffer,
        place(s.site.as_ref()),
        s.warp,
        s.block
    );
    let mut data = format!(
        r#" data-sectors="{}" data-lines="{}" data-requested="{}" data-fetched="{}" data-efficiency="{:.1}""#,
        s.sectors, s.lines, nums.requested, nums.fetched, nums.efficiency
    );
    if let Some((eff, _)) = &kernel_line {
        let _ = write!(data, r#" data-kernel-efficiency="{eff:.1}""#);
    }
    let mut svg = open_svg("coalescing", W, height, &title, &data);
    text(&mut svg, 20.0, 16.0, "title", "start", &title);
    // Lanes.
    for lane in 0..32usize {
        let lx = 20.0 + lane as f64 * 30.0;
        let on = s.addresses.get(lane).copied().flatten().is_some();
        let _ = write!(
            svg,
            r#"<rect x="{lx:.1}" y="28" width="26" height="18" class="{}"/>"#,
            if on { "lane" } else { "lane off" }
        );
        text(
            &mut svg,
            lx + 13.0,
            41.0,
            "small",
            "middle",
            &lane.to_string(),
        );
    }
    text(&mut svg, 20.0, 60.0, "small", "start", "lanes of the warp");
    // Lines and sectors.
    for (&l, &lx) in &line_x {
        for k in 0..4u64 {
            let sector = l * 4 + k;
            let fetched = if l1 { true } else { sectors.contains(&sector) };
            let sx = lx + (k * 32) as f64 * scale;
            let _ = write!(
                svg,
                r#"<rect x="{sx:.2}" y="{STRIP_Y}" width="{w:.2}" height="{STRIP_H}" class="{}"><title>sector at +{} bytes{}</title></rect>"#,
                if fetched { "sector fetched" } else { "sector" },
                (sector - line_list[0] * 4) * 32,
                if fetched {
                    ", fetched"
                } else {
                    ", not fetched"
                },
                w = 32.0 * scale,
            );
        }
        let _ = write!(
            svg,
            r#"<rect x="{lx:.2}" y="{STRIP_Y}" width="{w:.2}" height="{STRIP_H}" class="line"/>"#,
            w = 128.0 * scale
        );
    }
    // Requested bytes and the lanes' connectors.
    for &(lane, a) in &lanes {
        let bx = byte_x(a);
        let _ = write!(
            svg,
            r#"<rect x="{bx:.2}" y="{y:.1}" width="{w:.2}" height="{h:.1}" class="word"><title>lane {lane}: {elem} bytes at {a:#x}</title></rect>"#,
            y = STRIP_Y + 6.0,
            w = if elem as f64 * scale >= 4.0 {
                elem as f64 * scale - 1.0
            } else {
                (elem as f64 * scale).max(0.8)
            },
            h = STRIP_H - 12.0,
        );
        let _ = write!(
            svg,
            r#"<line x1="{:.1}" y1="46" x2="{:.2}" y2="{STRIP_Y}" class="wire"/>"#,
            20.0 + lane as f64 * 30.0 + 13.0,
            bx + elem as f64 * scale / 2.0,
        );
    }
    // Offsets under the strip, relative to the first line.
    let mut free_from = f64::MIN;
    for (&l, &lx) in &line_x {
        let step = if scale * 32.0 >= 40.0 { 1 } else { 4 };
        for k in (0..4).step_by(step) {
            let off = (l - line_list[0]) * 128 + k as u64 * 32;
            let tx = lx + k as f64 * 32.0 * scale;
            let label = format!("+{off}");
            if tx >= free_from || (k == 0 && l == line_list[0]) {
                let class = if k == 0 { "small strong" } else { "small" };
                text(
                    &mut svg,
                    tx,
                    STRIP_Y + STRIP_H + 14.0,
                    class,
                    "start",
                    &label,
                );
                free_from = tx + 6.5 * label.len() as f64;
            }
        }
    }
    let first = line_list.first().map_or(0, |l| l * 128);
    text(
        &mut svg,
        20.0,
        STRIP_Y + STRIP_H + 30.0,
        "small",
        "start",
        &format!(
            "byte offsets from the first line touched ({first:#x}); each box is a 128-byte line of four 32-byte sectors"
        ),
    );
    text(
        &mut svg,
        20.0,
        212.0,
        "",
        "start",
        &format!(
            "{} active lane{} × {elem} B = {} B requested; {} sector{} of 32 B in {} line{} of 128 B touched",
            lanes.len(),
            if lanes.len() == 1 { "" } else { "s" },
            nums.requested,
            s.sectors,
            if s.sectors == 1 { "" } else { "s" },
            s.lines,
            if s.lines == 1 { "" } else { "s" },
        ),
    );
    text(
        &mut svg,
        20.0,
        230.0,
        "strong",
        "start",
        &format!(
            "this access: {} B requested / {} B fetched = {:.1} % efficiency ({} on {})",
            nums.requested,
            nums.fetched,
            nums.efficiency,
            if l1 {
                "128-byte L1 lines"
            } else {
                "32-byte sectors"
            },
            profile.name
        ),
    );
    if let Some((_, line)) = &kernel_line {
        text(&mut svg, 20.0, 248.0, "", "start", line);
    }
    // Legend.
    let lx = W - 330.0;
    for (i, (class, label)) in [
        ("word", "bytes requested"),
        ("sector fetched", "fetched"),
        ("sector", "not fetched"),
    ]
    .iter()
    .enumerate()
    {
        let x = lx + i as f64 * 110.0;
        let _ = write!(
            svg,
            r#"<rect x="{x:.1}" y="240" width="12" height="12" class="{class}"/>"#
        );
        text(&mut svg, x + 16.0, 250.0, "small", "start", label);
    }
    svg.push_str("</svg>");
    svg
}

/// One request's placement: per bank, its distinct words in order, each with its lanes.
struct BankGroup {
    lanes: (usize, usize),
    per_bank: Vec<Vec<(u64, Vec<usize>)>>,
    wavefronts: usize,
    ideal: usize,
}

fn bank_groups(s: &AccessSample, profile: &Profile) -> Vec<BankGroup> {
    let banks = profile.shared_banks.clamp(1, 32) as usize;
    let group = profile.shared_request_lanes.clamp(1, 32) as usize;
    let words = u64::from(s.elem_bytes.div_ceil(4).max(1));
    let mut out = Vec::new();
    for g in 0..32 / group {
        let range = (g * group, (g + 1) * group);
        let mut per_bank: Vec<BTreeMap<u64, Vec<usize>>> = vec![BTreeMap::new(); banks];
        for lane in range.0..range.1 {
            if let Some(Some(a)) = s.addresses.get(lane) {
                for k in 0..words {
                    let w = a / 4 + k;
                    per_bank[(w % banks as u64) as usize]
                        .entry(w)
                        .or_default()
                        .push(lane);
                }
            }
        }
        let distinct: usize = per_bank.iter().map(BTreeMap::len).sum();
        if distinct == 0 {
            continue;
        }
        out.push(BankGroup {
            lanes: range,
            wavefronts: per_bank.iter().map(BTreeMap::len).max().unwrap_or(0),
            ideal: distinct.div_ceil(banks),
            per_bank: per_bank
                .into_iter()
                .map(|m| m.into_iter().collect())
                .collect(),
        });
    }
    out
}

/// The label of a word shared by `lanes`.
fn lanes_label(lanes: &[usize]) -> String {
    match lanes {
        [one] => one.to_string(),
        [a, b] => format!("{a},{b}"),
        many => format!("×{}", many.len()),
    }
}

/// One warp's shared access placed in the banks (see the module); `kernel` adds the whole
/// kernel's wavefronts and conflicts.
pub fn banks(s: &AccessSample, profile: &Profile, kernel: Option<&Metrics>) -> String {
    const CW: f64 = 28.0;
    const CH: f64 = 18.0;
    const X0: f64 = 92.0;
    let groups = bank_groups(s, profile);
    let banks = profile.shared_banks.clamp(1, 32) as usize;
    let width = (X0 + banks as f64 * CW + 20.0).max(760.0);
    let labelled = groups.len() > 1 || groups.first().is_some_and(|g| g.lanes != (0, 32));
    let label_h = if labelled { 16.0 } else { 0.0 };
    let body: f64 = groups
        .iter()
        .map(|g| label_h + 24.0 + g.wavefronts as f64 * CH)
        .sum();
    let height = 24.0 + body + 76.0;
    let (wf, ideal) = s.wavefronts;
    let title = format!(
        "Banks: the {} of `{}` at {} by warp {} of block {}",
        access_name(s.access),
        s.buffer,
        place(s.site.as_ref()),
        s.warp,
        s.block
    );
    let data = format!(
        r#" data-wavefronts="{wf}" data-ideal="{ideal}" data-conflicts="{}" data-banks="{banks}""#,
        wf.saturating_sub(ideal)
    );
    let mut svg = open_svg("banks", width, height, &title, &data);
    text(&mut svg, 20.0, 16.0, "title", "start", &title);
    let mut y = 24.0;
    for g in &groups {
        if labelled {
            text(
                &mut svg,
                20.0,
                y + 12.0,
                "small",
                "start",
                &format!("lanes {}–{}", g.lanes.0, g.lanes.1 - 1),
            );
        }
        for b in 0..banks {
            let x = X0 + b as f64 * CW;
            text(
                &mut svg,
                x + CW / 2.0,
                y + label_h + 14.0,
                "small",
                "middle",
                &b.to_string(),
            );
        }
        text(
            &mut svg,
            X0 - 8.0,
            y + label_h + 14.0,
            "small",
            "end",
            "bank",
        );
        let top = y + label_h + 20.0;
        for r in 0..g.wavefronts {
            text(
                &mut svg,
                X0 - 8.0,
                top + r as f64 * CH + 13.0,
                "small",
                "end",
                &format!("wavefront {}", r + 1),
            );
            for b in 0..banks {
                let x = X0 + b as f64 * CW;
                let cy = top + r as f64 * CH;
                match g.per_bank[b].get(r) {
                    Some((word, lanes)) => {
                        let class = if r >= g.ideal {
                            "cell conflict"
                        } else if lanes.len() > 1 {
                            "cell shared"
                        } else {
                            "cell"
                        };
                        let who: Vec<String> = lanes.iter().map(ToString::to_string).collect();
                        let _ = write!(
                            svg,
                            r#"<rect x="{x:.1}" y="{cy:.1}" width="{CW}" height="{CH}" class="{class}"><title>bank {b}, word {word} (byte {}): lane{} {}</title></rect>"#,
                            word * 4,
                            if lanes.len() > 1 { "s" } else { "" },
                            who.join(", ")
                        );
                        text(
                            &mut svg,
                            x + CW / 2.0,
                            cy + 13.0,
                            "small",
                            "middle",
                            &lanes_label(lanes),
                        );
                    }
                    None => {
                        let _ = write!(
                            svg,
                            r#"<rect x="{x:.1}" y="{cy:.1}" width="{CW}" height="{CH}" class="cell empty"/>"#
                        );
                    }
                }
            }
        }
        y = top + g.wavefronts as f64 * CH + 4.0;
    }
    let distinct: usize = groups
        .iter()
        .map(|g| g.per_bank.iter().map(Vec::len).sum::<usize>())
        .sum();
    let y = y + 16.0;
    text(
        &mut svg,
        20.0,
        y,
        "",
        "start",
        &format!(
            "{} lanes, {} B each: {distinct} distinct words; cells show the lane (×n: n lanes share one word, a broadcast)",
            s.addresses.iter().flatten().count(),
            s.elem_bytes
        ),
    );
    text(
        &mut svg,
        20.0,
        y + 18.0,
        "strong",
        "start",
        &format!(
            "this access: {wf} wavefront{}, ideal {ideal}: {} bank conflict{} ({}-way)",
            if wf == 1 { "" } else { "s" },
            wf.saturating_sub(ideal),
            if wf.saturating_sub(ideal) == 1 {
                ""
            } else {
                "s"
            },
            wf.div_ceil(ideal.max(1))
        ),
    );
    if let Some(m) = kernel {
        let req = m.shared_ld_requests + m.shared_st_requests;
        let wfs = m.shared_ld_wavefronts + m.shared_st_wavefronts;
        let conflicts = m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts;
        let per = if req == 0 {
            "-".to_string()
        } else {
            format!("{:.2}", wfs as f64 / req as f64)
        };
        text(
            &mut svg,
            20.0,
            y + 36.0,
            "",
            "start",
            &format!(
                "whole launch: {wfs} wavefronts for {req} shared requests ({per} per request), {conflicts} bank conflicts"
            ),
        );
    }
    let lx = width - 330.0;
    for (i, (class, label)) in [
        ("cell", "one lane"),
        ("cell shared", "broadcast"),
        ("cell conflict", "extra wavefront"),
    ]
    .iter()
    .enumerate()
    {
        let x = lx + i as f64 * 105.0;
        let _ = write!(
            svg,
            r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" class="{class}"/>"#,
            y + 44.0
        );
        text(&mut svg, x + 16.0, y + 54.0, "small", "start", label);
    }
    svg.push_str("</svg>");
    svg
}

/// Warps per block of `r`'s launch.
fn warps_per_block(r: &LaunchReport) -> usize {
    (r.block.count() as usize).div_ceil(32)
}

/// A note in place of a picture.
fn note(class: &str, title: &str, line: &str, data: &str) -> String {
    let mut svg = open_svg(class, 640.0, 48.0, title, data);
    text(&mut svg, 20.0, 16.0, "title", "start", title);
    text(&mut svg, 20.0, 36.0, "", "start", line);
    svg.push_str("</svg>");
    svg
}

/// Divergent branches per warp of the grid, `[block × warps + warp]`; `None` when the engine
/// kept no map for a grid this large.
fn per_warp(r: &LaunchReport) -> Option<Vec<u32>> {
    let warps = r.grid.count() * warps_per_block(r) as u64;
    let map = &r.samples.divergent_by_block;
    if !map.is_empty() {
        Some(map.clone())
    } else if warps <= Samples::MAX_MAP_WARPS
        || r.counters.is_some_and(|c| c.divergent_branches == 0)
    {
        (warps <= 4 << 20).then(|| vec![0; warps as usize])
    } else {
        None
    }
}

/// The divergence pictures of a launch: for a 2-D grid the grid of warps over the threads'
/// positions (with `domain`, the image or matrix the kernel covers, outlined); for a 1-D grid
/// the blocks' warps (small grids) and the divergent branches per step and warp index.
pub fn divergence(r: &LaunchReport, domain: Option<(u32, u32)>, sources: &mut Sources) -> String {
    let two_d = (r.grid.y > 1 || r.block.y > 1) && r.grid.z == 1 && r.block.z == 1;
    if two_d {
        grid_map(r, domain)
    } else {
        let mut out = String::new();
        if r.grid.count() <= 1024 {
            out.push_str(&strip_map(r));
        }
        out.push_str(&steps(r, sources));
        out
    }
}

/// The caption numbers of a map.
fn map_numbers(r: &LaunchReport, map: &[u32]) -> (usize, usize, u64) {
    let diverging = map.iter().filter(|&&d| d > 0).count();
    let total = r.counters.map_or(0, |c| c.divergent_branches);
    (diverging, map.len(), total)
}

/// Grids of at most this many warps get a cell per warp in the divergence map; larger ones a
/// cell per diverging warp.
const MAP_CELLS: usize = 4096;

/// 2-D grids: each warp a cell at its threads' positions, coloured by its divergent branches.
fn grid_map(r: &LaunchReport, domain: Option<(u32, u32)>) -> String {
    let title = format!("Divergence map of {}: warps of the grid", r.name);
    let Some(map) = per_warp(r) else {
        return note(
            "divergence-map",
            &title,
            "the grid has too many warps for a map; see the counters",
            "",
        );
    };
    let (diverging, warps, total) = map_numbers(r, &map);
    let data = format!(
        r#" data-divergent-warps="{diverging}" data-warps="{warps}" data-divergent-branches="{total}""#
    );
    let wpb = warps_per_block(r);
    let (bx, by) = (r.block.x as u64, r.block.y as u64);
    let (tw, th) = (r.grid.x as u64 * bx, r.grid.y as u64 * by);
    let px = (760.0 / tw as f64).min(520.0 / th as f64).min(12.0);
    if px * (bx as f64) < 2.0 || px * (by as f64) < 2.0 || warps > 100_000 {
        return note(
            "divergence-map",
            &title,
            &format!(
                "{diverging} of {warps} warps diverge ({total} divergent branches); the grid is too large to draw"
            ),
            &data,
        );
    }
    let max = u64::from(map.iter().copied().max().unwrap_or(0));
    let (ox, oy) = (20.0, 34.0);
    let (w, h) = (tw as f64 * px, th as f64 * px);
    let width = (ox + w + 190.0).max(640.0);
    let height = oy + h + 62.0;
    let mut svg = open_svg("divergence-map", width, height, &title, &data);
    text(&mut svg, 20.0, 16.0, "title", "start", &title);
    let threads = bx * by;
    // Large grids: one background for the warps that do not diverge, a cell (and tooltip)
    // only for those that do, so that the page stays small (a cell costs ~180 bytes).
    let every_warp = warps <= MAP_CELLS;
    if !every_warp {
        let _ = write!(
            svg,
            r#"<rect x="{ox}" y="{oy}" width="{w:.2}" height="{h:.2}" fill="{}" class="background"/>"#,
            heat(0, max.max(1))
        );
    }
    for b in 0..r.grid.count() {
        let (gx, gy) = (b % r.grid.x as u64, b / r.grid.x as u64);
        let (x0, y0) = (ox + (gx * bx) as f64 * px, oy + (gy * by) as f64 * px);
        for wi in 0..wpb as u64 {
            let d = u64::from(map[(b * wpb as u64 + wi) as usize]);
            if d == 0 && !every_warp {
                continue;
            }
            let (start, end) = (32 * wi, (32 * (wi + 1)).min(threads));
            for row in start / bx..=(end - 1) / bx {
                let a = start.max(row * bx) - row * bx;
                let z = end.min((row + 1) * bx) - row * bx;
                let _ = write!(
                    svg,
                    r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{px:.2}" fill="{}" class="warp"><title>block ({gx}, {gy}) warp {wi}: {d} divergent branches</title></rect>"##,
                    x0 + a as f64 * px,
                    y0 + row as f64 * px,
                    (z - a) as f64 * px,
                    heat(d, max),
                );
            }
        }
        let _ = write!(
            svg,
            r#"<rect x="{x0:.2}" y="{y0:.2}" width="{:.2}" height="{:.2}" class="block"/>"#,
            bx as f64 * px,
            by as f64 * px
        );
    }
    let mut legend_y = oy + 8.0;
    if let Some((dw, dh)) = domain {
        let (x1, y1) = (dw as f64 * px, dh as f64 * px);
        let _ = write!(
            svg,
            r#"<rect x="{ox}" y="{oy}" width="{x1:.2}" height="{y1:.2}" class="domain"/>"#
        );
        let _ = write!(
            svg,
            r#"<line x1="{:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}" class="domain"/>"#,
            ox + w + 16.0,
            ox + w + 36.0
        );
        text(
            &mut svg,
            ox + w + 42.0,
            legend_y + 4.0,
            "small",
            "start",
            &format!("data {dw} × {dh}"),
        );
        legend_y += 22.0;
    }
    let mut keys = vec![(0, "no divergence".to_string())];
    if max > 0 {
        keys.push((max, format!("{max} divergent")));
    }
    for (i, (v, label)) in keys.into_iter().enumerate() {
        let y = legend_y + i as f64 * 20.0;
        let _ = write!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="14" height="14" fill="{}" class="key"/>"#,
            ox + w + 16.0,
            y - 6.0,
            heat(v, max.max(1))
        );
        text(&mut svg, ox + w + 36.0, y + 5.0, "small", "start", &label);
    }
    text(
        &mut svg,
        20.0,
        oy + h + 20.0,
        "strong",
        "start",
        &format!("{diverging} of {warps} warps diverge ({total} divergent branches)"),
    );
    text(
        &mut svg,
        20.0,
        oy + h + 38.0,
        "small",
        "start",
        &format!(
            "grid {} of blocks {}: each cell is one warp at its threads' (x, y) positions, blocks outlined{}",
            r.grid,
            r.block,
            if every_warp {
                ""
            } else {
                "; only diverging warps are drawn as cells"
            }
        ),
    );
    svg.push_str("</svg>");
    svg
}

/// 1-D grids of at most 1024 blocks: blocks side by side (64 to a row), each a column of warps.
fn strip_map(r: &LaunchReport) -> String {
    let title = format!("Divergence map of {}: the warps of each block", r.name);
    let Some(map) = per_warp(r) else {
        return String::new();
    };
    let (diverging, warps, total) = map_numbers(r, &map);
    let data = format!(
        r#" data-divergent-warps="{diverging}" data-warps="{warps}" data-divergent-branches="{total}""#
    );
    let blocks = r.grid.count() as usize;
    let wpb = warps_per_block(r);
    let per_row = blocks.min(64);
    let cw = (900.0 / per_row as f64).clamp(6.0, 40.0);
    let ch = (60.0 / wpb as f64).clamp(3.0, 14.0);
    let rows = blocks.div_ceil(per_row);
    let (ox, oy) = (20.0, 34.0);
    let row_h = wpb as f64 * ch + 8.0;
    let height = oy + rows as f64 * row_h + 44.0;
    let width = (ox + per_row as f64 * cw + 20.0).max(640.0);
    let max = u64::from(map.iter().copied().max().unwrap_or(0));
    let mut svg = open_svg("divergence-map", width, height, &title, &data);
    text(&mut svg, 20.0, 16.0, "title", "start", &title);
    for b in 0..blocks {
        let x = ox + (b % per_row) as f64 * cw;
        let y = oy + (b / per_row) as f64 * row_h;
        for wi in 0..wpb {
            let d = u64::from(map[b * wpb + wi]);
            let _ = write!(
                svg,
                r#"<rect x="{x:.2}" y="{:.2}" width="{cw:.2}" height="{ch:.2}" fill="{}" class="warp"><title>block {b} warp {wi}: {d} divergent branches</title></rect>"#,
                y + wi as f64 * ch,
                heat(d, max)
            );
        }
        let _ = write!(
            svg,
            r#"<rect x="{x:.2}" y="{y:.2}" width="{cw:.2}" height="{:.2}" class="block"/>"#,
            wpb as f64 * ch
        );
    }
    let y = oy + rows as f64 * row_h;
    text(
        &mut svg,
        20.0,
        y + 14.0,
        "strong",
        "start",
        &format!("{diverging} of {warps} warps diverge ({total} divergent branches)"),
    );
    text(
        &mut svg,
        20.0,
        y + 30.0,
        "small",
        "start",
        &format!("{blocks} blocks of {wpb} warps: each column is a block, warp 0 on top"),
    );
    svg.push_str("</svg>");
    svg
}

/// Rows shown at most in the step table.
const MAX_STEP_ROWS: usize = 40;

/// Runs of at least this many steps of one branch that no warp diverged in share a row.
const QUIET_RUN: usize = 4;

/// Divergent branches by branch step (rows) and warp index (columns), summed over blocks, with
/// the totals per step and per warp index. Long runs of steps of one branch where no warp
/// diverges (a grid-stride loop's iterations) share a row.
fn steps(r: &LaunchReport, sources: &mut Sources) -> String {
    let s = &r.samples;
    let title = format!(
        "Divergence of {} by step: divergent branches per warp index, summed over {} blocks",
        r.name,
        r.grid.count()
    );
    let wpb = warps_per_block(r).max(1);
    let all = s.divergent_by_step.len();
    if all == 0 {
        return note(
            "divergence-steps",
            &title,
            "no lane-varying branch: every warp takes one path",
            r#" data-steps="0" data-divergent-steps="""#,
        );
    }
    let value = |k: usize, w: usize| s.divergent_by_step[k].get(w).copied().unwrap_or(0);
    let row_sum = |k: usize| (0..wpb).map(|w| value(k, w)).sum::<u64>();
    let site = |k: usize| s.step_sites.get(k).and_then(Option::as_ref);
    let divergent: Vec<usize> = (0..all).filter(|&k| row_sum(k) > 0).collect();
    // Rows: (first step, last step).
    let mut rows: Vec<(usize, usize)> = Vec::new();
    let mut k = 0;
    while k < all {
        let mut end = k;
        if row_sum(k) == 0 {
            while end + 1 < all && row_sum(end + 1) == 0 && site(end + 1) == site(k) {
                end += 1;
            }
            if end + 1 - k < QUIET_RUN {
                end = k;
            }
        }
        rows.push((k, end));
        k = end + 1;
    }
    let hidden = rows.len().saturating_sub(MAX_STEP_ROWS);
    rows.truncate(MAX_STEP_ROWS);
    let max = rows
        .iter()
        .flat_map(|&(k, _)| (0..wpb).map(move |w| (k, w)))
        .map(|(k, w)| value(k, w))
        .max()
        .unwrap_or(0);
    let cw = (34.0f64).min(640.0 / wpb as f64).max(14.0);
    let ch = 16.0;
    let label_w = 330.0;
    let (ox, oy) = (20.0 + label_w, 52.0);
    let width = (ox + (wpb + 1) as f64 * cw + 60.0).max(640.0);
    let height = oy + (rows.len() + 1) as f64 * ch + 58.0;
    let list = divergent
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let data = format!(r#" data-steps="{all}" data-divergent-steps="{list}""#);
    let mut svg = open_svg("divergence-steps", width, height, &title, &data);
    text(&mut svg, 20.0, 16.0, "title", "start", &title);
    text(
        &mut svg,
        20.0,
        32.0,
        "small",
        "start",
        "step k = the k-th lane-varying branch a warp evaluates (a loop's condition or if, per iteration)",
    );
    for w in 0..wpb {
        text(
            &mut svg,
            ox + w as f64 * cw + cw / 2.0,
            oy - 4.0,
            "small",
            "middle",
            &w.to_string(),
        );
    }
    text(&mut svg, ox - 8.0, oy - 4.0, "small", "end", "warp index →");
    text(
        &mut svg,
        ox + wpb as f64 * cw + cw / 2.0 + 6.0,
        oy - 4.0,
        "small",
        "middle",
        "Σ",
    );
    let wide = cw >= 30.0;
    for (row, &(k, end)) in rows.iter().enumerate() {
        let y = oy + row as f64 * ch;
        let src = site(k)
            .and_then(|p| sources.line(&p.file, p.line))
            .map(|t| {
                let t: String = t.chars().take(30).collect();
                format!(" {t}")
            })
            .unwrap_or_default();
        let steps = if end > k {
            format!("{k}–{end}")
        } else {
            k.to_string()
        };
        text(
            &mut svg,
            20.0,
            y + 12.0,
            "small mono",
            "start",
            &format!("{steps:>5} {}{src}", place(site(k))),
        );
        for w in 0..wpb {
            let v = value(k, w);
            let x = ox + w as f64 * cw;
            let what = if end > k {
                format!("steps {k}–{end}, warp {w}: no divergent branch")
            } else {
                format!("step {k}, warp {w}: {v} divergent branches")
            };
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch}" fill="{}" class="warp"><title>{what}</title></rect>"#,
                heat(v, max)
            );
            if v > 0 && (wide || v < 100) {
                let _ = write!(
                    svg,
                    r#"<text x="{:.1}" y="{:.1}" class="tiny" text-anchor="middle" fill="{}">{v}</text>"#,
                    x + cw / 2.0,
                    y + 12.0,
                    ink(v, max)
                );
            }
        }
        text(
            &mut svg,
            ox + wpb as f64 * cw + 8.0,
            y + 12.0,
            "small",
            "start",
            &row_sum(k).to_string(),
        );
    }
    let y = oy + rows.len() as f64 * ch;
    text(
        &mut svg,
        ox - 8.0,
        y + 12.0,
        "small",
        "end",
        "Σ per warp index",
    );
    for (w, v) in r.divergent_by_warp.iter().enumerate().take(wpb) {
        text(
            &mut svg,
            ox + w as f64 * cw + cw / 2.0,
            y + 12.0,
            "tiny",
            "middle",
            &v.to_string(),
        );
    }
    let total = r.counters.map_or(0, |c| c.divergent_branches);
    text(
        &mut svg,
        20.0,
        y + 34.0,
        "strong",
        "start",
        &format!(
            "{} of {all} step{} diverge{}{}; {total} divergent branch{} in all",
            divergent.len(),
            if all == 1 { "" } else { "s" },
            if divergent.len() == 1 { "s" } else { "" },
            if divergent.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} {})",
                    if divergent.len() == 1 {
                        "step"
                    } else {
                        "steps"
                    },
                    ranges(&divergent)
                )
            },
            if total == 1 { "" } else { "es" }
        ),
    );
    if hidden > 0 || all >= Samples::MAX_STEPS {
        text(
            &mut svg,
            20.0,
            y + 50.0,
            "small",
            "start",
            &format!(
                "{}the engine keeps the first {} steps of a block",
                if hidden > 0 {
                    format!("{hidden} more rows not shown; ")
                } else {
                    String::new()
                },
                Samples::MAX_STEPS
            ),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// `[0, 1, 2, 5, 7, 8]` as `0–2, 5, 7–8`.
fn ranges(v: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}–{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

/// The style the pictures need, for the page's `<style>`.
pub const STYLE: &str = r#"
svg.picture { background: #fff; border: 1px solid #e3e6ea; border-radius: 4px; }
svg.picture text { font-size: 12px; fill: #222; }
svg.picture text.title { font-weight: bold; font-size: 13px; }
svg.picture text.strong { font-weight: bold; }
svg.picture text.small { font-size: 10px; }
svg.picture text.tiny { font-size: 9px; }
svg.picture text.mono { font-family: ui-monospace, monospace; white-space: pre; }
svg.picture .lane { fill: #dbe7f3; stroke: #4a7fb5; }
svg.picture .lane.off { fill: #f3f3f3; stroke: #bbb; stroke-dasharray: 2 2; }
svg.picture .wire { stroke: #4a7fb5; stroke-width: 0.7; opacity: 0.7; }
svg.picture .sector { fill: #fff; stroke: #999; stroke-width: 0.8; }
svg.picture .sector.fetched { fill: #ffd8a8; }
svg.picture .line { fill: none; stroke: #333; stroke-width: 1.2; }
svg.picture .word { fill: #d9480f; }
svg.picture .cell { fill: #d0ebff; stroke: #fff; }
svg.picture .cell.shared { fill: #b2f2bb; }
svg.picture .cell.conflict { fill: #ff8787; }
svg.picture .cell.empty { fill: #f8f9fa; }
svg.picture .warp { stroke: #fff; stroke-width: 0.4; }
svg.picture .block { fill: none; stroke: #333; stroke-width: 0.8; }
svg.picture .key { stroke: #333; stroke-width: 0.6; }
svg.picture .domain { fill: none; stroke: #1c7ed6; stroke-width: 2; stroke-dasharray: 6 3; }
"#;
