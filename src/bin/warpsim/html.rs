//! The HTML reports: one self-contained page each (inline SVG, no external assets).
//!
//! `warpsim suite --report` gives one section per family, led by the picture that tells the
//! family's story (reductions and divergence: the divergence map; transposes and shared-memory
//! patterns: the banks; memory access: coalescing), then bar charts and a table.
//! `warpsim run K --report` gives one kernel's counters, every picture its run can draw, and the
//! per-line counters when `--lines` is on.

use crate::SuiteRow;
use crate::lines::{self, Sources};
use crate::svg::{self, escape};
use std::fmt::Write;
use warpsim::kernels::{Entry, Family, Outcome, Params};
use warpsim::{LaunchReport, Metrics, Profile};

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
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{w}" height="{height}" role="img" aria-label="{t}"><text x="0" y="16" class="title">{t}</text>"#,
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

/// Where a launch's predicted GPU time goes: each part of the roofline in µs, the limiter
/// marked (`None` in fast mode, which counts nothing to predict from).
fn predicted_chart(l: &LaunchReport) -> Option<String> {
    let p = l.predicted()?;
    let labels: Vec<String> = p
        .parts
        .iter()
        .map(|(k, _)| {
            let mark = if *k == p.limiter { "▶ " } else { "" };
            format!("{mark}{}", k.describe())
        })
        .collect();
    let bars: Vec<(&str, f64)> = labels
        .iter()
        .zip(&p.parts)
        .map(|(label, (_, ms))| (label.as_str(), ms * 1e3))
        .collect();
    Some(bar_chart(
        &format!(
            "Predicted on {}: {:.1} µs, limited by {}",
            l.profile.description,
            p.ms * 1e3,
            p.limiter.describe()
        ),
        &bars,
        None,
        |v| format!("{v:.1} µs"),
    ))
}

/// The pictures a report can draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Picture {
    Coalescing,
    Banks,
    Divergence,
}

impl Picture {
    /// The picture that tells `family`'s story.
    fn leading(family: Family) -> Picture {
        match family {
            Family::Reduction | Family::Divergence => Picture::Divergence,
            Family::Transpose | Family::SharedMemory => Picture::Banks,
            Family::MemoryAccess => Picture::Coalescing,
        }
    }
}

/// The extent of the data a 2-D kernel covers with one thread per element (outlined on its
/// divergence map): the image of the divergence family's 2-D kernels. (A transpose's thread
/// handles several rows, so its threads do not map onto its matrix.)
fn domain(entry: &Entry, p: &Params) -> Option<(u32, u32)> {
    (entry.family == Family::Divergence && entry.params.contains(&"width"))
        .then_some((p.width, p.height))
}

/// Picture `what` of launch `l`, if the launch has what it is drawn from.
fn picture(
    what: Picture,
    l: &LaunchReport,
    dom: Option<(u32, u32)>,
    sources: &mut Sources,
) -> Option<String> {
    let m = l.metrics();
    match what {
        Picture::Coalescing => l
            .samples
            .worst_global
            .as_ref()
            .map(|s| svg::coalescing(s, &l.profile, m.as_ref())),
        Picture::Banks => l
            .samples
            .worst_shared
            .as_ref()
            .map(|s| svg::banks(s, &l.profile, m.as_ref())),
        Picture::Divergence => {
            let c = l.counters?;
            (c.branches > 0).then(|| svg::divergence(l, dom, sources))
        }
    }
}

fn figure(out: &mut String, caption: &str, body: &str) {
    let _ = write!(
        out,
        "<figure><figcaption>{caption}</figcaption>{body}</figure>"
    );
}

/// One family's story, in a sentence over its pictures.
fn story(family: Family) -> &'static str {
    match family {
        Family::Reduction => {
            "Which tree steps diverge, per warp of a block: the interleaved tree (Fig 5.13, \
             t % (2·stride) == 0) leaves every warp half idle at each of its first steps, the \
             sequential tree (Fig 5.15, t < stride) keeps whole warps together until the stride \
             drops below 32."
        }
        Family::Transpose => {
            "Where one warp's shared-memory access lands in the 32 banks: reading a column of \
             tile[32][32] sends all 32 words to one bank (32 wavefronts); the padded \
             tile[32][33] spreads them over all 32 banks. Kernels without a tile show their \
             costliest global access instead."
        }
        Family::MemoryAccess => {
            "Where one warp's 32 addresses fall among 32-byte sectors: at an offset of 11 floats \
             the warp straddles five sectors instead of four; an array of structs touches twice \
             the sectors a struct of arrays does."
        }
        Family::Divergence => {
            "Which warps diverge: those whose threads straddle the data's edge (the last warp of \
             vector-add, the border warps of rgb-to-gray's image), or every warp when the \
             condition depends on the lane."
        }
        Family::SharedMemory => {
            "Where the pattern's addresses fall into the banks, and how many wavefronts that \
             costs."
        }
    }
}

fn style() -> String {
    format!(
        r#"
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
h1 {{ font-size: 1.4em; }} h2 {{ font-size: 1.15em; border-bottom: 1px solid #ccc; }}
h3 {{ font-size: 1em; margin-top: 1.5em; }}
.charts, .pictures {{ display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }}
figure {{ margin: 0; }} figcaption {{ font-size: 0.9em; margin-bottom: 0.3em; }}
svg.chart text {{ font-size: 12px; fill: #222; }} svg.chart .title {{ font-weight: bold; font-size: 13px; }}
svg.chart .bar {{ fill: #4a7fb5; }}
p.story {{ max-width: 60em; color: #444; }}
table {{ border-collapse: collapse; margin-top: 1em; font-size: 0.9em; }}
td, th {{ border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
td code {{ white-space: pre; }}
{}
"#,
        svg::STYLE
    )
}

fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>{style}</style></head><body>
{body}
</body></html>
"#,
        title = escape(title),
        style = style(),
    )
}

/// A picture for comparison, shown after the named kernel's (read-offset at offset 0 next to
/// the suite's offset 11, as document 001 draws them).
pub struct Extra {
    /// The kernel whose picture it follows.
    pub after: &'static str,
    /// Its caption (HTML-escaped here).
    pub caption: String,
    /// The launch it is drawn from.
    pub launch: LaunchReport,
}

/// The suite's page; `extras` adds comparison pictures.
pub fn report(profile: &Profile, rows: &[SuiteRow], extras: &[Extra]) -> String {
    let mut sources = Sources::default();
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
            "<section><h2>{}</h2><p class=\"story\">{}</p><div class=\"pictures\">",
            escape(family.title()),
            escape(story(family))
        );
        // The leading picture of every member that has one, then the others' global access.
        let lead = Picture::leading(family);
        let mut without = Vec::new();
        for r in &members {
            let l = &r.counted.launches[0];
            let dom = domain(&r.entry, &r.entry.defaults);
            match picture(lead, l, dom, &mut sources) {
                Some(p) => figure(
                    &mut body,
                    &format!(
                        "<b>{}</b>: {}",
                        escape(r.entry.name),
                        escape(r.entry.summary)
                    ),
                    &p,
                ),
                None => without.push(*r),
            }
            for x in extras.iter().filter(|x| x.after == r.entry.name) {
                if let Some(p) = picture(lead, &x.launch, dom, &mut sources) {
                    figure(&mut body, &escape(&x.caption), &p);
                }
            }
        }
        if lead != Picture::Coalescing {
            for r in without {
                if let Some(p) = picture(
                    Picture::Coalescing,
                    &r.counted.launches[0],
                    None,
                    &mut sources,
                ) {
                    figure(
                        &mut body,
                        &format!(
                            "<b>{}</b>: {}",
                            escape(r.entry.name),
                            escape(r.entry.summary)
                        ),
                        &p,
                    );
                }
            }
        }
        body.push_str("</div><div class=\"charts\">");
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
        body.push_str(&bar_chart(
            &format!("Predicted GPU time on {}", profile.description),
            &series(&|i| members[i].predicted_us().unwrap_or(0.0)),
            None,
            |v| format!("{v:.1} µs"),
        ));
        // Where each kernel's predicted GPU time goes (its first launch), limiter marked.
        for r in &members {
            if let Some(chart) = predicted_chart(&r.counted.launches[0]) {
                let _ = write!(body, "<div><b>{}</b>{chart}</div>", escape(r.entry.name));
            }
        }
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
    page(
        "warpsim suite report",
        &format!(
            "<h1>warpsim suite: {kernels} kernels on {profile} ({desc})</h1>\n<p>Counters and \
             pictures from a counting run of each kernel at its default size; CPU times from a \
             fast-mode run. Every output was checked against its CPU reference. Each picture \
             shows one warp's access or the divergence of the kernel's first launch; hover a \
             cell for its details.</p>\n{body}",
            kernels = rows.len(),
            profile = escape(profile.name),
            desc = escape(profile.description),
        ),
    )
}

/// One launch's metrics as a two-column table.
fn metrics_table(out: &mut String, m: &Metrics) {
    out.push_str("<table><tr><th>metric</th><th>value</th></tr>");
    for (name, v) in m.entries() {
        let _ = write!(out, "<tr><td>{name}</td><td class=\"num\">{v}</td></tr>");
    }
    out.push_str("</table>");
}

/// One launch's per-line counters as a table (the text table's columns).
fn lines_table(out: &mut String, l: &LaunchReport, sources: &mut Sources) {
    let _ = write!(out, "<h3>{}</h3>", escape(&lines::heading(&l.lines)));
    let t = lines::table(&l.lines, sources);
    let mut rows = t.rows().iter();
    out.push_str("<table>");
    if let Some(header) = rows.next() {
        out.push_str("<tr>");
        for h in header {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr>");
    }
    for row in rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i == 1 {
                let _ = write!(out, "<td><code>{}</code></td>", escape(cell));
            } else {
                let _ = write!(out, "<td class=\"num\">{}</td>", escape(cell));
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// What the page of one run shows besides the outcome.
pub struct RunPage<'a> {
    /// The catalogue entry.
    pub entry: &'a Entry,
    /// Its parameters.
    pub params: &'a Params,
    /// The parameters as `name=value` text.
    pub params_text: String,
    /// The device's profile.
    pub profile: &'a Profile,
    /// The run.
    pub outcome: &'a Outcome,
}

/// The page of one run (`warpsim run K --report FILE`).
pub fn run_report(page_of: &RunPage<'_>) -> String {
    let RunPage {
        entry,
        params,
        profile,
        outcome,
        ..
    } = page_of;
    let mut sources = Sources::default();
    let mut body = format!(
        "<h1>warpsim run {name} on {profile} ({desc})</h1><p>{summary}</p><p>parameters: \
         <code>{params}</code>; output {verified}: {detail}; {launches} launch{es}.</p>",
        name = escape(entry.name),
        profile = escape(profile.name),
        desc = escape(profile.description),
        summary = escape(entry.summary),
        params = escape(&page_of.params_text),
        verified = if outcome.verified {
            "verified"
        } else {
            "<b>WRONG</b>"
        },
        detail = escape(&outcome.detail),
        launches = outcome.launches.len(),
        es = if outcome.launches.len() == 1 {
            ""
        } else {
            "es"
        },
    );
    if let Some(first) = outcome.launches.first() {
        let lead = Picture::leading(entry.family);
        let mut order = vec![lead];
        order.extend(
            [Picture::Coalescing, Picture::Banks, Picture::Divergence]
                .into_iter()
                .filter(|p| *p != lead),
        );
        let _ = write!(
            body,
            "<h2>Pictures of launch 0 ({})</h2><div class=\"pictures\">",
            escape(&first.name)
        );
        let mut any = false;
        for what in order {
            if let Some(p) = picture(what, first, domain(entry, params), &mut sources) {
                body.push_str(&p);
                any = true;
            }
        }
        if !any {
            body.push_str("<p>This launch made no global or shared access and no branch.</p>");
        }
        body.push_str("</div>");
    }
    for (i, l) in outcome.launches.iter().enumerate() {
        let _ = write!(
            body,
            "<section><h2>Launch {i}: {} (grid {}, block {}, {} B shared)</h2>",
            escape(&l.name),
            l.grid,
            l.block,
            l.shared_bytes
        );
        if let Some(chart) = predicted_chart(l) {
            body.push_str(&chart);
        }
        if !l.lines.is_empty() {
            lines_table(&mut body, l, &mut sources);
        }
        if let Some(m) = l.metrics() {
            metrics_table(&mut body, &m);
        }
        body.push_str("</section>");
    }
    page(&format!("warpsim run {}", entry.name), &body)
}

/// The page of a whole program (`warpsim cu FILE... --report FILE`): per kernel, the pictures of
/// its first launch and the metrics of all its launches together.
pub fn program_report(
    title: &str,
    profile: &Profile,
    launches: &[warpsim::cuda::host::Launch],
) -> String {
    let mut sources = Sources::default();
    let mut body = format!(
        "<h1>warpsim cu {} on {} ({})</h1><p>{} launch{}.</p>",
        escape(title),
        escape(profile.name),
        escape(profile.description),
        launches.len(),
        if launches.len() == 1 { "" } else { "es" }
    );
    let mut kernels: Vec<&str> = Vec::new();
    for l in launches {
        if !kernels.contains(&l.kernel.as_str()) {
            kernels.push(&l.kernel);
        }
    }
    for k in kernels {
        let mine: Vec<&LaunchReport> = launches
            .iter()
            .filter(|l| l.kernel == k)
            .map(|l| &l.report)
            .collect();
        let first = mine[0];
        let _ = write!(
            body,
            "<section><h2>{} ({} launch{}; the first: grid {}, block {}, {} B shared)</h2>\
             <div class=\"pictures\">",
            escape(k),
            mine.len(),
            if mine.len() == 1 { "" } else { "es" },
            first.grid,
            first.block,
            first.shared_bytes
        );
        let mut any = false;
        for what in [Picture::Coalescing, Picture::Banks, Picture::Divergence] {
            if let Some(p) = picture(what, first, None, &mut sources) {
                body.push_str(&p);
                any = true;
            }
        }
        if !any {
            body.push_str("<p>No global or shared access and no branch to draw.</p>");
        }
        body.push_str("</div>");
        if let Some(chart) = predicted_chart(first) {
            body.push_str(&chart);
        }
        if !first.lines.is_empty() {
            lines_table(&mut body, first, &mut sources);
        }
        let mut total = warpsim::Counters::default();
        let mut counted = false;
        for l in &mine {
            if let Some(c) = &l.counters {
                total += c;
                counted = true;
            }
        }
        if counted {
            metrics_table(&mut body, &Metrics::new(&total, profile));
        }
        body.push_str("</section>");
    }
    page(&format!("warpsim cu {title}"), &body)
}
