//! Per-source-line counters (`warpsim run K --lines`): the table, its JSON, and the source text
//! of each line.

use crate::table::Table;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use warpsim::{Counters, LineCounters};

/// Source files read so far (by the name the compiler gave them), `None` where not found.
#[derive(Default)]
pub struct Sources {
    files: HashMap<String, Option<Vec<String>>>,
}

impl Sources {
    /// Where `file` may be: as given (relative to the current directory), or relative to the
    /// crate the binary was built from.
    fn candidates(file: &str) -> Vec<PathBuf> {
        let p = Path::new(file);
        if p.is_absolute() {
            vec![p.to_path_buf()]
        } else {
            vec![
                p.to_path_buf(),
                Path::new(env!("CARGO_MANIFEST_DIR")).join(p),
            ]
        }
    }

    /// The text of `line` (from 1) of `file`, trimmed, if the file can be found.
    pub fn line(&mut self, file: &str, line: u32) -> Option<String> {
        if file.is_empty() || line == 0 {
            return None;
        }
        let lines = self.files.entry(file.to_string()).or_insert_with(|| {
            Self::candidates(file)
                .iter()
                .find_map(|p| std::fs::read_to_string(p).ok())
                .map(|text| text.lines().map(str::to_string).collect())
        });
        lines
            .as_ref()?
            .get(line as usize - 1)
            .map(|l| l.trim().to_string())
    }
}

/// Global requests (loads and stores) of `c`.
fn global_requests(c: &Counters) -> u64 {
    c.gld_requests + c.gst_requests
}

/// Global sectors (loads and stores) of `c`.
fn global_sectors(c: &Counters) -> u64 {
    c.gld_sectors + c.gst_sectors
}

fn shared_wavefronts(c: &Counters) -> u64 {
    c.shared_ld_wavefronts + c.shared_st_wavefronts
}

fn bank_conflicts(c: &Counters) -> u64 {
    (c.shared_ld_wavefronts - c.shared_ld_ideal) + (c.shared_st_wavefronts - c.shared_st_ideal)
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b != 0).then(|| a as f64 / b as f64)
}

/// `kernels/reduction.rs` → `reduction.rs`.
fn short(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

/// At most `max` characters of `s`, with an ellipsis when cut.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// Whether a line's counters show anything in the table (the unattributed entry usually holds
/// only the warps launched).
fn shows_anything(c: &Counters) -> bool {
    c.warp_instructions != 0
        || c.branches != 0
        || global_requests(c) != 0
        || shared_wavefronts(c) != 0
        || c.atomic_requests != 0
        || c.barriers != 0
}

/// The table of one launch's lines.
pub fn table(lines: &[LineCounters], sources: &mut Sources) -> Table {
    let files: std::collections::BTreeSet<&str> = lines
        .iter()
        .filter(|l| !l.file.is_empty())
        .map(|l| short(&l.file))
        .collect();
    let many_files = files.len() > 1;
    let mut t = Table::new(&[
        "line",
        "source",
        "warp inst",
        "div / branches",
        "global req",
        "sectors/req",
        "smem wavefronts",
        "bank conflicts",
    ]);
    for l in lines.iter().filter(|l| shows_anything(&l.counters)) {
        let c = &l.counters;
        let at = if l.file.is_empty() {
            "-".to_string()
        } else if many_files {
            format!("{}:{}", short(&l.file), l.line)
        } else {
            l.line.to_string()
        };
        let source = if l.file.is_empty() {
            "(not attributed to a line)".to_string()
        } else {
            sources
                .line(&l.file, l.line)
                .map(|s| clip(&s, 60))
                .unwrap_or_default()
        };
        let dash = |v: u64| {
            if v == 0 {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        t.row(vec![
            at,
            source,
            c.warp_instructions.to_string(),
            if c.branches == 0 {
                "-".to_string()
            } else {
                format!("{} / {}", c.divergent_branches, c.branches)
            },
            dash(global_requests(c)),
            ratio(global_sectors(c), global_requests(c))
                .map_or_else(|| "-".to_string(), |r| format!("{r:.2}")),
            dash(shared_wavefronts(c)),
            dash(bank_conflicts(c)),
        ]);
    }
    t
}

/// The heading over a launch's table: which file its lines are in.
pub fn heading(lines: &[LineCounters]) -> String {
    let files: std::collections::BTreeSet<String> = lines
        .iter()
        .filter(|l| !l.file.is_empty())
        .map(|l| l.file.clone())
        .collect();
    match files.len() {
        0 => "per source line: no line issued an operation".to_string(),
        1 => format!(
            "per source line of {}:",
            files.into_iter().next().unwrap_or_default()
        ),
        _ => "per source line:".to_string(),
    }
}

/// One line as JSON: `file`, `line`, `source` (the text, or null) and its counts; the counts of
/// a launch's lines add up to the launch's counters.
pub fn line_json(l: &LineCounters, sources: &mut Sources) -> Value {
    let c = &l.counters;
    json!({
        "file": l.file,
        "line": l.line,
        "source": sources.line(&l.file, l.line),
        "warp_instructions": c.warp_instructions,
        "thread_instructions": c.thread_instructions,
        "branches": c.branches,
        "divergent_branches": c.divergent_branches,
        "global_requests": global_requests(c),
        "global_sectors": global_sectors(c),
        "sectors_per_request": ratio(global_sectors(c), global_requests(c))
            .map(|r| (r * 1000.0).round() / 1000.0),
        "gld_requests": c.gld_requests,
        "gld_sectors": c.gld_sectors,
        "gst_requests": c.gst_requests,
        "gst_sectors": c.gst_sectors,
        "shared_requests": c.shared_ld_requests + c.shared_st_requests,
        "shared_wavefronts": shared_wavefronts(c),
        "bank_conflicts": bank_conflicts(c),
        "atomic_requests": c.atomic_requests,
        "barriers": c.barriers,
        "warps_launched": c.warps_launched,
    })
}
