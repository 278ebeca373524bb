// page_load_time.js PAGE.html: open a page from disk in the system Chromium
// (CHROMIUM, default /usr/bin/chromium) and print the time to its load
// event, its charts, Chromium's layout time and its DOM node count.
// For tests/bench/bench_html.sh.
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

(async () => {
  const b = await puppeteer.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
                                     args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const p = await b.newPage();
    const t0 = Date.now();
    await p.goto('file://' + path.resolve(process.argv[2]), { waitUntil: 'load' });
    const t1 = Date.now();
    const n = await p.evaluate(() => document.querySelectorAll('svg.chart').length);
    const m = await p.metrics();
    console.log(`load ${t1 - t0} ms, ${n} charts, layout ${m.LayoutDuration.toFixed(3)} s, ${m.Nodes} DOM nodes`);
  } finally {
    await b.close();
  }
})().catch((e) => { console.error(String(e)); process.exit(1); });
