/** the built-in scene catalog: every `scenes/*.yaml`, each fetched as text when first opened */
const files = import.meta.glob('../scenes/*.yaml', { query: '?raw', import: 'default' }) as Record<
  string,
  () => Promise<string>
>;

export interface CatalogEntry {
  /** the file name without extension, e.g. box_stack */
  id: string;
  file_name: string;
  /** the scene file's text */
  load(): Promise<string>;
}

export const CATALOG: readonly CatalogEntry[] = Object.entries(files)
  .map(([path, load]) => {
    const file_name = path.slice(path.lastIndexOf('/') + 1);
    return { id: file_name.replace(/\.ya?ml$/, ''), file_name, load };
  })
  .sort((a, b) => a.id.localeCompare(b.id));

export const DEFAULT_SCENE = CATALOG.some((c) => c.id === 'box_stack') ? 'box_stack' : (CATALOG[0]?.id ?? '');

export function catalogEntry(id: string): CatalogEntry | undefined {
  return CATALOG.find((c) => c.id === id);
}
