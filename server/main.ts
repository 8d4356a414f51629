// Entry point of dist/server.js: `node dist/server.js --stdio | --node-ipc | --socket=PORT | --pipe=NAME`.
import { version } from '../package.json';
import { startServer } from './start';

startServer({ version });
