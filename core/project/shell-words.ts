// Splits a compile command line into its arguments the way a POSIX shell would (the `command` field of
// compile_commands.json is a shell command; clangd splits it the same way on Linux and macOS).

/**
 * The words of `command`: blanks separate words; 'single quotes' keep everything literally; "double
 * quotes" keep everything except \" \\ \$ \` and a backslash-newline; outside quotes a backslash keeps
 * the next character. An unterminated quote runs to the end of the text rather than failing, so a
 * truncated command still yields its flags.
 */
export function splitShellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  // A word exists once any of its characters was seen, so '' and "" make an empty argument.
  let inWord = false;
  let i = 0;
  const n = command.length;
  while (i < n) {
    const c = command[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    if (c === '\\' && command[i + 1] === '\n') {
      // A line continuation joins lines and is not part of any word.
      i += 2;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word += command.slice(i + 1, end < 0 ? n : end);
      i = end < 0 ? n : end + 1;
    } else if (c === '"') {
      i++;
      while (i < n && command[i] !== '"') {
        if (command[i] === '\\' && i + 1 < n && '"\\$`\n'.includes(command[i + 1]!)) {
          if (command[i + 1] !== '\n') word += command[i + 1];
          i += 2;
        } else word += command[i++];
      }
      i++;
    } else if (c === '\\') {
      word += i + 1 < n ? command[i + 1] : '\\';
      i += 2;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
