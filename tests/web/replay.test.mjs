// carom export-web, end to end in Debian's Chromium (headless, through
// playwright-core): the page opens from disk, the canvas shows the scene
// (the pixel where a ball's centre projects is ball-coloured, not the
// background), the plot holds every recorded sample, playing advances the
// time, and after scrubbing the timeline to its end every body is drawn
// where trajectory.csv's last sample puts it, boxes, hulls and meshes
// turned by its quaternion.
//
// usage: node replay.test.mjs PAGE.html RUN_DIR SOURCE_DIR
// CHROMIUM overrides the browser (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [page_html, run_dir, source_dir] = process.argv.slice(2);
if (!page_html || !run_dir || !source_dir) {
  console.error('usage: node replay.test.mjs PAGE.html RUN_DIR SOURCE_DIR');
  process.exit(2);
}
// playwright-core lives in web/node_modules (web/package-lock.json).
const require = createRequire(path.join(source_dir, 'web', 'package.json'));
const { chromium } = require('playwright-core');

// The recorded run, parsed here independently of the page.
function csv(file) {
  const lines = fs.readFileSync(path.join(run_dir, file), 'utf8').trim().split('\n');
  return lines.slice(1).map((l) => l.split(',').map(Number));
}
const energy = csv('energy.csv');
const traj = csv('trajectory.csv');
const samples = energy.length;
const bodies = traj.length / samples;
assert.ok(Number.isInteger(bodies) && bodies > 0, 'trajectory rows are bodies x samples');
const lastSample = traj.slice((samples - 1) * bodies);

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'carom-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1000, height: 760 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    // WebGL without a GPU: Chromium's software rasteriser.
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
const errors = [];
let failed = false;
try {
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // Nothing may be fetched: the page is one file.
  const requests = [];
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });

  await page.goto(pathToFileURL(path.resolve(page_html)).href);
  await page.waitForFunction(() => window.carom && window.carom.ready && window.carom.state.frames > 2, null,
    { timeout: 30000 });
  assert.deepEqual(errors, [], 'no script errors');
  assert.deepEqual(requests, [], 'no network requests');

  // The page's own account of the data.
  const info = await page.evaluate(() => ({ samples: carom.samples, bodies: carom.bodies,
    plotX: Array.from(carom.plot.data[0]), plotTotal: Array.from(carom.plot.data[3]), plotSeries: carom.plot.series.length }));
  assert.equal(info.samples, samples);
  assert.equal(info.bodies, bodies);
  // The plot: one point per recorded sample, at the recorded times and values.
  assert.equal(info.plotX.length, samples, 'plot samples');
  assert.equal(info.plotSeries, 4, 'plot series: t, kinetic, potential, total');
  info.plotX.forEach((t, k) => assert.equal(t, energy[k][0], `plot t of sample ${k}`));
  info.plotTotal.forEach((E, k) => assert.equal(E, energy[k][3], `plot total energy of sample ${k}`));

  // The canvas shows the scene: the pixel where ball 0's centre projects
  // changes when the balls are hidden (so it is the ball that is drawn
  // there), and much of the picture is not the background.
  const look = await page.evaluate(() => {
    const c = carom.renderer.domElement;
    const g = document.createElement('canvas');
    g.width = c.width; g.height = c.height;
    const ctx = g.getContext('2d', { willReadFrequently: true });
    const scale = c.width / c.getBoundingClientRect().width;
    const [x, y] = carom.project(carom.drawnPosition(0));
    const pixel = () => {
      ctx.drawImage(c, 0, 0);
      return Array.from(ctx.getImageData(Math.round(x * scale), Math.round(y * scale), 1, 1).data);
    };
    carom.renderer.render(carom.scene, carom.camera);
    const withBall = pixel();
    const all = ctx.getImageData(0, 0, g.width, g.height).data;
    let differ = 0;
    for (let i = 0; i < all.length; i += 4)
      if (Math.abs(all[i] - 34) + Math.abs(all[i + 1] - 37) + Math.abs(all[i + 2] - 43) > 12) differ++;
    carom.setBodiesVisible(false);
    carom.renderer.render(carom.scene, carom.camera);
    const without = pixel();
    carom.setBodiesVisible(true);
    carom.renderer.render(carom.scene, carom.camera);
    return { withBall, without, differ, pixels: all.length / 4, x, y };
  });
  const dist = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
  assert.ok(dist(look.withBall, look.without) > 30,
    `ball 0 drawn at its projected centre (${look.x.toFixed(1)}, ${look.y.toFixed(1)}): ` +
    `${look.withBall} with the balls, ${look.without} without`);
  assert.ok(look.differ > 0.01 * look.pixels, `the scene covers ${look.differ} of ${look.pixels} pixels`);

  // Speed: the select sets it (a quarter, so that the run lasts while we look).
  await page.selectOption('#speed', '0.25');
  assert.equal(await page.evaluate(() => carom.state.speed), 0.25);

  // Play: time advances on its own; the button pauses it again.
  await page.click('#play');
  assert.equal(await page.evaluate(() => carom.state.playing), true, 'the button plays');
  await page.waitForFunction(() => carom.state.time > carom.times[0], null, { timeout: 10000 });
  // The pause is clicked in the same task as the check that the replay is
  // still playing: on a slow machine the quarter-speed run can reach its end
  // (and stop on its own) between two of Playwright's round trips, and a
  // click then would start it again from the beginning.
  const paused = await page.evaluate(() => {
    const button = document.getElementById('play');
    if (!carom.state.playing) button.click(); // reached the end: play again
    const was = carom.state.playing;
    button.click();
    return { was, playing: carom.state.playing, time: carom.state.time };
  });
  assert.equal(paused.was, true, 'playing before the pause');
  assert.equal(paused.playing, false, 'the button pauses');
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => carom.state.time), paused.time, 'paused time stands still');

  // Scrub to the end the way a person does: the timeline's value and its
  // input event.
  await page.$eval('#timeline', (el) => { el.value = el.max; el.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => carom.state.frames > 0);
  const end = await page.evaluate(() => ({ sample: carom.state.sample, time: carom.state.time,
    drawn: Array.from({ length: carom.bodies }, (_, i) => carom.drawnPosition(i)),
    clock: document.getElementById('clock').textContent }));
  assert.equal(end.sample, samples - 1, 'scrubbed to the last sample');
  assert.equal(end.time, energy[samples - 1][0]);
  assert.ok(end.clock.includes(`sample ${samples} / ${samples}`), `clock: ${end.clock}`);
  for (let i = 0; i < bodies; ++i) {
    const row = lastSample[i];
    assert.equal(row[1], i);
    for (let k = 0; k < 3; ++k) {
      const want = row[2 + k], got = end.drawn[i][k];
      // float32 on the page: seven significant digits.
      assert.ok(Math.abs(got - want) <= 1e-6 * Math.max(1, Math.abs(want)),
        `body ${i} drawn at ${end.drawn[i]} but the trajectory says ${row.slice(2, 5)}`);
    }
  }
  // Orientation: boxes, hulls and meshes are drawn turned by the last
  // sample's quaternion (qw, qx, qy, qz: columns 11-14), spheres as
  // spheres. EXPECT_SHAPES (comma-separated) names what each body must be.
  const turned = await page.evaluate(() => Array.from({ length: carom.bodies },
    (_, i) => ({ shape: carom.drawnShape(i), q: carom.drawnQuaternion(i) })));
  const expectShapes = process.env.EXPECT_SHAPES ? process.env.EXPECT_SHAPES.split(',') : null;
  let solids = 0;
  for (let i = 0; i < bodies; ++i) {
    if (expectShapes) assert.equal(turned[i].shape, expectShapes[i], `body ${i} drawn as a ${expectShapes[i]}`);
    if (turned[i].shape === 'sphere') continue;
    ++solids;
    const want = lastSample[i].slice(11, 15);
    assert.equal(want.length, 4, 'trajectory.csv has qw, qx, qy, qz');
    for (let k = 0; k < 4; ++k)
      assert.ok(Math.abs(turned[i].q[k] - want[k]) <= 1e-6,
        `body ${i} drawn with quaternion ${turned[i].q} but the trajectory says ${want}`);
  }
  assert.deepEqual(errors, [], 'no script errors');
  console.log(`replay.test: ok (${samples} samples, ${bodies} bodies; ball 0 at pixel ` +
    `${look.x.toFixed(0)},${look.y.toFixed(0)}; ${solids} turned solids; scene on ${(100 * look.differ / look.pixels).toFixed(1)}% of the canvas)`);
} catch (e) {
  failed = true;
  console.error(`replay.test: FAIL: ${e.message}`);
  if (errors.length) console.error(`page errors: ${errors.join('\n')}`);
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
