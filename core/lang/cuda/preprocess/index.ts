// The CUDA C preprocessor's public surface: macro tables and expansion, #if evaluation, one file's directive
// walk (the same-length text tree-sitter parses) and the translation unit's include walk.
export { evaluateCondition, evaluateConditionValue, type ConditionHooks } from './conditions';
export { preprocessFile, includeTarget, type IncludeDirective, type PreprocessedFile, type PreprocessHooks } from './directives';
export { clearScanCache, scanFile, type DirectiveLine, type FileScan } from './file-scan';
export { expandMacros, expandTokens, MacroTable, parseDefine, type ExpandOptions, type MacroDefinition } from './macros';
export { predefinedMacros, type PreprocessorOptions } from './predefined';
export { classifyMacro } from './specifier-macros';
export { classifyTokens, CUDA_KEYWORDS, type SpecifierKind } from './specifiers';
export {
  buildTranslationUnit,
  searchPathResolver,
  type IncludeResolver,
  type MissingInclude,
  type SearchPaths,
  type SourceReader,
  type TranslationUnit,
  type TranslationUnitFile,
  type TranslationUnitOptions,
} from './translation-unit';
