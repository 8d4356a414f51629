// API boundary of the engine: the only module faces (cli/, server/, debugger/, client/) import.
// Text in, plain data out; grouped by capability, each name exported on purpose.

// Plain data types shared by every capability (positions, findings, hovers, symbols, options).
export * from './api';

// Lint, hover, symbols and the kernel IR as text: the engine and its incremental documents.
export { Engine, EngineDocument, loadEngine, languageForPath } from './engine';
export type { EngineOptions, ContentChange } from './engine';
// The project documents belong to: their includes and compile flags (clangd's conventions).
export { Project, type ProjectOptions, isSourceFile } from './project/project';
export { readRegularFile, readRegularText } from './project/bounded-read';
export type { ProjectServices, UnitFlags } from './project/services';

// Rules: the registry, and the `phaseflip.rules` / `--rule` settings that tune it.
export { RULES, ruleByIdOrCode } from './rules/index';
export { findingKey, mergeDuplicateFinding, mergeFindings } from './rules/run';
export type { RuleDef } from './rules/types';
export { RULE_SETTINGS, isKnownRule, isRuleSetting, lintOptionsFor, mergeRuleSettings, parseRuleSettings } from './rule-settings';
export type { RuleSetting } from './rule-settings';
// Inline suppressions (`// phaseflip-ignore PF401: why`), applied by the engine; their own findings PF000/PF001.
export { DIRECTIVE_RULES, suppressionFix } from './suppressions';
export type { DirectiveRuleMeta } from './suppressions';
// The project configuration file `.phaseflip.json` (docs/configuration.md), read by the CLI and the language server.
export { CONFIG_FILE_NAME, isExcludedByConfig, parseProjectConfig } from './project/config-file';
export type { ProjectConfig } from './project/config-file';

// Compile flags: include directories, macros and the GPU architecture of a file, from the user's flags,
// compile_commands.json, compile_flags.txt or .clangd (docs/compile-flags.md).
export { clearCompileFlagsCache, flagsForFile, parseCudaArch, projectConfigFor } from './project/compile-flags';
export type { CompileFlags, ExplicitFlags, FlagsFileSystem, FlagsOptions } from './project/compile-flags';
// Launch shapes stated outside the source: the `phaseflip.launch` setting and `--launch` (docs/launch-shapes.md).
export { parseLaunchFlag, parseLaunchSettings } from './project/launch-settings';
export type { LaunchSetting } from './project/launch-settings';

// Inline values: the names an editor shows values for while a debug session is stopped.
export { headerHoldsCode, inlineValueNames, languageForEditorId, languageForHeader, lineComment, lintedExtensions, notOfLanguage } from './languages';
export type { InlineValueName } from './lang/inline-values';

// Code lenses and F5 without launch.json: launch templates derived from a kernel's signature.
export { launchTemplates } from './languages';
// The code lens above a kernel whose language gives its extent (a tilus Script): autotune space, barriers, findings.
export { kernelOverviews } from './kernel-overview';
export type { KernelOverview } from './kernel-overview';
export { LAUNCH_PROVENANCE_KEYS, launchConfiguration } from './sim/launch-template';
export type { LaunchConfiguration, LaunchTemplate } from './sim/launch-template';

// Launch-request validation: a launch description into a simulator request, problems naming the field.
export {
  LAUNCH_INTEGERS,
  LaunchRequestError,
  MAX_DYNAMIC_SMEM,
  SCHEDULES,
  bindNpyFile,
  describeLaunchProblem,
  isLaunchInteger,
  isSchedule,
  launchLanguage,
  toDim3,
  validateLaunch,
} from './launch-request';
export type { IntegerLaunchField, LaunchDescription, LaunchProblem, LaunchRequest } from './launch-request';
export { preloadLanguages } from './preload';

// Simulate: run a whole request, its result, and the machine's defaults and errors.
export { simulate } from './simulate';
export { definesMain } from './sim/run';
export type { ArgSpec, BarrierSummary, SimulateRequest, SimulateResult } from './sim/run';
export { DEFAULT_LATENCIES, DEFAULT_MAX_STEPS, SimError } from './sim/machine';
export type { Dim3, LaunchField, Latencies, SchedulePolicy } from './sim/machine';

// Debug runtime: the simulator driven step by step, with plain-data views for a debug adapter.
export { createDebugRuntime } from './debug-programs';
export { barrierNameMatches } from './debug/runtime';
export type { BarrierView, BufferView, DebugRuntime, DebugStop, ExceptionFilter, PhaseFlip, SharedBufferView } from './debug/runtime';
export type { LocalInfo } from './debug/target';

// Values and files: element types, simulated memory, .npy files, Chrome traces, number formatting.
export { load, sizeOf } from './sim/dtypes';
export type { DType } from './sim/dtypes';
export type { Buffer } from './sim/memory';
export { NpyError, parseNpy, toNpy } from './sim/npy';
export { toChromeTrace } from './sim/trace';
export type { ChromeTraceEvent, TraceThread } from './sim/trace';
// The barrier timeline: its model (from the trace), the page that draws it, and that page's renderer.
export { buildTimeline, sourceKey } from './sim/timeline';
export type { TimelineModel, TimelineSource } from './sim/timeline';
export { timelineHtml } from './sim/timeline-html';
export { numberRanges, withCommas } from './sim/format';
