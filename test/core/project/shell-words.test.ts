// Splitting compile_commands.json's `command` strings as a POSIX shell would.
import { describe, expect, it } from 'vitest';
import { splitShellWords } from '../../../core/project/shell-words';

describe('splitShellWords', () => {
  it('splits on runs of blanks', () => {
    expect(splitShellWords('  nvcc   -c\tk.cu \n -o k.o ')).toEqual(['nvcc', '-c', 'k.cu', '-o', 'k.o']);
  });

  it('keeps quoted blanks, and joins quoted parts with their word', () => {
    expect(splitShellWords(`cc -I"/opt/my lib/include" -D'MSG="hi there"' '-DX=a b'`)).toEqual(['cc', '-I/opt/my lib/include', '-DMSG="hi there"', '-DX=a b']);
  });

  it('reads backslash escapes outside quotes and the few inside double quotes', () => {
    expect(splitShellWords(String.raw`cc -DPATH=\"/x\ y\" "-DQ=\"q\" \n"`)).toEqual(['cc', '-DPATH="/x y"', '-DQ="q" \\n']);
    expect(splitShellWords(String.raw`cc 'a\b'`)).toEqual(['cc', 'a\\b']);
  });

  it('keeps empty quoted arguments and drops line continuations', () => {
    expect(splitShellWords(`cc "" '' x`)).toEqual(['cc', '', '', 'x']);
    expect(splitShellWords('cc -DA \\\n -DB')).toEqual(['cc', '-DA', '-DB']);
  });

  it('runs an unterminated quote to the end instead of failing', () => {
    expect(splitShellWords(`cc -I"/a b`)).toEqual(['cc', '-I/a b']);
    expect(splitShellWords(`cc 'x`)).toEqual(['cc', 'x']);
    expect(splitShellWords('')).toEqual([]);
  });
});
