// Whether a Python file is a tilus file: the language's registry entry (index.ts) asks it of every `.py` file a
// directory walk finds, without loading the Python grammar.

/** Whether a Python text uses tilus: it imports `tilus` (or a submodule, or names from it). */
export function importsTilus(text: string): boolean {
  return /^[ \t]*(?:import[ \t]+tilus\b|from[ \t]+tilus(?:\.[\w.]+)?[ \t]+import\b)/m.test(text);
}
