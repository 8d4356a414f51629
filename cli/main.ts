// The `phaseflip` process: runs the command line on this process's arguments and streams, and sets
// the exit status. entry/phaseflip.ts (the entry of dist/cli.js) calls it with the protocol servers.
import { EXIT_ERROR } from './errors';
import { type ProtocolServers, main } from './cli';

export async function runCommandLine(servers: ProtocolServers): Promise<void> {
  // `phaseflip lint ... | head` closes stdout early; that is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  try {
    const code = await main(
      process.argv.slice(2),
      {
        stdout: (s) => void process.stdout.write(s),
        stderr: (s) => void process.stderr.write(s),
      },
      servers,
    );
    if (code !== undefined) process.exitCode = code;
  } catch (e) {
    process.stderr.write(`phaseflip: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = EXIT_ERROR;
  }
}
