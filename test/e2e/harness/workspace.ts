// A scratch workspace for the end-to-end suites: a copy of the repository's examples (so quick
// fixes and debug sessions never touch the originals) plus an optional .vscode/launch.json.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { freshStateDir } from './code-server';
import { repoRoot } from './paths';

export function scratchWorkspace(launchConfigurations: Record<string, unknown>[] = []): string {
  const folder = path.join(freshStateDir('phaseflip-workspace-'), 'examples');
  for (const sub of ['bugs', 'good', 'croqtile']) {
    cpSync(path.join(repoRoot, 'examples', sub), path.join(folder, sub), { recursive: true });
  }
  if (launchConfigurations.length > 0) {
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    writeFileSync(
      path.join(folder, '.vscode', 'launch.json'),
      JSON.stringify({ version: '0.2.0', configurations: launchConfigurations }, null, 2),
    );
  }
  return folder;
}
