import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The static check behind `repository-tenancy.spec.ts`: which repository
 * methods touch a store-owned table without going through `tenancy.ts`.
 * Test support: nothing in the app imports it.
 *
 * A method touches a table when its body names the table's entity in an
 * expression (`manager.getRepository(Order)`), uses an injected TypeORM
 * repository or `EntityRows` of it (`this.orders`, `this.orderRows`), or
 * holds SQL (in its own literals or the module constants it uses) that reads
 * or writes the table (`FROM`, `JOIN`, `INTO`, `UPDATE`, `DELETE FROM`). It
 * goes through the tenancy when it calls a function of `tenancy.ts`, a
 * function of another module that does (`loadPage`, `pageOf`), or a method
 * of its own class that does.
 */

export interface MethodReport {
  /** `Class.method` */
  name: string;
  file: string;
  tables: string[];
  scoped: boolean;
}

/** Run from the repository's root, as Jest is. */
const TENANCY_MODULE = resolve(process.cwd(), 'src/database/tenancy.ts');

/** Files under `dir` whose names end with `suffix`. */
export function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => join(dir, file))
    .sort();
}

function parse(file: string, text = readFileSync(file, 'utf8')) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

function isTypePosition(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    if (ts.isTypeNode(n) || ts.isTypeAliasDeclaration(n)) return true;
    if (ts.isInterfaceDeclaration(n)) return true;
    if (
      ts.isBlock(n) ||
      ts.isSourceFile(n) ||
      ts.isExpressionStatement(n) ||
      ts.isVariableDeclaration(n)
    )
      return false;
  }
  return false;
}

function walk(node: ts.Node, visit: (node: ts.Node) => void) {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

/** `FROM x`, `JOIN x`, `INTO x`, `UPDATE x` in SQL text. */
export function tablesInSql(text: string, tables: Set<string>): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(
    /\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_][a-z0-9_]*)/gi,
  )) {
    const table = match[1].toLowerCase();
    if (tables.has(table)) found.add(table);
  }
  return [...found];
}

/**
 * Store-owned tables from the migrations: those with a `store_id`, and
 * those that reference a store-owned table (a delivery is its webhook's, a
 * file's content its file's).
 */
export function storeOwnedTablesFromMigrations(dir: string): Set<string> {
  const references = new Map<string, Set<string>>();
  for (const file of filesUnder(dir, '.ts')) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)\s*\(/g,
    )) {
      let depth = 1;
      let i = match.index + match[0].length;
      while (depth > 0 && i < text.length) {
        if (text[i] === '(') depth++;
        else if (text[i] === ')') depth--;
        i++;
      }
      const body = text.slice(match.index + match[0].length, i);
      const refs = references.get(match[1]) ?? new Set<string>();
      if (/\bstore_id\b/.test(body)) refs.add('stores');
      for (const ref of body.matchAll(/REFERENCES\s+([a-z_][a-z0-9_]*)/g))
        refs.add(ref[1]);
      references.set(match[1], refs);
    }
    for (const match of text.matchAll(
      /ALTER TABLE ([a-z_][a-z0-9_]*)[^;`]*?REFERENCES\s+([a-z_][a-z0-9_]*)/g,
    )) {
      references.get(match[1])?.add(match[2]);
    }
  }
  const owned = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [table, refs] of references) {
      if (owned.has(table) || table === 'stores') continue;
      if ([...refs].some((ref) => ref === 'stores' || owned.has(ref))) {
        owned.add(table);
        grew = true;
      }
    }
  }
  return owned;
}

/** Exported functions of a module that reach the tenancy (cached per file). */
const reachingCache = new Map<string, Set<string>>();

function tenancyFunctionsOf(file: string): Set<string> {
  if (file === TENANCY_MODULE) {
    const exported = new Set<string>();
    parse(file).forEachChild((node) => {
      if (
        (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) &&
        node.name &&
        node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
      )
        exported.add(node.name.text);
    });
    return exported;
  }
  const cached = reachingCache.get(file);
  if (cached) return cached;
  const result = new Set<string>();
  reachingCache.set(file, result);
  let source: ts.SourceFile;
  try {
    source = parse(file);
  } catch {
    return result;
  }
  const imported = tenancyImports(source);
  source.forEachChild((node) => {
    if (ts.isFunctionDeclaration(node) && node.name && node.body) {
      if (callsAny(node.body, imported)) result.add(node.name.text);
    }
  });
  return result;
}

/** Local names, in `source`, of functions that reach the tenancy. */
function tenancyImports(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (
      !ts.isImportDeclaration(statement) ||
      !ts.isStringLiteral(statement.moduleSpecifier)
    )
      continue;
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith('.')) continue;
    const target = resolve(dirname(source.fileName), `${specifier}.ts`);
    const reaching = tenancyFunctionsOf(target);
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      const original = (element.propertyName ?? element.name).text;
      if (reaching.has(original)) names.add(element.name.text);
    }
  }
  return names;
}

function callsAny(body: ts.Node, names: Set<string>): boolean {
  let found = false;
  walk(body, (node) => {
    if (ts.isIdentifier(node) && names.has(node.text) && !isTypePosition(node))
      found = true;
  });
  return found;
}

/** The text of module-level constants and functions, by name. */
function moduleConstants(source: ts.SourceFile): Map<string, ts.Node> {
  const constants = new Map<string, ts.Node>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer)
          constants.set(declaration.name.text, declaration.initializer);
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      constants.set(statement.name.text, statement);
    }
  }
  return constants;
}

/** `@InjectRepository(Entity)` parameters and `new EntityRows(this.repo, …)` fields, as entity names. */
function repositoryFields(cls: ts.ClassDeclaration): Map<string, string> {
  const fields = new Map<string, string>();
  for (const member of cls.members) {
    if (!ts.isConstructorDeclaration(member)) continue;
    for (const parameter of member.parameters) {
      for (const decorator of ts.getDecorators(parameter) ?? []) {
        const call = decorator.expression;
        if (
          ts.isCallExpression(call) &&
          ts.isIdentifier(call.expression) &&
          call.expression.text === 'InjectRepository' &&
          ts.isIdentifier(call.arguments[0]) &&
          ts.isIdentifier(parameter.name)
        )
          fields.set(parameter.name.text, call.arguments[0].text);
      }
    }
    walk(member, (node) => {
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(node.left) &&
        ts.isNewExpression(node.right) &&
        ts.isIdentifier(node.right.expression) &&
        node.right.expression.text === 'EntityRows'
      ) {
        const repository = node.right.arguments?.[0];
        const name =
          repository && ts.isIdentifier(repository)
            ? repository.text
            : undefined;
        const entity = name ? fields.get(name) : undefined;
        if (entity) fields.set(node.left.name.text, entity);
      }
    });
  }
  return fields;
}

/**
 * Every method of every class in `file`, with the store-owned tables it
 * touches and whether it goes through the tenancy. `entityTables` maps
 * entity class names to their tables; `owned` is the store-owned tables.
 */
export function analyseRepository(
  file: string,
  entityTables: Map<string, string>,
  owned: Set<string>,
  text?: string,
): MethodReport[] {
  const source = parse(file, text);
  const tenancy = tenancyImports(source);
  const constants = moduleConstants(source);
  const reports: MethodReport[] = [];
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || !statement.name) continue;
    const fields = repositoryFields(statement);
    const methods = new Map<string, ts.Node>();
    for (const member of statement.members) {
      if (
        (ts.isMethodDeclaration(member) ||
          ts.isGetAccessorDeclaration(member)) &&
        member.body &&
        (ts.isIdentifier(member.name) || ts.isPrivateIdentifier(member.name))
      )
        methods.set(member.name.text, member.body);
    }
    const calls = new Map<string, Set<string>>();
    const direct = new Map<string, boolean>();
    const touched = new Map<string, Set<string>>();
    for (const [name, body] of methods) {
      const tables = new Set<string>();
      const own = new Set<string>();
      let scoped = false;
      const seen = new Set<ts.Node>();
      const visit = (node: ts.Node) => {
        if (
          ts.isStringLiteral(node) ||
          ts.isNoSubstitutionTemplateLiteral(node) ||
          ts.isTemplateHead(node) ||
          ts.isTemplateMiddle(node) ||
          ts.isTemplateTail(node)
        ) {
          for (const table of tablesInSql(node.text, owned)) tables.add(table);
        } else if (ts.isIdentifier(node) && !isTypePosition(node)) {
          if (tenancy.has(node.text)) scoped = true;
          const table = entityTables.get(node.text);
          if (
            table &&
            owned.has(table) &&
            !ts.isPropertyAccessExpression(node.parent)
          )
            tables.add(table);
          const constant = constants.get(node.text);
          if (constant && !seen.has(constant)) {
            seen.add(constant);
            walk(constant, visit);
          }
        } else if (
          ts.isPropertyAccessExpression(node) &&
          node.expression.kind === ts.SyntaxKind.ThisKeyword
        ) {
          const entity = fields.get(node.name.text);
          const table = entity ? entityTables.get(entity) : undefined;
          if (table && owned.has(table)) tables.add(table);
          if (methods.has(node.name.text)) own.add(node.name.text);
        }
      };
      walk(body, visit);
      calls.set(name, own);
      direct.set(name, scoped);
      touched.set(name, tables);
    }
    const reaches = (name: string, path = new Set<string>()): boolean => {
      if (direct.get(name)) return true;
      if (path.has(name)) return false;
      path.add(name);
      return [...(calls.get(name) ?? [])].some((callee) =>
        reaches(callee, path),
      );
    };
    for (const [name, tables] of touched) {
      if (tables.size === 0) continue;
      reports.push({
        name: `${statement.name.text}.${name}`,
        file,
        tables: [...tables].sort(),
        scoped: reaches(name),
      });
    }
  }
  return reports;
}
