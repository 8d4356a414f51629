// Creates the LSP connection (transport chosen from the command line like every vscode-languageserver
// server: --stdio, --node-ipc, --socket=PORT, --pipe=NAME; stdio when none is given) and serves.
import { type Connection, ProposedFeatures, createConnection } from 'vscode-languageserver/node';
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
