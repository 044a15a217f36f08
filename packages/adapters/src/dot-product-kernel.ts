/**
 * Dot products of one query with every row of a matrix, four lanes at a time with WebAssembly SIMD (about four times
 * a plain JavaScript loop). The module is a dozen instructions, assembled here so there is no build step and no native
 * addon; where WebAssembly SIMD is missing, `createDotProductKernel` answers null and the caller loops in JavaScript.
 *
 * The function it exports, as WebAssembly text:
 *
 *   (func (export "dots") (param $m i32) (param $q i32) (param $n i32) (param $rowBytes i32) (param $out i32)
 *     (local $d i32) (local $a v128) (local $b v128)
 *     (block (loop                                    ;; for each of the n rows
 *       (br_if 1 (i32.eqz (local.get $n)))
 *       (local.set $a (v128.const f32x4 0 0 0 0)) (local.set $b (v128.const f32x4 0 0 0 0)) (local.set $d (i32.const 0))
 *       (block (loop                                  ;; 8 floats per turn, two running sums
 *         (br_if 1 (i32.ge_u (local.get $d) (local.get $rowBytes)))
 *         (local.set $a (f32x4.add (local.get $a) (f32x4.mul (v128.load (m + d)) (v128.load (q + d)))))
 *         (local.set $b (f32x4.add (local.get $b) (f32x4.mul (v128.load offset=16 (m + d)) (v128.load offset=16 (q + d)))))
 *         (local.set $d (i32.add (local.get $d) (i32.const 32))) (br 0)))
 *       (f32.store (local.get $out) (sum of the four lanes of (f32x4.add $a $b)))
 *       (local.set $out (+ 4)) (local.set $m (+ $rowBytes)) (local.set $n (- 1)) (br 0))))
 */

/** Floats per turn of the inner loop: rows and the query are padded with zeros to a multiple of this. */
export const KERNEL_LANES = 8;

/**
 * Each kernel holds a WebAssembly memory, and a process can reserve only some thousands of them (Node's own fetch
 * needs one too): smaller matrices, where SIMD saves little, and any beyond this many at once are left to JavaScript.
 */
const MIN_ROWS = 1_024;
const MAX_LIVE_KERNELS = 256;
let liveKernels = 0;
const released = new FinalizationRegistry<undefined>(() => liveKernels--);

export interface DotProductKernel {
  /** The matrix's rows, `stride` floats each (a multiple of KERNEL_LANES); write them once, after creating. */
  readonly rows: Float32Array;
  /** Writes the query (`stride` floats, padded) and computes one dot product per row into the returned array. */
  dots(query: Float32Array): Float32Array;
}

const M = 0;
const Q = 1;
const N = 2;
const ROW_BYTES = 3;
const OUT = 4;
const D = 5;
const A = 6;
const B = 7;

const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  i32Const: (value: number) => [0x41, ...signedLeb(value)],
  i32Eqz: [0x45],
  i32GeU: [0x4f],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  f32Add: [0x92],
  /** align 2^2, offset 0 */
  f32Store: [0x38, 0x02, 0x00],
  /** align 2^4 */
  v128Load: (offset: number) => [0xfd, 0x00, 0x04, ...unsignedLeb(offset)],
  v128Zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  f32x4ExtractLane: (lane: number) => [0xfd, 0x1f, lane],
  f32x4Add: [0xfd, 0xe4, 0x01],
  f32x4Mul: [0xfd, 0xe6, 0x01],
};

const accumulate = (sum: number, offset: number) => [
  ...op.get(sum),
  ...op.get(M),
  ...op.get(D),
  ...op.i32Add,
  ...op.v128Load(offset),
  ...op.get(Q),
  ...op.get(D),
  ...op.i32Add,
  ...op.v128Load(offset),
  ...op.f32x4Mul,
  ...op.f32x4Add,
  ...op.set(sum),
];

const body = [
  // locals: one i32 ($d), two v128 ($a, $b)
  0x02,
  0x01,
  0x7f,
  0x02,
  0x7b,
  ...op.block,
  ...op.loop,
  ...op.get(N),
  ...op.i32Eqz,
  ...op.brIf(1),
  ...op.v128Zero,
  ...op.set(A),
  ...op.v128Zero,
  ...op.set(B),
  ...op.i32Const(0),
  ...op.set(D),
  ...op.block,
  ...op.loop,
  ...op.get(D),
  ...op.get(ROW_BYTES),
  ...op.i32GeU,
  ...op.brIf(1),
  ...accumulate(A, 0),
  ...accumulate(B, 16),
  ...op.get(D),
  ...op.i32Const(32),
  ...op.i32Add,
  ...op.set(D),
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...op.get(OUT),
  ...op.get(A),
  ...op.get(B),
  ...op.f32x4Add,
  ...op.tee(A),
  ...op.f32x4ExtractLane(0),
  ...op.get(A),
  ...op.f32x4ExtractLane(1),
  ...op.f32Add,
  ...op.get(A),
  ...op.f32x4ExtractLane(2),
  ...op.f32Add,
  ...op.get(A),
  ...op.f32x4ExtractLane(3),
  ...op.f32Add,
  ...op.f32Store,
  ...op.get(OUT),
  ...op.i32Const(4),
  ...op.i32Add,
  ...op.set(OUT),
  ...op.get(M),
  ...op.get(ROW_BYTES),
  ...op.i32Add,
  ...op.set(M),
  ...op.get(N),
  ...op.i32Const(1),
  ...op.i32Sub,
  ...op.set(N),
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...op.end,
];

const section = (id: number, content: number[]) => [id, ...unsignedLeb(content.length), ...content];
const name = (text: string) => [text.length, ...Buffer.from(text, 'ascii')];

const MODULE_BYTES = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  // types: (i32 i32 i32 i32 i32) -> ()
  ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]),
  // imports: env.memory, at least one page
  ...section(2, [0x01, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01]),
  // functions: one, of type 0
  ...section(3, [0x01, 0x00]),
  // exports: "dots" = function 0
  ...section(7, [0x01, ...name('dots'), 0x00, 0x00]),
  // code
  ...section(10, [0x01, ...unsignedLeb(body.length), ...body]),
]);

/** The part of the WebAssembly API used here (the project's type libraries do not declare it for Node). */
interface WebAssemblyApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

let compiled: object | null | undefined;

function kernelModule(): object | null {
  if (compiled === undefined) compiled = wasm?.validate(MODULE_BYTES) ? new wasm.Module(MODULE_BYTES) : null;
  return compiled;
}

/**
 * A kernel for `rows` rows of `stride` floats, with memory of its own; null where WebAssembly SIMD is missing, for
 * fewer than MIN_ROWS rows, or when MAX_LIVE_KERNELS exist.
 */
export function createDotProductKernel(rows: number, stride: number): DotProductKernel | null {
  const module = kernelModule();
  if (!wasm || !module || stride % KERNEL_LANES !== 0 || rows < MIN_ROWS || liveKernels >= MAX_LIVE_KERNELS)
    return null;
  const matrixBytes = rows * stride * 4;
  const bytes = matrixBytes + stride * 4 + rows * 4;
  // A WebAssembly memory addresses at most 4 GiB.
  if (bytes > 2 ** 32 - 65_536) return null;
  let memory: { buffer: ArrayBuffer };
  let instance: { exports: Record<string, unknown> };
  try {
    memory = new wasm.Memory({ initial: Math.max(1, Math.ceil(bytes / 65_536)) });
    instance = new wasm.Instance(module, { env: { memory } });
  } catch {
    return null;
  }
  const dots = instance.exports.dots as (m: number, q: number, n: number, rowBytes: number, out: number) => void;
  const matrix = new Float32Array(memory.buffer, 0, rows * stride);
  const query = new Float32Array(memory.buffer, matrixBytes, stride);
  const out = new Float32Array(memory.buffer, matrixBytes + stride * 4, rows);
  const kernel = {
    rows: matrix,
    dots(values: Float32Array): Float32Array {
      query.fill(0);
      query.set(values.subarray(0, stride));
      dots(0, matrixBytes, rows, stride * 4, matrixBytes + stride * 4);
      return out;
    },
  };
  liveKernels++;
  released.register(kernel, undefined);
  return kernel;
}

function unsignedLeb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

function signedLeb(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      bytes.push(byte);
      return bytes;
    }
    bytes.push(byte | 0x80);
  }
}
