// API boundary of the engine: the only module faces import. Text in, plain data out.
export * from './api';
export { Engine, EngineDocument, loadEngine, languageForPath } from './engine';
export type { EngineOptions, ContentChange } from './engine';
export { RULES, ruleByIdOrCode } from './rules/index';
export type { RuleDef } from './rules/types';
export { inlineValueNames, languageForEditorId, launchTemplates } from './languages';
export { simulate } from './simulate';
export type { InlineValueName } from './lang/inline-values';
