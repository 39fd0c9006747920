/**
 * Test-only GPU access: sets up SwiftShader (VK_ICD_FILENAMES and the Vulkan loader) in this
 * process, then acquires the shared device. GPU tests skip with `reason` when no adapter exists.
 */
import { existsSync } from 'node:fs';
import { SWIFTSHADER_ICD, configureSwiftShader, sharedGpu, type GpuResult } from '../device';

/** the shared device for tests (SwiftShader when its ICD is installed and no ICD is configured) */
export async function testGpu(): Promise<GpuResult> {
  await configureSwiftShader();
  return sharedGpu('auto');
}

/** true when this machine has SwiftShader, so a GPU test must not skip */
export function swiftShaderInstalled(): boolean {
  return existsSync(SWIFTSHADER_ICD);
}
