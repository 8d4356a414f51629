// Creates the LSP connection (transport chosen from the command line like every vscode-languageserver
// server: --stdio, --node-ipc, --socket=PORT, --pipe=NAME; stdio when none is given) and serves.
import { type Connection, ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import { loadEngine } from '../core/index';
import { PhaseflipServer, type ServerOptions } from './server';

const TRANSPORT_FLAGS = ['--stdio', '--node-ipc', '--socket', '--pipe'];

export function hasTransportFlag(argv: readonly string[]): boolean {
  return argv.some((a) => TRANSPORT_FLAGS.some((t) => a === t || a.startsWith(`${t}=`)));
}

export function startServer(options: ServerOptions = {}): Connection {
  // vscode-languageserver reads the transport from process.argv (and only then routes console.* to
  // the client instead of stdout), so default to stdio by adding the flag rather than passing streams.
  if (!hasTransportFlag(process.argv.slice(2))) process.argv.push('--stdio');
  const connection = createConnection(ProposedFeatures.all);
  // Start compiling the CUDA grammar now, while the client's `initialize` is on its way: `initialize` awaits the
  // same promise (the grammar loads once per process), so it is answered sooner. A failure is reported there.
  loadEngine({ wasmDir: options.wasmDir ?? (typeof __dirname !== 'undefined' ? __dirname : undefined) }).catch(() => undefined);

  // Last line of defence: a bug must cost one answer, not the session.
  process.on('uncaughtException', (e) => connection.console.error(`phaseflip: uncaught exception: ${e?.stack ?? e}`));
  process.on('unhandledRejection', (e) =>
    connection.console.error(`phaseflip: unhandled rejection: ${e instanceof Error ? e.stack : String(e)}`),
  );

  connection.onInitialize(async (params) => {
    const server = await PhaseflipServer.initialize(connection, params, options);
    server.register(connection);
    return { capabilities: server.capabilities(), serverInfo: server.serverInfo() };
  });
  connection.listen();
  return connection;
}
