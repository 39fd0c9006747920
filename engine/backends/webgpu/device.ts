/// <reference types="@webgpu/types" />
/**
 * GPU acquisition for the WebGPU backend: `navigator.gpu` in browsers and workers, the `webgpu`
 * npm package (Dawn) in Node.
 *
 * Headless Node without a GPU (SPEC §6): Dawn's Vulkan backend on SwiftShader, the CPU Vulkan
 * driver that Debian's `chromium` package ships. Two things are needed and both are set up here,
 * in-process, so `npm test` and the CLI work without wrapper scripts:
 * - `VK_ICD_FILENAMES` pointing at SwiftShader's ICD manifest (read by the Vulkan loader when Dawn
 *   creates its instance);
 * - a Vulkan loader `libvulkan.so.1`: when the system has none, chromium's bundled copy is loaded
 *   first with RTLD_NODELETE, so Dawn's later `dlopen("libvulkan.so.1")` finds it by soname.
 */

/** where Debian's chromium package puts SwiftShader's Vulkan ICD and its Vulkan loader */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const BUNDLED_VULKAN_LOADER = '/usr/lib/chromium/libvulkan.so.1';

/** 'auto': hardware first, SwiftShader if no adapter; 'swiftshader': SwiftShader only (tests) */
export type AdapterPreference = 'auto' | 'swiftshader' | 'hardware';

export interface GpuHandle {
  device: GPUDevice;
  adapter: GPUAdapter;
  /** readable adapter description, e.g. "SwiftShader Device (Subzero) (vulkan)" */
  description: string;
  /** true when the adapter is a CPU implementation (SwiftShader, lavapipe, WARP) */
  software: boolean;
}

export type GpuResult = { ok: true; gpu: GpuHandle } | { ok: false; reason: string };

interface NodeWebGpuModule {
  create(flags: string[]): GPU;
  globals: Record<string, unknown>;
}

const isNode = (): boolean =>
  typeof process !== 'undefined' && typeof process.versions === 'object' && !!process.versions.node;

// module specifiers kept in variables so bundlers never try to resolve them for the browser
const NODE_FS = 'node:fs';
const WEBGPU_PACKAGE = 'webgpu';

let nodeModule: Promise<NodeWebGpuModule | null> | null = null;

async function loadNodeWebGpu(): Promise<NodeWebGpuModule | null> {
  if (!nodeModule) {
    nodeModule = import(/* @vite-ignore */ WEBGPU_PACKAGE).then(
      (m: NodeWebGpuModule) => {
        // GPUBufferUsage, GPUMapMode, … as globals, like in a browser
        for (const [k, v] of Object.entries(m.globals)) {
          if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
        }
        return m;
      },
      () => null,
    );
  }
  return nodeModule;
}

/**
 * Prepares the process for SwiftShader (Node only). Returns null when ready, else the reason.
 * Idempotent; never overrides an explicit VK_ICD_FILENAMES.
 */
export async function configureSwiftShader(): Promise<string | null> {
  if (!isNode()) return 'SwiftShader setup is only needed in Node';
  const fs = (await import(/* @vite-ignore */ NODE_FS)) as typeof import('node:fs');
  if (!process.env.VK_ICD_FILENAMES) {
    if (!fs.existsSync(SWIFTSHADER_ICD)) {
      return `no GPU adapter and no SwiftShader ICD at ${SWIFTSHADER_ICD} (install Debian's chromium package)`;
    }
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  if (process.platform === 'linux' && !systemVulkanLoader() && fs.existsSync(BUNDLED_VULKAN_LOADER)) {
    preloadSharedLibrary(BUNDLED_VULKAN_LOADER);
  }
  return null;
}

const RTLD_NOW = 2;
const RTLD_GLOBAL = 0x100;
const RTLD_NODELETE = 0x1000; // glibc; not exported by os.constants.dlopen

/** true when `libvulkan.so.1` resolves through the system library path */
function systemVulkanLoader(): boolean {
  try {
    process.dlopen({ exports: {} } as NodeJS.Module, 'libvulkan.so.1', RTLD_NOW);
    return true;
  } catch (e) {
    // a loadable library that is not a Node addon fails later, with "did not self-register"
    return /self-register/.test(String((e as Error).message));
  }
}

/** maps a shared library into the process for good (it is not a Node addon, so dlopen "fails") */
function preloadSharedLibrary(path: string): void {
  try {
    process.dlopen({ exports: {} } as NodeJS.Module, path, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  } catch {
    // expected: "Module did not self-register"; the library stays loaded (RTLD_NODELETE)
  }
}

function describe(adapter: GPUAdapter): { description: string; software: boolean } {
  const info = adapter.info;
  const parts = [info?.vendor, info?.architecture, info?.device, info?.description].filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  const description = parts.length ? [...new Set(parts)].join(' ') : 'unknown adapter';
  const software =
    /swiftshader|llvmpipe|lavapipe|warp|software|cpu/i.test(description) ||
    (info as GPUAdapterInfo & { isFallbackAdapter?: boolean })?.isFallbackAdapter === true;
  return { description, software };
}

async function deviceFrom(adapter: GPUAdapter): Promise<GpuHandle> {
  // the large per-world arenas need the adapter's buffer limits; binding counts stay at defaults
  const device = await adapter.requestDevice({
    label: 'SapWebGpu.device',
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
    },
  });
  return { device, adapter, ...describe(adapter) };
}

async function requestFrom(gpu: GPU | undefined): Promise<GPUAdapter | null> {
  if (!gpu) return null;
  try {
    return await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch {
    return null;
  }
}

// Dawn instances must outlive their devices
const keepAlive: GPU[] = [];

/**
 * Acquires an adapter and device. Never throws: `{ ok: false, reason }` says why no GPU is
 * available (the caller falls back to the CPU backend with that reason).
 */
export async function acquireGpu(preference: AdapterPreference = 'auto'): Promise<GpuResult> {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu) {
    const adapter = await requestFrom(nav.gpu);
    if (!adapter) return { ok: false, reason: 'navigator.gpu.requestAdapter() returned no adapter' };
    return { ok: true, gpu: await deviceFrom(adapter) };
  }
  if (!isNode()) return { ok: false, reason: 'WebGPU is not available (no navigator.gpu)' };
  const mod = await loadNodeWebGpu();
  if (!mod) return { ok: false, reason: "the 'webgpu' npm package (Dawn for Node) could not be loaded" };
  // on Linux without a Vulkan loader Dawn can find no hardware adapter (and says so on stderr)
  const noLoader = process.platform === 'linux' && !process.env.VK_ICD_FILENAMES && !systemVulkanLoader();
  if (preference !== 'swiftshader' && !noLoader) {
    const gpu = mod.create([]);
    const adapter = await requestFrom(gpu);
    if (adapter) {
      keepAlive.push(gpu);
      return { ok: true, gpu: await deviceFrom(adapter) };
    }
    if (preference === 'hardware') return { ok: false, reason: 'no hardware GPU adapter' };
  } else if (preference === 'hardware') {
    return { ok: false, reason: 'no Vulkan loader (libvulkan.so.1), so no hardware GPU adapter' };
  }
  const why = await configureSwiftShader();
  if (why) return { ok: false, reason: why };
  const gpu = mod.create([]);
  const adapter = await requestFrom(gpu);
  if (!adapter) {
    return {
      ok: false,
      reason: `no GPU adapter, and SwiftShader (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES}) gave none either`,
    };
  }
  keepAlive.push(gpu);
  return { ok: true, gpu: await deviceFrom(adapter) };
}

let shared: Promise<GpuResult> | null = null;

/** one device per process (pipelines are cached per device), acquired on first use */
export function sharedGpu(preference: AdapterPreference = 'auto'): Promise<GpuResult> {
  if (!shared) shared = acquireGpu(preference);
  return shared;
}
