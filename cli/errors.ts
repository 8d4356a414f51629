/** A command-line mistake: reported with a hint to --help, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exit statuses of every command. */
export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_ERROR = 2;

export function describeError(e: unknown): string {
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) {
    const code = String((e as { code: unknown }).code);
    const messages: Record<string, string> = {
      ENOENT: 'no such file or directory',
      EACCES: 'permission denied',
      EPERM: 'operation not permitted',
      EISDIR: 'is a directory',
      ENOTDIR: 'not a directory',
      ELOOP: 'too many levels of symbolic links',
      EMFILE: 'too many open files',
    };
    return messages[code] ?? String((e as { message: unknown }).message);
  }
  return e instanceof Error ? e.message : String(e);
}
