// Entry point that a VS Code extension host loads through --extensionTestsPath: runs the compiled
// suites (suite/*.js next to this file) with mocha and writes a results file, because the runner
// cannot always see the extension host's output (code-server keeps it in its own logs).
import { readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export interface ExtensionTestResults {
  passed: string[];
  failed: { title: string; error: string }[];
  /** Tests mocha found. */
  total: number;
  /** False when mocha never got to its end event. */
  finished: boolean;
}

/** Where results go: $PHASEFLIP_EXT_TEST_RESULTS, else results.json next to this file. */
export function resultsFile(): string {
  return process.env.PHASEFLIP_EXT_TEST_RESULTS || path.join(__dirname, 'results.json');
}

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  const suiteDir = path.join(__dirname, 'suite');
  const files = readdirSync(suiteDir).filter((f) => f.endsWith('.js') && f !== 'helpers.js').sort();
  for (const file of files) mocha.addFile(path.join(suiteDir, file));
  const results: ExtensionTestResults = { passed: [], failed: [], total: 0, finished: false };
  const save = () => writeFileSync(resultsFile(), JSON.stringify(results, null, 2));
  save();
  const failures = await new Promise<number>((resolve, reject) => {
    try {
      const runner = mocha.run((count) => resolve(count));
      results.total = runner.total;
      runner.on('pass', (test) => {
        results.passed.push(test.fullTitle());
        save();
      });
      runner.on('fail', (test, error: Error) => {
        results.failed.push({ title: test.fullTitle(), error: error?.stack ?? String(error) });
        save();
      });
    } catch (error) {
      reject(error);
    }
  });
  results.finished = true;
  save();
  if (failures > 0) throw new Error(`${failures} extension test(s) failed`);
}
