// Entry point of dist/server.js, what editors start (`node dist/server.js --stdio | --node-ipc | ...`): runs the
// language server's bundle (dist/server-main.js, from server/main.ts) through the code cache and V8 flags of
// ./load-bundle.ts.
import * as path from 'node:path';
import { runBundle } from './load-bundle';

runBundle(path.join(__dirname, 'server-main.js'));
