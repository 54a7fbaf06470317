//! The HTML reports' pictures (`warpsim run K --report`, `warpsim suite --report`): each SVG
//! exists, is drawn from the run's samples, and carries the numbers the counters give —
//! 001's coalescing figures (read-offset at offsets 0 and 11, AoS vs SoA), 004's banks under a
//! transpose tile's column (with and without padding), 002's divergence map of the 76 × 62
//! image (31 of 160 warps) and the reductions' steps (Fig 5.13 vs 5.15).

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use warpsim::kernels::{self, Family};

/// A report file in the test's temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str) -> TempFile {
        TempFile(
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("report-{tag}-{}.html", std::process::id())),
        )
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Run `warpsim args --report FILE` (plus `--json` for `run`): the page and the JSON.
fn report(args: &[&str]) -> (String, Option<Value>) {
    let file = TempFile::new(&args.join("-").replace(['/', ' '], "_"));
    let run = args[0] == "run";
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--report", file.path()]);
    if run {
        all.push("--json");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .args(&all)
        .stdin(Stdio::null())
        .output()
        .expect("warpsim starts");
    assert!(
        out.status.success(),
        "`warpsim {}` failed:\n{}",
        all.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&file.0).expect("the report was written");
    check_page(&html);
    let json = run.then(|| serde_json::from_slice(&out.stdout).expect("JSON on stdout"));
    (html, json)
}

/// A self-contained page: balanced elements, nothing fetched from elsewhere.
fn check_page(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    let count = |s: &str| html.matches(s).count();
    assert_eq!(count("<svg"), count("</svg>"), "unbalanced <svg>");
    assert_eq!(count("<table"), count("</table>"), "unbalanced <table>");
    for external in [
        "<script", "<link", "<img", "src=", "href=", "url(", "@import",
    ] {
        assert!(!html.contains(external), "the page refers to {external}");
    }
    assert_eq!(
        count("http"),
        count("xmlns=\"http://www.w3.org/2000/svg\""),
        "an address other than SVG's namespace"
    );
    assert!(!html.contains("NaN") && !html.contains("inf %"));
}

/// Every `<svg>…</svg>` of `class` (`picture coalescing`, …) in `html`.
fn svgs<'a>(html: &'a str, class: &str) -> Vec<&'a str> {
    let needle = format!("class=\"picture {class}\"");
    html.match_indices("<svg")
        .map(|(i, _)| &html[i..i + html[i..].find("</svg>").expect("closed") + 6])
        .filter(|s| s[..s.find('>').unwrap()].contains(&needle))
        .collect()
}

/// The one picture of `class`.
#[track_caller]
fn one<'a>(html: &'a str, class: &str) -> &'a str {
    let all = svgs(html, class);
    assert_eq!(all.len(), 1, "pictures of class {class}: {}", all.len());
    all[0]
}

/// The value of `data-NAME` on the picture's `<svg>`.
#[track_caller]
fn data<'a>(svg: &'a str, name: &str) -> &'a str {
    let head = &svg[..svg.find('>').unwrap()];
    let key = format!("data-{name}=\"");
    let at = head
        .find(&key)
        .unwrap_or_else(|| panic!("no data-{name} in {head}"))
        + key.len();
    &head[at..at + head[at..].find('"').unwrap()]
}

/// Elements with exactly `class="class"`.
fn with_class(svg: &str, class: &str) -> usize {
    svg.matches(&format!("class=\"{class}\"")).count()
}

/// The `<title>` texts inside the picture.
fn titles(svg: &str) -> Vec<&str> {
    svg.match_indices("<title>")
        .map(|(i, _)| {
            let s = &svg[i + 7..];
            &s[..s.find("</title>").unwrap()]
        })
        .collect()
}

fn metric(json: &Value, launch: usize, name: &str) -> f64 {
    json["launches"][launch]["metrics"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no metric {name}"))
}

#[test]
fn coalescing_picture_carries_the_efficiency() {
    // (kernel and flags, sectors, efficiency of the pictured access, the metric to compare)
    let cases: [(&[&str], u64, &str, &str); 6] = [
        (
            &["read-offset", "--offset", "0"],
            4,
            "100.0",
            "gld_efficiency",
        ),
        (
            &["read-offset", "--offset", "11"],
            5,
            "80.0",
            "gld_efficiency",
        ),
        (
            &["write-offset", "--offset", "11"],
            5,
            "80.0",
            "gst_efficiency",
        ),
        (&["aos"], 8, "50.0", "gld_efficiency"),
        (&["soa"], 4, "100.0", "gld_efficiency"),
        (
            &["read-offset", "--offset", "11", "--device", "sm_20"],
            5,
            "50.0",
            "gld_efficiency",
        ),
    ];
    for (args, sectors, efficiency, metric_name) in cases {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        all.extend(["--n", "4096"]);
        let (html, json) = report(&all);
        let json = json.unwrap();
        let svg = one(&html, "coalescing");
        let what = args.join(" ");
        assert_eq!(data(svg, "sectors"), sectors.to_string(), "{what}");
        assert_eq!(data(svg, "requested"), "128", "{what}");
        assert_eq!(data(svg, "efficiency"), efficiency, "{what}");
        let fetched: u64 = data(svg, "fetched").parse().unwrap();
        assert_eq!(
            format!("{:.1}", 12800.0 / fetched as f64),
            efficiency,
            "{what}: requested / fetched"
        );
        assert!(
            svg.contains(&format!(
                "128 B requested / {fetched} B fetched = {efficiency} % efficiency"
            )),
            "{what}: the efficiency is not printed"
        );
        // Drawn: 32 lanes, 32 requested words, the touched sectors shaded (every sector of a
        // touched line on an L1-caching profile).
        assert_eq!(with_class(svg, "lane"), 32, "{what}");
        assert_eq!(
            with_class(svg, "word"),
            32 + 1,
            "{what}: words and the legend's"
        );
        let lines: u64 = data(svg, "lines").parse().unwrap();
        let shaded = if args.contains(&"sm_20") {
            4 * lines
        } else {
            sectors
        };
        assert_eq!(
            with_class(svg, "sector fetched") as u64,
            shaded + 1,
            "{what}: shaded sectors and the legend's"
        );
        assert_eq!(with_class(svg, "line") as u64, lines, "{what}");
        // The whole launch's efficiency, as the counters give it.
        let kernel = format!("{:.1}", metric(&json, 0, metric_name));
        assert_eq!(data(svg, "kernel-efficiency"), kernel, "{what}");
        assert!(
            svg.contains(&format!("{metric_name} {kernel} %")),
            "{what}: the launch's {metric_name} is not printed"
        );
    }
}

#[test]
fn banks_picture_counts_the_wavefronts() {
    // (kernel and flags, wavefronts, ideal, distinct words)
    let cases: [(&[&str], u64, u64, usize); 4] = [
        (
            &["transpose-coalesced", "--width", "64", "--height", "64"],
            32,
            1,
            32,
        ),
        (
            &["transpose-no-conflicts", "--width", "64", "--height", "64"],
            1,
            1,
            32,
        ),
        (
            &["smem-pattern", "--pattern", "stride", "--c", "2"],
            2,
            1,
            32,
        ),
        (
            &[
                "smem-pattern",
                "--pattern",
                "stride",
                "--c",
                "1",
                "--elem-bytes",
                "8",
            ],
            2,
            2,
            64,
        ),
    ];
    for (args, wavefronts, ideal, words) in cases {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        let (html, json) = report(&all);
        let json = json.unwrap();
        let svg = one(&html, "banks");
        let what = args.join(" ");
        assert_eq!(data(svg, "wavefronts"), wavefronts.to_string(), "{what}");
        assert_eq!(data(svg, "ideal"), ideal.to_string(), "{what}");
        assert_eq!(data(svg, "banks"), "32", "{what}");
        assert!(
            svg.contains(&format!(
                "this access: {wavefronts} wavefront{}, ideal {ideal}: {} bank conflict",
                if wavefronts == 1 { "" } else { "s" },
                wavefronts - ideal
            )),
            "{what}: the wavefronts are not printed"
        );
        // One row per wavefront; the words beyond the ideal rows are the conflicts.
        let rows = (1..)
            .take_while(|r| svg.contains(&format!(">wavefront {r}<")))
            .count() as u64;
        assert_eq!(rows, wavefronts, "{what}: rows");
        let cells: usize = ["cell", "cell shared", "cell conflict"]
            .iter()
            .map(|c| with_class(svg, c) - 1) // the legend's
            .sum();
        assert_eq!(cells, words, "{what}: one cell per distinct word");
        let extra = with_class(svg, "cell conflict") - 1;
        assert_eq!(
            extra as u64,
            if wavefronts == 32 {
                31
            } else {
                32 * (wavefronts - ideal) / wavefronts
            },
            "{what}: conflict cells"
        );
        let conflicts = metric(&json, 0, "shared_ld_bank_conflicts")
            + metric(&json, 0, "shared_st_bank_conflicts");
        assert!(
            svg.contains(&format!("{conflicts} bank conflicts")),
            "{what}: the launch's {conflicts} conflicts are not printed"
        );
    }
}

/// `(block, warp)` → divergent branches, from a map's cell titles.
fn map_cells(svg: &str) -> std::collections::BTreeMap<String, u64> {
    titles(svg)
        .into_iter()
        .filter_map(|t| {
            let (who, rest) = t.split_once(": ")?;
            let n = rest.strip_suffix(" divergent branches")?.parse().ok()?;
            Some((who.to_string(), n))
        })
        .collect()
}

#[test]
fn divergence_map_of_the_gray_image() {
    let (html, json) = report(&["run", "rgb-to-gray"]);
    let json = json.unwrap();
    let svg = one(&html, "divergence-map");
    assert_eq!(data(svg, "warps"), "160");
    assert_eq!(data(svg, "divergent-warps"), "31");
    assert!(svg.contains("31 of 160 warps diverge"));
    assert!(svg.contains("data 76 × 62"), "the image is outlined");
    let cells = map_cells(svg);
    assert_eq!(cells.len(), 160, "one cell per warp");
    let diverging: BTreeSet<&String> = cells.iter().filter(|c| *c.1 > 0).map(|c| c.0).collect();
    assert_eq!(diverging.len(), 31);
    // The right column of blocks (x = 4: pixels 64..79 of 76) diverges, except the warp of
    // rows 62 and 63, wholly outside the image.
    for by in 0..4 {
        for w in 0..8 {
            let key = format!("block (4, {by}) warp {w}");
            let expect = u64::from(!(by == 3 && w == 7));
            assert_eq!(cells[&key], expect, "{key}");
        }
    }
    assert_eq!(
        cells.values().sum::<u64>() as f64,
        metric(&json, 0, "divergent_branches")
    );
}

#[test]
fn a_large_grid_map_draws_only_the_diverging_warps() {
    // 2001 × 1499 pixels in 16 × 16 blocks (126 × 94). The last block column holds one pixel
    // column, so each of its warps diverges, except the two wholly below the image in its last
    // block; in the last block row, warp 5 (rows 1498 and 1499) straddles the bottom edge.
    let (html, json) = report(&["run", "rgb-to-gray", "--width", "2001", "--height", "1499"]);
    let json = json.unwrap();
    let svg = one(&html, "divergence-map");
    assert_eq!(data(svg, "warps"), (126 * 94 * 8).to_string());
    let diverging: u64 = data(svg, "divergent-warps").parse().unwrap();
    let cells = map_cells(svg);
    assert_eq!(
        cells.len() as u64,
        diverging,
        "a cell per diverging warp, no more"
    );
    assert_eq!(diverging, 93 * 8 + 6 + 125);
    for (key, d) in &cells {
        let (bx, by, w) = parse_warp(key);
        let edge = (bx == 125 && !(by == 93 && w >= 6)) || (by == 93 && w == 5);
        assert!(edge && *d == 1, "{key}: {d}");
    }
    assert_eq!(
        cells.values().sum::<u64>() as f64,
        metric(&json, 0, "divergent_branches")
    );
    assert!(
        html.len() < 2 << 20,
        "the page stays small: {} bytes",
        html.len()
    );
}

/// `(bx, by, warp)` of a map cell's key, `block (bx, by) warp w`.
fn parse_warp(key: &str) -> (u32, u32, u32) {
    let nums: Vec<u32> = key
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (nums[0], nums[1], nums[2])
}

/// `step → [divergent branches per warp index]` from a step table's cell titles.
fn step_cells(svg: &str) -> std::collections::BTreeMap<usize, Vec<u64>> {
    let mut steps: std::collections::BTreeMap<usize, Vec<u64>> = Default::default();
    for t in titles(svg) {
        let Some(rest) = t.strip_prefix("step ") else {
            continue;
        };
        let (k, rest) = rest.split_once(", warp ").unwrap();
        let (w, rest) = rest.split_once(": ").unwrap();
        let v: u64 = rest.split(' ').next().unwrap().parse().unwrap();
        let row = steps.entry(k.parse().unwrap()).or_default();
        let w: usize = w.parse().unwrap();
        row.resize(row.len().max(w + 1), 0);
        row[w] = v;
    }
    steps
}

#[test]
fn reduction_steps_fig_5_13_against_5_15() {
    let n = ["--n", "4096"];
    let (interleaved, ji) = report(&[&["run", "reduce-interleaved"][..], &n].concat());
    let (sequential, js) = report(&[&["run", "reduce-sequential"][..], &n].concat());
    let (i_svg, s_svg) = (
        one(&interleaved, "divergence-steps"),
        one(&sequential, "divergence-steps"),
    );
    // Step 0 loads (no tail at 4096), steps 1..=8 are the tree's strides, step 9 `t == 0`.
    assert_eq!(data(i_svg, "steps"), "10");
    assert_eq!(data(s_svg, "steps"), "10");
    assert_eq!(data(i_svg, "divergent-steps"), "1,2,3,4,5,6,7,8,9");
    assert_eq!(data(s_svg, "divergent-steps"), "4,5,6,7,8,9");
    let (i, s) = (step_cells(i_svg), step_cells(s_svg));
    let blocks = 16;
    // Fig 5.13: strides 1..16 split every warp; stride 32 only the even warps.
    for k in 1..=5 {
        assert_eq!(i[&k], vec![blocks; 8], "interleaved step {k}");
    }
    assert_eq!(
        i[&6],
        [blocks, 0].repeat(4),
        "interleaved step 6 (stride 32)"
    );
    // Fig 5.15: strides 128, 64, 32 keep whole warps together; below 32 only warp 0 splits.
    for k in 1..=3 {
        assert_eq!(s[&k], vec![0; 8], "sequential step {k}");
    }
    for k in 4..=9 {
        let mut want = vec![0; 8];
        want[0] = blocks;
        assert_eq!(s[&k], want, "sequential step {k}");
    }
    for (cells, json) in [(&i, ji.unwrap()), (&s, js.unwrap())] {
        let total: u64 = cells.values().flatten().sum();
        assert_eq!(total as f64, metric(&json, 0, "divergent_branches"));
    }
}

#[test]
fn run_report_shows_the_lines() {
    let (html, _) = report(&["run", "reduce-sequential", "--n", "4096", "--lines"]);
    assert!(html.contains("per source line of kernels/reduction.rs"));
    assert!(html.contains("b.if_(t.lt(stride), |b| add_into(b, s, t, t + stride));"));
    assert_eq!(svgs(&html, "divergence-steps").len(), 1);
    assert_eq!(svgs(&html, "banks").len(), 1);
    assert_eq!(svgs(&html, "coalescing").len(), 1);
}

#[test]
fn suite_report_leads_each_family_with_its_picture() {
    let (html, _) = report(&["suite"]);
    let sections: Vec<&str> = html.split("<section").skip(1).collect();
    assert_eq!(sections.len(), Family::ALL.len());
    for (s, family) in sections.iter().zip(Family::ALL) {
        let lead = match family {
            Family::Reduction | Family::Divergence => "divergence",
            Family::Transpose | Family::SharedMemory => "banks",
            Family::MemoryAccess => "coalescing",
        };
        let first = &s[s.find("<svg").expect("a picture")..];
        let class = &first[first.find("class=\"").unwrap() + 7..];
        let class = &class[..class.find('"').unwrap()];
        assert!(
            class.starts_with(&format!("picture {lead}")),
            "{family:?} leads with {class}"
        );
        for e in kernels::catalogue().iter().filter(|e| e.family == family) {
            assert!(
                s.contains(&format!("<figcaption><b>{}</b>", e.name)),
                "{family:?}: no picture of {}",
                e.name
            );
        }
        assert!(
            s.contains("class=\"chart\""),
            "{family:?}: the bar charts stay"
        );
    }
    // 001's pair: read-offset at offset 11 (the suite's) and at 0.
    let access = sections[2];
    let effs: Vec<&str> = svgs(access, "coalescing")
        .iter()
        .map(|s| data(s, "efficiency"))
        .collect();
    assert_eq!(
        &effs[..2],
        ["80.0", "100.0"],
        "read-offset at 11, then at 0"
    );
    // 004's pair: the tile's column in one bank, and spread by the padding.
    let transposes = sections[1];
    let wavefronts: Vec<&str> = svgs(transposes, "banks")
        .iter()
        .map(|s| data(s, "wavefronts"))
        .collect();
    assert_eq!(
        wavefronts,
        ["1", "32", "1", "1"],
        "copy-shared, coalesced, padded, diagonal"
    );
    // 002's image.
    let maps = svgs(sections[3], "divergence-map");
    let image = maps
        .iter()
        .find(|s| s.contains("data 76 × 62"))
        .expect("rgb-to-gray's map");
    assert_eq!(data(image, "divergent-warps"), "31");
}
