// Include search as compilers do it: `"x"` from the including file's folder, then the quote, include and
// system folders; `<x>` through the include and system folders only.
import * as path from 'node:path';

export interface IncludeResolver {
  /** The file an include names, or undefined. `from` is the including file's path. */
  resolve(spelling: string, angled: boolean, from: string): string | undefined;
}

export interface SearchPaths {
  /** `-iquote` folders: `"x"` only, after the including file's folder. */
  quote?: readonly string[];
  /** `-I` folders. */
  include: readonly string[];
  /** `-isystem` folders and the CUDA toolkit's include folder, searched last. */
  system?: readonly string[];
}

/**
 * A resolver over search folders; `exists` tells whether a file is there (called with normalised paths). Answers
 * are remembered for the resolver's lifetime: make a new one when files may have appeared or gone.
 */
export function searchPathResolver(dirs: SearchPaths, exists: (path: string) => boolean): IncludeResolver {
  const angledDirs = [...dirs.include, ...(dirs.system ?? [])];
  const quotedDirs = [...(dirs.quote ?? []), ...angledDirs];
  const found = new Map<string, string | undefined>();
  const probe = (candidate: string): string | undefined => {
    const p = path.resolve(candidate);
    let hit = found.get(p);
    if (hit === undefined && !found.has(p)) {
      hit = exists(p) ? p : undefined;
      found.set(p, hit);
    }
    return hit;
  };
  // Answers by (spelling, including file): a re-walk resolves every include with one lookup.
  const answers = new Map<string, string | undefined>();
  const search = (spelling: string, angled: boolean, from: string): string | undefined => {
    if (spelling === '') return undefined;
    if (path.isAbsolute(spelling)) return probe(spelling);
    if (!angled) {
      const local = probe(path.join(path.dirname(from), spelling));
      if (local) return local;
    }
    for (const dir of angled ? angledDirs : quotedDirs) {
      const hit = probe(path.join(dir, spelling));
      if (hit) return hit;
    }
    return undefined;
  };
  return {
    resolve(spelling: string, angled: boolean, from: string): string | undefined {
      const key = angled && !path.isAbsolute(spelling) ? `<${spelling}` : `"${spelling}\u0000${from}`;
      let hit = answers.get(key);
      if (hit === undefined && !answers.has(key)) {
        hit = search(spelling, angled, from);
        answers.set(key, hit);
      }
      return hit;
    },
  };
}
