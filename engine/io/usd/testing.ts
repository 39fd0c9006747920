/** helpers of the USD tests (not part of the public API): paths into ../shared, read in place */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryResolver } from '../assets/resolvers';
import { NodeFsResolver } from '../assets/node_fs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** the development asset set (`shared/assets`, MANIFEST.md) */
export const ASSETS = path.resolve(here, '../../../../shared/assets');
/** SAP Warp's offline asset mirror (`shared/reference/sap_warp/assets`, INDEX.md) */
export const SAP_ASSETS = path.resolve(here, '../../../../shared/reference/sap_warp/assets');

/** the USD models of MANIFEST.md */
export const USD_MODELS = {
  S1: 'newton/cartpole/cartpole.usda',
  S2: 'newton/ant/ant.usda',
  S3: 'newton/boxes_fourbar/boxes_fourbar.usda',
  S4: 'newton-assets/booster_t1/usd_structured/T1.usda',
  S5: 'newton-assets/anybotics_anymal_d/usd/anymal_d.usda',
  S6: 'newton/crazyflie/crazyflie.usd',
  S7: 'tinyusdz/cube.usdz',
} as const;

/** a file-system resolver over the whole machine (paths are absolute) */
export function fsResolver(): NodeFsResolver {
  return new NodeFsResolver({ root: '/' });
}

/** an in-memory resolver over text files (paths like 'root.usda', 'sub/x.usda') */
export function memResolver(files: Record<string, string | Uint8Array>): MemoryResolver {
  return new MemoryResolver(files);
}

/** a PNG signature and header: enough for the reader, which sniffs and passes the bytes on */
export const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);

/**
 * two quads in a strip (points 0 1 2 / 3 4 5), to be pasted into a Mesh prim: the shared edge 1–4
 * keeps its coordinates on the left quad's side at point 1 and gets others at point 4 (a seam), so
 * point 4 is drawn twice; a decoy `st` primvar beside the `uvmap` one
 */
export const STRIP = `
    point3f[] points = [(0,0,0), (1,0,0), (2,0,0), (0,1,0), (1,1,0), (2,1,0)]
    int[] faceVertexCounts = [4, 4]
    int[] faceVertexIndices = [0, 1, 4, 3, 1, 2, 5, 4]
    texCoord2f[] primvars:uvmap = [(0, 0), (0.5, 0), (0.5, 1), (0, 1), (1, 0), (1, 1), (0.75, 1)] (
        interpolation = "faceVarying"
    )
    int[] primvars:uvmap:indices = [0, 1, 2, 3, 1, 4, 5, 6]
    texCoord2f[] primvars:st = [(9, 9), (9, 9), (9, 9), (9, 9), (9, 9), (9, 9)] (
        interpolation = "vertex"
    )`;

/** a UsdPreviewSurface material whose texture reads the primvar named by its interface input */
export const PREVIEW_MATERIAL = `#usda 1.0
def Scope "Looks"
{
    def Material "Wood"
    {
        token outputs:surface.connect = </Looks/Wood/Surface.outputs:surface>
        string inputs:stName = "uvmap"
        def Shader "Surface"
        {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor.connect = </Looks/Wood/Image.outputs:rgb>
            token outputs:surface
        }
        def Shader "Image"
        {
            uniform token info:id = "UsdUVTexture"
            asset inputs:file = @./textures/wood.png@
            float2 inputs:st.connect = </Looks/Wood/Reader.outputs:result>
            float4 inputs:scale = (0.5, 0.8, 1, 1)
            float3 outputs:rgb
        }
        def Shader "Reader"
        {
            uniform token info:id = "UsdPrimvarReader_float2"
            string inputs:varname.connect = </Looks/Wood.inputs:stName>
            float2 outputs:result
        }
    }
    def Material "Red"
    {
        token outputs:surface.connect = </Looks/Red/Surface.outputs:surface>
        def Shader "Surface"
        {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor = (0.8, 0.1, 0.05)
            token outputs:surface
        }
    }
}
`;
