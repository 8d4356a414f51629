// Entry point of dist/cli.js, required by bin/phaseflip.js.
import { EXIT_ERROR } from './errors';
import { main } from './cli';

async function run(): Promise<void> {
  // `phaseflip lint ... | head` closes stdout early; that is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  try {
    const code = await main(process.argv.slice(2), {
      stdout: (s) => void process.stdout.write(s),
      stderr: (s) => void process.stderr.write(s),
    });
    if (code !== undefined) process.exitCode = code;
  } catch (e) {
    process.stderr.write(`phaseflip: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = EXIT_ERROR;
  }
}

void run();
