import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// headless WebGPU (SPEC §6): Dawn finds SwiftShader through VK_ICD_FILENAMES. Set it here, in the
// main process, because test worker threads cannot change the native environment the Vulkan loader
// reads; an explicit value is kept. (engine/backends/webgpu/device.ts loads the Vulkan loader.)
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD))
  process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;

export default defineConfig({
  // a test build: the worker protocol accepts its fault-injection command (engine/worker/protocol.ts)
  define: { __SAP_TEST_BUILD__: 'true' },
  test: {
    include: ['engine/**/*.test.ts', 'scenes/**/*.test.ts', 'app/**/*.test.ts', 'examples/**/*.test.ts'],
    // WebGPU tests on SwiftShader take minutes on a loaded 2-core machine; a timed-out one whose Dawn
    // work later throws aborts the whole run (napi_throw), so the limit is generous
    testTimeout: 360_000,
    pool: 'threads',
  },
});
