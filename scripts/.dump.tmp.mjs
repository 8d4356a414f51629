import {Parser, Language} from 'web-tree-sitter';
import {readFileSync} from 'fs';
await Parser.init();
const lang = await Language.load('node_modules/tree-sitter-cuda/tree-sitter-cuda.wasm');
const p = new Parser(); p.setLanguage(lang);
const src = readFileSync(process.argv[2],'utf8');
const tree = p.parse(src);
function dump(n, d, field){ const named = n.isNamed; if (!named && !process.argv[3]) return;
  console.log('  '.repeat(d) + (field?field+': ':'') + (named? n.type : JSON.stringify(n.type)) + (n.childCount===0? ' '+JSON.stringify(n.text):''));
  for (let i=0;i<n.childCount;i++) dump(n.child(i), d+1, n.fieldNameForChild(i)); }
dump(tree.rootNode,0);
