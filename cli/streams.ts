// Where a command writes: stdout and stderr as functions, so tests capture them and cli/main.ts
// binds them to the process. Its own module so that the commands (cli/sim.ts …) and the dispatcher
// (cli/cli.ts) share it without importing each other.

export interface Streams {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}
