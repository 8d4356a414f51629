// SARIF 2.1.0 for code-scanning tools (GitHub, Azure DevOps, VS Code SARIF viewer). Rule ids are the
// stable codes (PF103), rule names the kebab-case ids; regions are 1-based with UTF-16 columns
// (SARIF's default columnKind) and an exclusive end column; artifact URIs are relative to the
// working directory (%SRCROOT%).
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIRECTIVE_RULES, DOCS_BASE_URL, type Finding, type Range, RULES, type RuleDef, type Severity } from '../../core/index';
import type { LintRun } from '../lint-run';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const INFORMATION_URI = 'https://github.com/phaseflip/phaseflip';
const SRCROOT = '%SRCROOT%';

type Level = 'error' | 'warning' | 'note' | 'none';

export function sarifLevel(severity: Severity): Level {
  return severity === 'error' ? 'error' : severity === 'warning' ? 'warning' : 'note';
}

export function ruleHelpUri(rule: RuleDef): string {
  return `${DOCS_BASE_URL}${rule.meta.id}.md`;
}

interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  helpUri: string;
  defaultConfiguration: { level: Level };
  properties: { family: string; tags: string[] };
}

export function formatSarif(run: LintRun, info: { version: string; cwd: string }): string {
  const byCode = [...RULES].sort((a, b) => (a.meta.code < b.meta.code ? -1 : a.meta.code > b.meta.code ? 1 : 0));
  const rules: SarifRule[] = byCode.map((r) => ({
    id: r.meta.code,
    name: r.meta.id,
    shortDescription: { text: r.meta.summary },
    helpUri: ruleHelpUri(r),
    defaultConfiguration: { level: sarifLevel(r.meta.defaultSeverity) },
    properties: { family: r.meta.family, tags: ['mbarrier', r.meta.family] },
  }));
  for (const d of DIRECTIVE_RULES) {
    rules.push({
      id: d.code,
      name: d.id,
      shortDescription: { text: d.summary },
      helpUri: `${INFORMATION_URI}/blob/main/docs/suppressions.md#${d.id}`,
      defaultConfiguration: { level: sarifLevel(d.defaultSeverity) },
      properties: { family: 'suppression', tags: ['suppression'] },
    });
  }
  rules.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const ruleIndex = (f: Finding): number => {
    let i = index.get(f.code);
    if (i === undefined) {
      // A finding from a rule the registry does not list: describe it from the finding itself.
      i = rules.length;
      rules.push({
        id: f.code,
        name: f.ruleId,
        shortDescription: { text: f.ruleId },
        helpUri: f.docsUrl || INFORMATION_URI,
        defaultConfiguration: { level: sarifLevel(f.severity) },
        properties: { family: f.family, tags: ['mbarrier', f.family] },
      });
      index.set(f.code, i);
    }
    return i;
  };

  const results = run.files.flatMap((file) => {
    const uri = relativeUri(file.path, info.cwd);
    return file.findings.map((f) => ({
      ruleId: f.code,
      ruleIndex: ruleIndex(f),
      level: sarifLevel(f.severity),
      message: { text: f.message },
      locations: [location(uri, f.range)],
      ...(f.related.length > 0
        ? {
            relatedLocations: f.related.map((r, id) => ({ id, ...location(r.range.file ? relativeUri(r.range.file, info.cwd) : uri, r.range), message: { text: r.message } })),
          }
        : {}),
      properties: { family: f.family, ruleId: f.ruleId, helpUri: f.docsUrl },
    }));
  });

  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'phaseflip',
            version: info.version,
            semanticVersion: info.version,
            informationUri: INFORMATION_URI,
            rules,
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(info.cwd + path.sep).href } },
        invocations: [
          {
            executionSuccessful: run.errors.length === 0,
            toolExecutionNotifications: run.errors.map((e) => ({ level: 'error', message: { text: e } })),
          },
        ],
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function location(uri: string, range: Range) {
  return {
    physicalLocation: {
      artifactLocation: { uri, uriBaseId: SRCROOT },
      region: {
        startLine: range.start.line + 1,
        startColumn: range.start.character + 1,
        endLine: range.end.line + 1,
        endColumn: range.end.character + 1,
      },
    },
  };
}

/** A relative URI reference (forward slashes, percent-encoded) from `cwd` to `file`. */
export function relativeUri(file: string, cwd: string): string {
  const rel = path.relative(cwd, path.resolve(cwd, file)).split(path.sep).join('/');
  return rel
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}
