// report_browser_check.js REPORT.html SHOT.png: open a latrec HTML report
// from disk in the system Chromium (headless, driven over the DevTools
// protocol by puppeteer-core), save a full-page screenshot, and print one
// JSON object: the console errors, the requests other than the page itself
// (each is also aborted), and per section its kind, name and charts (per
// chart its kind and, per series, its name, data-points and the marks
// drawn, with the histogram counts and the percentile marks), and the
// slowest-instance rows with their explanation.
// CHROMIUM names the browser (default /usr/bin/chromium).
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

(async () => {
  const file = path.resolve(process.argv[2]);
  const url = 'file://' + file;
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // --no-sandbox: the tests run as root too, where Chromium's sandbox refuses
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions',
           '--disable-background-networking', '--disable-component-update'],
  });
  const out = { console_errors: [], page_errors: [], requests: [], sections: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 800 });
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') out.console_errors.push(m.text()); });
    page.on('pageerror', (e) => out.page_errors.push(String(e)));
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      if (r.url() === url) return r.continue();
      out.requests.push(r.url());
      return r.abort();
    });
    await page.goto(url, { waitUntil: 'load' });
    out.title = await page.title();
    out.sections = await page.evaluate(() => Array.from(document.querySelectorAll('section.table'), (s) => ({
      kind: s.dataset.kind,
      name: s.dataset.name,
      charts: Array.from(s.querySelectorAll('svg.chart'), (c) => ({
        chart: c.dataset.chart,
        series_attr: Number(c.dataset.series),
        width: c.getBoundingClientRect().width,
        series: Array.from(c.querySelectorAll('g.series'), (g) => ({
          name: g.dataset.name,
          points_attr: Number(g.dataset.points),
          marks: g.querySelectorAll('rect:not(.split), circle').length,
          counts: Array.from(g.querySelectorAll('rect[data-count]'), (r) => Number(r.dataset.count)),
          pcts: Array.from(g.querySelectorAll('circle[data-p]'), (r) => [Number(r.dataset.p), Number(r.dataset.ns)]),
          ns: Array.from(g.querySelectorAll('rect[data-ns]'), (r) => Number(r.dataset.ns)),
        })),
      })),
      top: Array.from(s.querySelectorAll('table.top tr'), (tr) => tr.querySelector('td.why')?.textContent)
        .filter((x) => x !== undefined),
    })));
    await page.screenshot({ path: process.argv[3], fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(String(e)); process.exit(1); });
