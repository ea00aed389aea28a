//! report.html: self-contained, escaped, free of NaN, whole for odd reports (no cells, zeros, one
//! repetition, no percentiles, no efficiency, one case, long names) — and, opened in Debian's headless
//! Chromium, its charts actually drawn: every case that ran covers pixels of its palette colour.

mod html_fixture;

use compare::render::html::to_html;
use compare::render::svg::PALETTE;
use compare::results::*;
use html_fixture::sample_report;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Every attribute value of the page (the text between `="` and the next `"`).
fn attributes(html: &str) -> impl Iterator<Item = &str> {
    html.split("=\"").skip(1).filter_map(|rest| rest.split('"').next())
}

/// What every rendering must be: one whole, self-contained document with finite numbers in its SVG.
fn assert_sound(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    for needle in ["http://", "https://", "src=", "<script", "<link", "@import", "url(", "<img", "<iframe"] {
        assert!(!html.contains(needle), "the page refers elsewhere: {needle}");
    }
    assert!(!html.contains("NaN"), "NaN in the page");
    for value in attributes(html) {
        let bad = value.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == "inf" || w == "NaN");
        assert!(!bad, "a non-finite number in an attribute: {value:?}");
    }
}

fn charts(html: &str, kind: &str) -> usize {
    html.matches(&format!("<svg class=\"chart\" data-chart=\"{kind}\"")).count()
}

#[test]
fn the_page_has_every_section_and_chart_and_refers_to_nothing_outside() {
    let report = sample_report();
    let html = to_html(&report);
    assert_sound(&html);
    // A bar chart and a latency chart per workload, efficiency, CPU, one scaling chart.
    assert_eq!(html.matches("<svg class=\"chart\"").count(), 11);
    assert_eq!((charts(&html, "headline"), charts(&html, "latency")), (4, 4));
    assert_eq!((charts(&html, "efficiency"), charts(&html, "cpu"), charts(&html, "scaling")), (1, 1, 1));
    let order = ["id=\"ratios\"", "id=\"results\"", "id=\"latency\"", "id=\"efficiency\"", "id=\"cpu\""];
    let places: Vec<usize> = order
        .iter()
        .chain(&["id=\"scaling\"", "id=\"cases\"", "id=\"cells\""])
        .map(|id| html.find(id).expect(id))
        .collect();
    assert!(places.windows(2).all(|p| p[0] < p[1]), "sections out of order: {places:?}");
    assert!(html.contains("stands in for an RDMA NIC") && html.contains("class=\"notes\""));
    assert!(html.contains("2 min 14 s") && html.contains("127.0.0.1") && html.contains("Intel Xeon"));
    for word in ["2.39× [2.31, 2.47]", ">higher<", ">lower<", ">no difference<", ">no interval (1 run)<"] {
        assert!(html.contains(word), "ratios lack {word}");
    }
    // The unsupported case: its reason in the table and legends, never a bar.
    assert!(html.contains("not supported yet: vers=4.1 (NFSv4.1 sessions)"));
    assert!(html.contains(">not supported yet: v41-tcp</text>"));
    assert!(!html.contains("data-case=\"v41-tcp\""));
    // Each case that ran: a bar in each of the 4 headline, 4 efficiency-or-CPU groups, in its one colour.
    for (i, name) in ["tcp", "tcp-nconnect4", "rdma", "rdma-2qp"].iter().enumerate() {
        let bars: Vec<&str> = html
            .split("<rect class=\"bar\" ")
            .skip(1)
            .filter(|b| b.starts_with(&format!("data-case=\"{name}\"")))
            .collect();
        assert_eq!(bars.len(), 4 + 2 + 4, "{name}");
        assert!(bars.iter().all(|b| b.contains(&format!("fill=\"{}\"", PALETTE[i]))), "{name} changes colour");
    }
    assert!(html.contains(">3000</text>") && html.contains("[2850, 3150]") && html.contains(">25%</text>"));
    assert!(html.contains("href=\"cells/rdma--seq-read-1m--2.json\"") && html.contains("RDMA Write, soft provider"));
    assert!(html.contains("all processes, kernel threads, irq and softirq"));
}

#[test]
fn every_text_of_the_report_is_escaped() {
    let mut report = sample_report();
    let evil = "a<b&\"c\"'";
    report.title = "<script>alert(1)</script>".into();
    report.notes.push(evil.into());
    report.cases[3].case.name = evil.into();
    report.cases[4].unsupported = Some(format!("not supported yet: {evil}"));
    for c in report.cells.iter_mut().filter(|c| c.case == "rdma-2qp") {
        c.case = evil.into();
    }
    report.ratios[3].case = evil.into();
    report.workloads[0].description = evil.into();
    let html = to_html(&report);
    assert_sound(&html);
    assert!(!html.contains("<script>") && html.contains("&lt;script&gt;"));
    assert!(!html.contains(evil) && html.contains("a&lt;b&amp;&quot;c&quot;&#39;"));
    assert!(html.contains("data-case=\"a&lt;b&amp;&quot;c&quot;&#39;\""));
}

#[test]
fn odd_reports_render_without_panic_or_nan() {
    let sample = sample_report();
    let empty = Report::default();
    let no_cells = Report { cells: vec![], ratios: vec![], sweeps: vec![], ..sample.clone() };
    let mut zeros = sample.clone();
    for c in &mut zeros.cells {
        let zero = Estimate::default();
        (c.bandwidth_mbs, c.iops, c.clat_mean_us, c.host_cpu_per_gb) = (zero, zero, zero, zero);
        c.clat_percentiles_us = vec![(50.0, 0.0), (99.0, 0.0)];
        c.efficiency = Some(0.0);
    }
    let mut one_run = sample.clone();
    one_run.reps = 1;
    one_run.sweeps.clear();
    for c in &mut one_run.cells {
        let once = Estimate { mean: 100.0, lo: 100.0, hi: 100.0, n: 1 };
        (c.bandwidth_mbs, c.iops, c.host_cpu_per_gb) = (once, once, once);
        (c.clat_percentiles_us, c.efficiency, c.server_cpu_per_gb) = (vec![], None, None);
    }
    let mut nan = sample.clone();
    nan.duration_s = f64::NAN;
    nan.cells[0].bandwidth_mbs = Estimate { mean: f64::NAN, lo: f64::NEG_INFINITY, hi: f64::INFINITY, n: 3 };
    nan.cells[1].clat_percentiles_us = vec![(99.0, f64::INFINITY), (f64::NAN, 3.0), (100.0, 10.0)];
    nan.cells[2].efficiency = Some(f64::NAN);
    nan.sweeps[0].points[0].x = f64::NAN;
    let single = Report {
        cases: sample.cases[..1].to_vec(),
        cells: sample.cells.iter().filter(|c| c.case == "tcp").cloned().collect(),
        ratios: vec![],
        ..sample.clone()
    };
    let mut long = sample.clone();
    let long_name = |i: usize| format!("v3-rdma-nconnect16-remoteports-127.0.0.1-127.0.0.4-rsize-1MiB-{i}");
    for (i, c) in long.cases.iter_mut().enumerate() {
        c.case.name = long_name(i);
    }
    for c in &mut long.cells {
        let i = sample.cases.iter().position(|k| k.case.name == c.case).expect("a case");
        c.case = long_name(i);
    }
    for w in &mut long.workloads {
        w.name = format!("{}-with-a-very-long-workload-name-indeed", w.name);
    }
    for (name, report) in [("empty", empty), ("no cells", no_cells), ("zeros", zeros), ("one run", one_run)]
        .into_iter()
        .chain([("nan", nan), ("single case", single), ("long names", long)])
    {
        let html = to_html(&report);
        assert_sound(&html);
        assert!(html.contains("id=\"cells\""), "{name}");
        if name == "one run" {
            assert!(html.contains("no interval") && !html.contains("class=\"err\""), "{name}");
        }
    }
}

/// Debian's package installs `chromium`; other distributions name it differently.
fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let found = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output();
        if let Ok(out) = found {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !path.is_empty() {
                return PathBuf::from(path);
            }
        }
    }
    panic!(
        "headless Chromium is needed to check that report.html renders, and none was found (chromium, \
         chromium-browser): `scripts/install-deps.sh test` installs it (Debian package chromium)"
    );
}

/// Chromium's screenshot of `page` at 1280 px wide, as RGB(A) pixels with their channel count.
fn screenshot(browser: &Path, dir: &Path, page: &Path, shot: &Path) -> (Vec<u8>, usize, usize) {
    let log = std::fs::File::create(dir.join("chromium.log")).expect("log file");
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,6000"])
        .args(["--no-first-run", "--disable-extensions", "--force-device-scale-factor=1"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("wait for chromium").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 60 s (log: {})", dir.join("chromium.log").display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let file = std::fs::File::open(shot).unwrap_or_else(|e| {
        let log = std::fs::read_to_string(dir.join("chromium.log")).unwrap_or_default();
        panic!("chromium wrote no screenshot ({e}); its log:\n{log}")
    });
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    assert!(info.color_type.samples() >= 3 && info.bit_depth == png::BitDepth::Eight, "{info:?}");
    buf.truncate(info.buffer_size());
    (buf, info.color_type.samples(), info.width as usize)
}

#[test]
fn headless_chromium_draws_every_chart() {
    let started = Instant::now();
    let browser = chromium();
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let dir = std::env::temp_dir().join(format!("nfsbench-html-report-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (page, shot) = (dir.join("report.html"), dir.join("shot.png"));
    let report = sample_report();
    std::fs::write(&page, to_html(&report)).expect("write the page");
    let (pixels, channels, width) = screenshot(&browser, &dir, &page, &shot);
    // Kept for a human to look at: target/tmp/html_report/.
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html_report");
    std::fs::create_dir_all(&keep).expect("target tmp dir");
    std::fs::copy(&shot, keep.join("shot.png")).expect("keep the screenshot");
    std::fs::copy(&page, keep.join("report.html")).expect("keep the page");
    eprintln!("screenshot: {} (page: {})", keep.join("shot.png").display(), keep.join("report.html").display());

    let rgb = |hex: &str| -> Vec<u8> {
        (0..3).map(|i| u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).expect("hex")).collect()
    };
    let count = |hex: &str| pixels.chunks(channels).filter(|p| p[..3] == rgb(hex)[..]).count();
    // Pixels of a colour in horizontal runs at least 24 px long: bars, not legend swatches, lines or text.
    let in_bars = |hex: &str| {
        let (colour, mut n, mut run) = (rgb(hex), 0, 0);
        for (i, p) in pixels.chunks(channels).enumerate() {
            run = if i % width == 0 { 0 } else { run };
            if p[..3] == colour[..] {
                run += 1;
                n += if run == 24 {
                    24
                } else if run > 24 {
                    1
                } else {
                    0
                };
            } else {
                run = 0;
            }
        }
        n
    };
    let total = pixels.len() / channels;
    let white = count("#ffffff");
    assert!(width == 1280 && white < total * 97 / 100, "the page looks blank ({white} of {total} pixels white)");
    // Each case that ran has 10 bars in its colour (4 headline charts, 2 efficiency groups, 4 CPU groups),
    // at least 38 px wide and 50 px high here.
    for (i, c) in report.cases.iter().enumerate().filter(|(_, c)| c.unsupported.is_none()) {
        let n = in_bars(PALETTE[i]);
        assert!(n > 10 * 38 * 50, "case {}: only {n} pixels of bars in its colour {}", c.case.name, PALETTE[i]);
    }
    // The unsupported case (5th) has no bars, so its palette colour appears nowhere.
    assert!(count(PALETTE[4]) < 50, "the unsupported case was drawn");
    std::fs::remove_dir_all(&dir).expect("remove the temp dir");
    eprintln!("browser check took {:.1} s", started.elapsed().as_secs_f64());
}
