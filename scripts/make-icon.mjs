// Draws the extension icon (images/icon.png, 128×128 RGBA): a phase signal flipping between two
// levels — the barrier phase the extension is named after — on a dark rounded tile. Pure Node
// (zlib for the PNG stream), 4×4 supersampled for smooth edges. Usage: node scripts/make-icon.mjs
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SS = 4;
const BG = [27, 31, 42];
const LOW = [64, 200, 190]; // phase 0
const HIGH = [255, 183, 77]; // phase 1

/** Signed distance to a rounded rectangle centred at (cx, cy). */
function roundedRect(x, y, cx, cy, hw, hh, r) {
  const dx = Math.abs(x - cx) - hw + r;
  const dy = Math.abs(y - cy) - hh + r;
  return Math.min(Math.max(dx, dy), 0) + Math.hypot(Math.max(dx, 0), Math.max(dy, 0)) - r;
}

/** Distance to segment (ax, ay)–(bx, by). */
function segment(x, y, ax, ay, bx, by) {
  const vx = bx - ax;
  const vy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * vx + (y - ay) * vy) / (vx * vx + vy * vy)));
  return Math.hypot(x - ax - t * vx, y - ay - t * vy);
}

// The signal: low, flip up, high, flip down, low, flip up — a square wave across the tile.
const lowY = 84;
const highY = 44;
const xs = [18, 40, 64, 88, 110];
const path_ = [
  [xs[0], lowY, xs[1], lowY, LOW],
  [xs[1], lowY, xs[1], highY, null],
  [xs[1], highY, xs[2], highY, HIGH],
  [xs[2], highY, xs[2], lowY, null],
  [xs[2], lowY, xs[3], lowY, LOW],
  [xs[3], lowY, xs[3], highY, null],
  [xs[3], highY, xs[4], highY, HIGH],
];
const HALF_WIDTH = 5;

function shade(x, y) {
  if (roundedRect(x, y, 64, 64, 62, 62, 22) > 0) return [0, 0, 0, 0];
  let colour = BG;
  for (const [ax, ay, bx, by, c] of path_) {
    if (segment(x, y, ax, ay, bx, by) > HALF_WIDTH) continue;
    // Edges take the colour of the level they lead to, blended along their height.
    if (c) colour = c;
    else {
      const t = Math.max(0, Math.min(1, (y - highY) / (lowY - highY)));
      colour = HIGH.map((h, i) => Math.round(h * (1 - t) + LOW[i] * t));
    }
  }
  return [...colour, 255];
}

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  raw[y * (SIZE * 4 + 1)] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    const acc = [0, 0, 0, 0];
    for (let sy = 0; sy < SS; sy++)
      for (let sx = 0; sx < SS; sx++) {
        const p = shade(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
        // Premultiply so transparent corners do not darken the edge.
        for (let i = 0; i < 3; i++) acc[i] += (p[i] * p[3]) / 255;
        acc[3] += p[3];
      }
    const a = acc[3] / (SS * SS);
    const o = y * (SIZE * 4 + 1) + 1 + x * 4;
    for (let i = 0; i < 3; i++) raw[o + i] = a > 0 ? Math.round((acc[i] / (SS * SS)) * (255 / a)) : 0;
    raw[o + 3] = Math.round(a);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'images', 'icon.png');
writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
