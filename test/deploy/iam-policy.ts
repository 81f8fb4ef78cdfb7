/**
 * IAM identity-policy evaluation, for the deploy test: moto's IAM does not enforce resources or conditions, so
 * the test decides itself whether the deployed role's statements allow each AWS call the function made.
 *
 * What is evaluated (enough for this stack, and strict where it is not): Allow and Deny statements; Action and
 * NotAction with `*` and `?` wildcards (case-insensitive, as IAM); Resource and NotResource with wildcards
 * (case-sensitive); conditions with the String, Arn and Bool operators, their `IfExists` forms and the
 * `ForAllValues:` / `ForAnyValue:` set qualifiers. An operator not listed here makes the statement not apply
 * (an Allow then grants nothing, so an unevaluated condition can only make the test fail, never pass).
 */

/** One statement of a policy document. */
export interface Statement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly NotResource?: string | readonly string[];
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
}

/** A policy document (identity policy). */
export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: Statement | readonly Statement[];
}

/** A request to authorize: one action on one resource, with the condition keys the request carries. */
export interface AuthzRequest {
  /** `service:Action`, e.g. `dynamodb:PutItem`. */
  readonly action: string;
  /** The resource's ARN. */
  readonly resource: string;
  /** Condition keys of the request (multi-valued keys such as `dynamodb:LeadingKeys` as lists). */
  readonly context: Readonly<Record<string, readonly string[]>>;
}

/** The decision, with the statements that made it. */
export interface Decision {
  readonly allowed: boolean;
  /** Why, in words: the allowing statement, the explicit deny, or "no statement allows". */
  readonly reason: string;
}

const list = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : value;

/** IAM's wildcard match: `*` any run of characters, `?` one character. */
export function wildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

type Comparator = (policyValue: string, requestValue: string) => boolean;

const COMPARATORS: Record<string, { compare: Comparator; negated: boolean }> = {
  StringEquals: { compare: (p, r) => p === r, negated: false },
  StringNotEquals: { compare: (p, r) => p === r, negated: true },
  StringEqualsIgnoreCase: { compare: (p, r) => p.toLowerCase() === r.toLowerCase(), negated: false },
  StringNotEqualsIgnoreCase: { compare: (p, r) => p.toLowerCase() === r.toLowerCase(), negated: true },
  StringLike: { compare: (p, r) => wildcardMatch(p, r), negated: false },
  StringNotLike: { compare: (p, r) => wildcardMatch(p, r), negated: true },
  ArnEquals: { compare: (p, r) => p === r, negated: false },
  ArnNotEquals: { compare: (p, r) => p === r, negated: true },
  ArnLike: { compare: (p, r) => wildcardMatch(p, r), negated: false },
  ArnNotLike: { compare: (p, r) => wildcardMatch(p, r), negated: true },
  Bool: { compare: (p, r) => p.toLowerCase() === r.toLowerCase(), negated: false },
};

/** Whether one condition block (operator -> key -> values) holds for the request; undefined: not evaluable. */
function conditionHolds(
  operatorText: string,
  entries: Readonly<Record<string, string | readonly string[]>>,
  context: AuthzRequest['context'],
): boolean | undefined {
  let operator = operatorText;
  let qualifier: 'all' | 'any' | undefined;
  if (operator.startsWith('ForAllValues:')) {
    qualifier = 'all';
    operator = operator.slice('ForAllValues:'.length);
  } else if (operator.startsWith('ForAnyValue:')) {
    qualifier = 'any';
    operator = operator.slice('ForAnyValue:'.length);
  }
  const ifExists = operator.endsWith('IfExists');
  if (ifExists) operator = operator.slice(0, -'IfExists'.length);
  const comparator = COMPARATORS[operator];
  if (comparator === undefined) return undefined;
  return Object.entries(entries).every(([key, policyValues]) => {
    const wanted = list(policyValues);
    const requestValues = Object.entries(context).find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
    const matchesOne = (value: string) => wanted.some((p) => comparator.compare(p, value));
    if (qualifier === 'all') {
      // Vacuously true for a request without the key, as IAM.
      const values = requestValues ?? [];
      return values.every((value) => (comparator.negated ? !matchesOne(value) : matchesOne(value)));
    }
    if (qualifier === 'any') {
      const values = requestValues ?? [];
      return values.some((value) => (comparator.negated ? !matchesOne(value) : matchesOne(value)));
    }
    if (requestValues === undefined || requestValues.length === 0) return ifExists;
    const value = requestValues[0]!;
    return comparator.negated ? !matchesOne(value) : matchesOne(value);
  });
}

/** Whether a statement applies to the request: undefined when a condition cannot be evaluated. */
export function statementApplies(statement: Statement, request: AuthzRequest): boolean | undefined {
  const actionMatches = (patterns: readonly string[]) =>
    patterns.some((p) => wildcardMatch(p, request.action, true));
  const resourceMatches = (patterns: readonly string[]) =>
    patterns.some((p) => wildcardMatch(p, request.resource));
  if (statement.Action !== undefined && !actionMatches(list(statement.Action))) return false;
  if (statement.NotAction !== undefined && actionMatches(list(statement.NotAction))) return false;
  if (statement.Action === undefined && statement.NotAction === undefined) return false;
  if (statement.Resource !== undefined && !resourceMatches(list(statement.Resource))) return false;
  if (statement.NotResource !== undefined && resourceMatches(list(statement.NotResource))) return false;
  if (statement.Resource === undefined && statement.NotResource === undefined) return false;
  let evaluable = true;
  for (const [operator, entries] of Object.entries(statement.Condition ?? {})) {
    const holds = conditionHolds(operator, entries, request.context);
    if (holds === false) return false;
    if (holds === undefined) evaluable = false;
  }
  return evaluable ? true : undefined;
}

/** Evaluates identity policies as IAM does for one principal: an explicit Deny wins, else an Allow is needed. */
export function evaluate(policies: readonly PolicyDocument[], request: AuthzRequest): Decision {
  const statements = policies.flatMap((policy) =>
    Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement as Statement],
  );
  const describe = (s: Statement) => s.Sid ?? JSON.stringify(s);
  const unevaluated: string[] = [];
  let allow: Statement | undefined;
  for (const statement of statements) {
    const applies = statementApplies(statement, request);
    if (applies === undefined) {
      unevaluated.push(describe(statement));
      continue;
    }
    if (!applies) continue;
    if (statement.Effect === 'Deny')
      return { allowed: false, reason: `explicitly denied by ${describe(statement)}` };
    allow ??= statement;
  }
  if (allow !== undefined) return { allowed: true, reason: `allowed by ${describe(allow)}` };
  return {
    allowed: false,
    reason:
      'no statement allows it' +
      (unevaluated.length ? ` (conditions not evaluated in: ${unevaluated.join('; ')})` : ''),
  };
}
