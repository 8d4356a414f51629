// A frame whose Content-Length is larger than what was sent swallows the start of the next frame; the reader
// must find its way back to the next Content-Length instead of losing every later message (fuzz finding).
import { describe, expect, it } from 'vitest';
import { FrameReader } from '../../debugger/frames';

function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe('FrameReader after a frame with a wrong Content-Length', () => {
  it('resumes at the next Content-Length and reads the later messages', () => {
    const messages: unknown[] = [];
    const problems: string[] = [];
    const reader = new FrameReader({ message: (m) => messages.push(m), problem: (p) => problems.push(p) });
    const next = JSON.stringify({ seq: 2, type: 'request', command: 'threads' });
    const last = JSON.stringify({ seq: 3, type: 'request', command: 'threads' });
    // The first header announces 3 bytes but sends none: "Con" of the next header becomes its body.
    reader.push(Buffer.from(`content-length: 3\r\n\r\n${frame(next)}${frame(last)}`));
    expect(problems.some((p) => /not JSON/.test(p))).toBe(true);
    // The swallowed bytes are read again, so even the frame whose header they began is recovered.
    expect(messages).toEqual([JSON.parse(next), JSON.parse(last)]);
  });
  it('resumes when the next frame arrives in a later chunk, byte by byte', () => {
    const messages: unknown[] = [];
    const reader = new FrameReader({ message: (m) => messages.push(m), problem: () => {} });
    reader.push(Buffer.from('Content-Length: 5\r\n\r\n{"a":'));
    const later = frame(JSON.stringify({ seq: 4, type: 'request', command: 'threads' }));
    for (const byte of Buffer.from(later)) reader.push(Buffer.from([byte]));
    expect(messages).toEqual([{ seq: 4, type: 'request', command: 'threads' }]);
  });
});
