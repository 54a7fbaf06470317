//! The suite's HTML report: one self-contained page, inline SVG bar charts per family.

use crate::SuiteRow;
use std::fmt::Write;
use warpsim::Profile;
use warpsim::kernels::Family;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A horizontal bar chart of `(label, value)` with values formatted by `fmt`.
fn bar_chart(
    title: &str,
    bars: &[(&str, f64)],
    fixed_max: Option<f64>,
    fmt: impl Fn(f64) -> String,
) -> String {
    const LABEL: f64 = 210.0;
    const WIDTH: f64 = 300.0;
    const ROW: f64 = 22.0;
    let max = fixed_max
        .unwrap_or_else(|| bars.iter().map(|b| b.1).fold(0.0, f64::max))
        .max(1e-9);
    let height = 28.0 + ROW * bars.len() as f64;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" role="img" aria-label="{t}"><text x="0" y="16" class="title">{t}</text>"#,
        w = LABEL + WIDTH + 80.0,
        t = escape(title)
    );
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = 26.0 + ROW * i as f64;
        let len = (v / max * WIDTH).clamp(0.0, WIDTH);
        let _ = write!(
            svg,
            r#"<text x="{lx}" y="{ty}" text-anchor="end">{label}</text><rect x="{LABEL}" y="{y}" width="{len:.1}" height="{h}" class="bar"/><text x="{vx:.1}" y="{ty}">{value}</text>"#,
            lx = LABEL - 6.0,
            ty = y + 14.0,
            label = escape(label),
            h = ROW - 6.0,
            vx = LABEL + len + 4.0,
            value = escape(&fmt(*v)),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The whole page.
pub fn report(profile: &Profile, rows: &[SuiteRow]) -> String {
    let mut body = String::new();
    for family in Family::ALL {
        let members: Vec<&SuiteRow> = rows.iter().filter(|r| r.entry.family == family).collect();
        let names: Vec<&str> = members.iter().map(|r| r.entry.name).collect();
        let metrics: Vec<_> = members.iter().map(|r| r.metrics()).collect();
        let series = |f: &dyn Fn(usize) -> f64| -> Vec<(&str, f64)> {
            names.iter().enumerate().map(|(i, n)| (*n, f(i))).collect()
        };
        let pct = |v: f64| format!("{v:.1} %");
        let _ = write!(
            body,
            "<section><h2>{}</h2><div class=\"charts\">",
            escape(family.title())
        );
        body.push_str(&bar_chart(
            "Global load efficiency",
            &series(&|i| metrics[i].gld_efficiency),
            Some(100.0),
            pct,
        ));
        body.push_str(&bar_chart(
            "Global store efficiency",
            &series(&|i| metrics[i].gst_efficiency),
            Some(100.0),
            pct,
        ));
        body.push_str(&bar_chart(
            "Bank conflicts per shared request",
            &series(&|i| {
                let m = &metrics[i];
                let req = m.shared_ld_requests + m.shared_st_requests;
                if req == 0 {
                    0.0
                } else {
                    (m.shared_ld_bank_conflicts + m.shared_st_bank_conflicts) as f64 / req as f64
                }
            }),
            None,
            |v| format!("{v:.2}"),
        ));
        body.push_str(&bar_chart(
            "Branch efficiency",
            &series(&|i| metrics[i].branch_efficiency),
            Some(100.0),
            pct,
        ));
        body.push_str(&bar_chart(
            "Warp execution efficiency",
            &series(&|i| metrics[i].warp_execution_efficiency),
            Some(100.0),
            pct,
        ));
        body.push_str(&bar_chart(
            "CPU time, fast mode",
            &series(&|i| members[i].fast_time.as_secs_f64() * 1e3),
            None,
            |v| format!("{v:.2} ms"),
        ));
        body.push_str(
            "</div><table><tr><th>kernel</th><th>verified</th><th>launches</th><th>what</th></tr>",
        );
        for r in &members {
            let launches: Vec<String> = r
                .counted
                .launches
                .iter()
                .map(|l| format!("{} × {}", l.grid, l.block))
                .collect();
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(r.entry.name),
                if r.counted.verified {
                    "yes"
                } else {
                    "<b>NO</b>"
                },
                escape(&launches.join(", ")),
                escape(r.entry.summary)
            );
        }
        body.push_str("</table></section>");
    }
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>warpsim suite report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
h1 {{ font-size: 1.4em; }} h2 {{ font-size: 1.15em; border-bottom: 1px solid #ccc; }}
.charts {{ display: flex; flex-wrap: wrap; gap: 1.5em; }}
svg text {{ font-size: 12px; fill: #222; }} svg .title {{ font-weight: bold; font-size: 13px; }}
svg .bar {{ fill: #4a7fb5; }}
table {{ border-collapse: collapse; margin-top: 1em; font-size: 0.9em; }}
td, th {{ border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; }}
</style></head><body>
<h1>warpsim suite: {kernels} kernels on {profile} ({desc})</h1>
<p>Counters from a counting run of each kernel at its default size; CPU times from a fast-mode run. Every output was checked against its CPU reference.</p>
{body}
</body></html>
"#,
        kernels = rows.len(),
        profile = escape(profile.name),
        desc = escape(profile.description),
    )
}
