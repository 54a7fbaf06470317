//! Plain-text tables, and the suite's per-family columns.

use crate::SuiteRow;
use std::fmt;
use warpsim::kernels::Family;

/// A table with a header row, printed with columns padded to their widest cell.
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            rows: vec![header.iter().map(|s| s.to_string()).collect()],
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The header row, then the rows.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let width: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for (i, row) in self.rows.iter().enumerate() {
            let line: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(c, s)| format!("{s:<w$}", w = width[c]))
                .collect();
            writeln!(f, "  {}", line.join("  ").trim_end())?;
            if i == 0 {
                let rule: Vec<String> = width.iter().map(|&w| "-".repeat(w)).collect();
                writeln!(f, "  {}", rule.join("  "))?;
            }
        }
        Ok(())
    }
}

fn per(a: u64, b: u64) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
}

fn pct(p: f64) -> String {
    format!("{p:.1}")
}

/// The suite's table for one family: the columns that tell that family's story.
pub fn family_table(family: Family, rows: &[&SuiteRow]) -> Table {
    let header: &[&str] = match family {
        Family::Reduction => &[
            "kernel",
            "launches",
            "ms",
            "GB/s",
            "inst/elem",
            "branch eff %",
            "divergent",
            "warp eff %",
            "smem conflicts/req",
            "ok",
        ],
        Family::Transpose => &[
            "kernel",
            "grid x block",
            "ms",
            "GB/s",
            "ld eff %",
            "st eff %",
            "ld sect/req",
            "st sect/req",
            "smem wavefronts/req",
            "smem conflicts",
            "ok",
        ],
        Family::MemoryAccess => &[
            "kernel",
            "params",
            "ms",
            "GB/s",
            "ld eff %",
            "st eff %",
            "ld sect/req",
            "st sect/req",
            "ok",
        ],
        Family::Divergence => &[
            "kernel",
            "params",
            "ms",
            "warps",
            "branches",
            "divergent",
            "branch eff %",
            "warp eff %",
            "inst/elem",
            "ok",
        ],
        Family::SharedMemory => &[
            "kernel",
            "params",
            "ms",
            "ld req",
            "ld wavefronts/req",
            "st req",
            "st wavefronts/req",
            "conflicts",
            "ok",
        ],
    };
    // Every family's third column is the CPU time; the predicted GPU time goes beside it.
    let mut header = header.to_vec();
    header.insert(3, "GPU µs");
    let mut t = Table::new(&header);
    for r in rows {
        let m = r.metrics();
        let warps = r.counters().warps_launched;
        let first = &r.counted.launches[0];
        let ms = format!("{:.2}", r.fast_time.as_secs_f64() * 1e3);
        let gbps = format!("{:.2}", r.gbps());
        let ok = if r.counted.verified { "yes" } else { "NO" }.to_string();
        let name = r.entry.name.to_string();
        let p = &r.entry.defaults;
        let cells = match family {
            Family::Reduction => vec![
                name,
                r.counted
                    .launches
                    .iter()
                    .map(|l| format!("{}x{}", l.grid.x, l.block.x))
                    .collect::<Vec<_>>()
                    .join(" + "),
                ms,
                gbps,
                per(m.warp_instructions, r.counted.elements),
                pct(m.branch_efficiency),
                m.divergent_branches.to_string(),
                pct(m.warp_execution_efficiency),
                per(
                    m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts,
                    m.shared_ld_requests + m.shared_st_requests,
                ),
                ok,
            ],
            Family::Transpose => vec![
                name,
                format!(
                    "{}x{} x {}x{}",
                    first.grid.x, first.grid.y, first.block.x, first.block.y
                ),
                ms,
                gbps,
                pct(m.gld_efficiency),
                pct(m.gst_efficiency),
                per(m.gld_sectors, m.gld_requests),
                per(m.gst_sectors, m.gst_requests),
                per(
                    m.shared_ld_wavefronts + m.shared_st_wavefronts,
                    m.shared_ld_requests + m.shared_st_requests,
                ),
                (m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts).to_string(),
                ok,
            ],
            Family::MemoryAccess => vec![
                name,
                format!("n={} block={} offset={}", p.n, p.block.x, p.offset),
                ms,
                gbps,
                pct(m.gld_efficiency),
                pct(m.gst_efficiency),
                per(m.gld_sectors, m.gld_requests),
                per(m.gst_sectors, m.gst_requests),
                ok,
            ],
            Family::Divergence => vec![
                name,
                if p.block.y > 1 {
                    format!("{}x{} block {}x{}", p.width, p.height, p.block.x, p.block.y)
                } else {
                    format!("n={} block={}", p.n, p.block.x)
                },
                ms,
                warps.to_string(),
                m.branches.to_string(),
                m.divergent_branches.to_string(),
                pct(m.branch_efficiency),
                pct(m.warp_execution_efficiency),
                per(m.warp_instructions, r.counted.elements),
                ok,
            ],
            Family::SharedMemory => vec![
                name,
                format!(
                    "{:?} c={} {}B {:?} x{}",
                    p.pattern, p.c, p.elem_bytes, p.op, p.iters
                )
                .to_lowercase(),
                ms,
                m.shared_ld_requests.to_string(),
                per(m.shared_ld_wavefronts, m.shared_ld_requests),
                m.shared_st_requests.to_string(),
                per(m.shared_st_wavefronts, m.shared_st_requests),
                (m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts).to_string(),
                ok,
            ],
        };
        let mut cells = cells;
        cells.insert(
            3,
            r.predicted_us()
                .map_or_else(|| "-".to_string(), |us| format!("{us:.1}")),
        );
        t.row(cells);
    }
    t
}
