// carom export-web: the replay page.
//
// carom export-web writes one HTML file holding this script (bundled with
// three.js and uPlot by esbuild, see web/package.json) and the run's data
// as JSON in <script id="carom-data">. Nothing is fetched: the file opens
// from disk. The page draws the bodies as instanced spheres and the statics
// as the meshes the C code made (the same plane clipping and surface
// tessellation as carom view), boxes, hulls and meshes as meshes turned by
// the trajectory's quaternions (qw, qx, qy, qz), and plays the samples back with a timeline,
// a speed control and an energy plot that follows the time.
//
// window.carom exposes the state for tests and the curious: what is drawn
// (the instance matrices), the plot, and seek/play/pause.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './replay.css';

const data = JSON.parse(document.getElementById('carom-data').textContent);

function bytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) out[i] = bin.charCodeAt(i);
  return out.buffer;
}
const f32 = (b64) => new Float32Array(bytes(b64));
const u32 = (b64) => new Uint32Array(bytes(b64));

const samples = data.samples;
const bodies = data.bodies;
const times = data.times;
const positions = f32(data.positions); // samples * bodies * 3
const radius = data.radius;
const bodyColors = f32(data.colors); // bodies * 3, sRGB

document.title = `carom replay — ${data.title}`;
document.getElementById('title').textContent = data.title;

// ---- the 3D view -------------------------------------------------------

const view = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
view.appendChild(renderer.domElement);

const scene = new THREE.Scene();
scene.background = new THREE.Color().setRGB(34 / 255, 37 / 255, 43 / 255, THREE.SRGBColorSpace);

const cam = data.camera;
const camera = new THREE.PerspectiveCamera(cam.fov, 1, cam.near, cam.far);
camera.up.set(0, 0, 1); // carom is z-up
camera.position.fromArray(cam.eye);
scene.add(camera);

scene.add(new THREE.HemisphereLight(0xdde6f0, 0x30343a, 1.1));
const key = new THREE.DirectionalLight(0xffffff, 2.2);
key.position.set(-0.45, 0.65, 0.62); // above-left of the eye, as in carom view
camera.add(key);
camera.add(key.target); // the light follows the camera: the lit side faces the viewer

const controls = new OrbitControls(camera, renderer.domElement);
controls.target.fromArray(cam.target);
controls.update();

// Statics: the C code's triangles (planes cut to the scene, surfaces).
function gridTexture() {
  const c = document.createElement('canvas');
  c.width = c.height = 64;
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, 64, 64);
  g.fillStyle = '#b3b3b3';
  g.fillRect(0, 0, 64, 2);
  g.fillRect(0, 0, 2, 64);
  const t = new THREE.CanvasTexture(c);
  t.wrapS = t.wrapT = THREE.RepeatWrapping;
  t.anisotropy = 4;
  t.colorSpace = THREE.SRGBColorSpace;
  return t;
}
const grid = gridTexture();
for (const m of data.meshes) {
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.BufferAttribute(f32(m.positions), 3));
  geo.setAttribute('normal', new THREE.BufferAttribute(f32(m.normals), 3));
  const col = f32(m.colors);
  const c = new THREE.Color();
  for (let i = 0; i < col.length; i += 3) {
    c.setRGB(col[i], col[i + 1], col[i + 2], THREE.SRGBColorSpace);
    col[i] = c.r; col[i + 1] = c.g; col[i + 2] = c.b;
  }
  geo.setAttribute('color', new THREE.BufferAttribute(col, 3));
  if (m.uv) geo.setAttribute('uv', new THREE.BufferAttribute(f32(m.uv), 2));
  geo.setIndex(new THREE.BufferAttribute(u32(m.indices), 1));
  // One-sided, as in carom view: a wall seen from its solid side is not drawn.
  const mat = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.9, metalness: 0, side: THREE.FrontSide });
  if (m.uv) mat.map = grid;
  scene.add(new THREE.Mesh(geo, mat));
}

// Spheres: one instanced sphere mesh; each instance is translated and scaled.
const sphere = new THREE.SphereGeometry(1, 32, 16);
const balls = new THREE.InstancedMesh(sphere, new THREE.MeshStandardMaterial({ roughness: 0.35, metalness: 0 }),
  Math.max(bodies, 1));
balls.count = bodies;
balls.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
{
  const c = new THREE.Color();
  for (let i = 0; i < bodies; ++i) {
    c.setRGB(bodyColors[3 * i], bodyColors[3 * i + 1], bodyColors[3 * i + 2], THREE.SRGBColorSpace);
    balls.setColorAt(i, c);
  }
}
balls.frustumCulled = false;
scene.add(balls);

// Boxes, hulls and meshes: one mesh per body, its geometry shared per shape
// (a box's scaled unit cube, a hull's or mesh's triangles in the body
// frame, flat-shaded), placed by the trajectory's position and quaternion.
// Their instances in the sphere mesh stay at zero scale.
const shapes = data.shapes || [];
const orientations = data.orientations ? f32(data.orientations) : null; // samples * bodies * 4: w, x, y, z
const polyGeometry = (data.polyhedra || []).map((b64) => {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(f32(b64), 3));
  g.computeVertexNormals(); // not indexed: one normal per triangle
  return g;
});
const unitBox = new THREE.BoxGeometry(2, 2, 2);
const solids = new Array(bodies).fill(null);
const bodyGroup = new THREE.Group();
scene.add(bodyGroup);
for (let i = 0; i < bodies; ++i) {
  const sh = shapes[i];
  if (!sh || sh.shape === 'sphere') continue;
  const c = new THREE.Color().setRGB(bodyColors[3 * i], bodyColors[3 * i + 1], bodyColors[3 * i + 2], THREE.SRGBColorSpace);
  const mat = new THREE.MeshStandardMaterial({ color: c, roughness: 0.45, metalness: 0, side: THREE.FrontSide });
  const mesh = new THREE.Mesh(sh.shape === 'box' ? unitBox : polyGeometry[sh.mesh], mat);
  if (sh.shape === 'box') mesh.scale.fromArray(sh.half_extents);
  mesh.frustumCulled = false;
  solids[i] = mesh;
  bodyGroup.add(mesh);
}

// ---- playback ------------------------------------------------------------

const state = { time: times.length ? times[0] : 0, sample: 0, playing: false, speed: 1, frames: 0 };
const t0 = times.length ? times[0] : 0;
const t1 = times.length ? times[times.length - 1] : 0;

// The last sample at or before t (binary search).
function sampleAt(t) {
  let lo = 0, hi = times.length - 1;
  if (hi < 0 || t <= times[0]) return 0;
  if (t >= times[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

const matrix = new THREE.Matrix4();
const q = new THREE.Quaternion();
const p = new THREE.Vector3();
const s = new THREE.Vector3();
const qa = new THREE.Quaternion();
const qb = new THREE.Quaternion();
// Body i's orientation in sample k (three.js orders x, y, z, w).
function quatAt(out, k, i) {
  const o = 4 * (k * bodies + i);
  return out.set(orientations[o + 1], orientations[o + 2], orientations[o + 3], orientations[o]);
}
// Bodies at time t: linear between the two samples around it, exactly a
// sample's positions at a sample's time.
function placeBodies(t) {
  const k = sampleAt(t);
  const k1 = Math.min(k + 1, samples - 1);
  const span = times[k1] - times[k];
  const f = k1 > k && span > 0 ? Math.min(Math.max((t - times[k]) / span, 0), 1) : 0;
  const a = k * bodies * 3, b = k1 * bodies * 3;
  for (let i = 0; i < bodies; ++i) {
    const j = 3 * i;
    if (f === 0) p.set(positions[a + j], positions[a + j + 1], positions[a + j + 2]);
    else p.set(positions[a + j] + f * (positions[b + j] - positions[a + j]),
      positions[a + j + 1] + f * (positions[b + j + 1] - positions[a + j + 1]),
      positions[a + j + 2] + f * (positions[b + j + 2] - positions[a + j + 2]));
    const solid = solids[i];
    s.setScalar(solid ? 0 : radius[i]);
    matrix.compose(p, q, s);
    balls.setMatrixAt(i, matrix);
    if (solid) {
      solid.position.copy(p);
      if (orientations) {
        // Between two samples: the shorter arc (slerp); at a sample: its quaternion.
        quatAt(qa, k, i);
        if (f > 0) solid.quaternion.slerpQuaternions(qa, quatAt(qb, k1, i), f);
        else solid.quaternion.copy(qa);
      }
    }
  }
  balls.instanceMatrix.needsUpdate = true;
  state.sample = k;
}

// ---- controls -------------------------------------------------------------

const playButton = document.getElementById('play');
const slider = document.getElementById('timeline');
const speedSelect = document.getElementById('speed');
const clock = document.getElementById('clock');
slider.max = String(Math.max(samples - 1, 0));

function setTime(t, fromSlider) {
  state.time = Math.min(Math.max(t, t0), t1);
  placeBodies(state.time);
  if (!fromSlider) slider.value = String(state.sample);
  clock.textContent = `t = ${state.time.toFixed(3)} s   sample ${state.sample + 1} / ${samples}`;
  if (plot) {
    plot.setLegend({ idx: state.sample }); // the legend shows the values at the replay's time
    plot.redraw(false, false);
  }
}
function setPlaying(on) {
  state.playing = on && samples > 1;
  if (state.playing && state.time >= t1) setTime(t0);
  playButton.textContent = state.playing ? 'pause' : 'play';
}
playButton.addEventListener('click', () => setPlaying(!state.playing));
slider.addEventListener('input', () => {
  setPlaying(false);
  setTime(times[Number(slider.value)] ?? t0, true);
});
speedSelect.addEventListener('change', () => { state.speed = Number(speedSelect.value); });
window.addEventListener('keydown', (e) => {
  if (e.target.tagName === 'SELECT') return;
  if (e.code === 'Space') { setPlaying(!state.playing); e.preventDefault(); }
  else if (e.code === 'ArrowRight') { setPlaying(false); setTime(times[Math.min(state.sample + 1, samples - 1)]); }
  else if (e.code === 'ArrowLeft') { setPlaying(false); setTime(times[Math.max(state.sample - 1, 0)]); }
});

// ---- the energy plot ----------------------------------------------------------

const plotBox = document.getElementById('plot');
const energy = data.energy;
// A vertical line at the replay's time, drawn after the series.
const timeLine = {
  hooks: {
    draw: [(u) => {
      const x = u.valToPos(state.time, 'x', true);
      const ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = '#e8e8e8';
      ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.restore();
    }],
  },
};
let plot = null;
function plotSize() {
  // Room below the chart for uPlot's legend (one line).
  return { width: Math.max(plotBox.clientWidth - 16, 200), height: Math.max(plotBox.clientHeight - 44, 100) };
}
plot = new uPlot({
  ...plotSize(),
  plugins: [timeLine],
  scales: { x: { time: false } },
  axes: [
    { label: 't (s)', stroke: '#c8ccd2', grid: { stroke: '#3a3e46' }, ticks: { stroke: '#3a3e46' } },
    { label: 'energy (J)', stroke: '#c8ccd2', grid: { stroke: '#3a3e46' }, ticks: { stroke: '#3a3e46' }, size: 70 },
  ],
  series: [
    { label: 't' },
    { label: 'kinetic', stroke: '#ef5350', width: 1.5 },
    { label: 'potential', stroke: '#42a5f5', width: 1.5 },
    { label: 'total', stroke: '#f5f5f5', width: 2 },
  ],
  cursor: { drag: { x: false, y: false } },
}, [energy.t, energy.kinetic, energy.potential, energy.total], plotBox);
// Clicking the plot jumps to that time.
plot.over.addEventListener('click', (ev) => {
  setPlaying(false);
  setTime(plot.posToVal(ev.offsetX, 'x'));
});

// ---- the loop -----------------------------------------------------------------

function resize() {
  const w = Math.max(view.clientWidth, 1), h = Math.max(view.clientHeight, 1);
  renderer.setSize(w, h, false);
  renderer.domElement.style.width = '100%';
  renderer.domElement.style.height = '100%';
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  plot.setSize(plotSize());
}
window.addEventListener('resize', resize);
resize();
setTime(t0);

let last = performance.now();
function frame(now) {
  const wall = Math.min((now - last) / 1000, 0.25);
  last = now;
  if (state.playing) {
    const t = state.time + wall * state.speed;
    if (t >= t1) { setTime(t1); setPlaying(false); } else setTime(t);
  }
  controls.update();
  renderer.render(scene, camera);
  state.frames++;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// ---- for tests ----------------------------------------------------------------

window.carom = {
  samples, bodies, times, energy, state, scene, camera, renderer, balls, plot,
  solids,
  // Where body i is drawn now: its mesh's position (boxes, hulls, meshes)
  // or the translation of its sphere instance.
  drawnPosition(i) {
    if (solids[i]) return solids[i].position.toArray();
    const m = new THREE.Matrix4();
    balls.getMatrixAt(i, m);
    return [m.elements[12], m.elements[13], m.elements[14]];
  },
  // Body i's drawn orientation as [w, x, y, z] (spheres: identity).
  drawnQuaternion(i) {
    const o = solids[i] ? solids[i].quaternion : new THREE.Quaternion();
    return [o.w, o.x, o.y, o.z];
  },
  // The shape body i is drawn as: 'sphere', 'box', 'hull' or 'mesh'.
  drawnShape(i) { return shapes[i] ? shapes[i].shape : 'sphere'; },
  // Hides or shows every body (spheres and the rest).
  setBodiesVisible(on) { balls.visible = on; bodyGroup.visible = on; },
  // The pixel (CSS pixels from the canvas's top-left) where point xyz is drawn.
  project(xyz) {
    const v = new THREE.Vector3().fromArray(xyz).project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return [(v.x + 1) / 2 * r.width, (1 - v.y) / 2 * r.height];
  },
  seekSample(k) { setPlaying(false); setTime(times[k]); },
  play() { setPlaying(true); },
  pause() { setPlaying(false); },
  ready: true,
};
