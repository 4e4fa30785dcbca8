import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deserializeOutput,
  fromAttributeMap,
  serializeInput,
  toAttributeMap,
} from '../../../../lambda/shared/aws/dynamodb.js';

const SDK_OPTIONS = { removeUndefinedValues: true } as const;

/** The SDK's marshalled form with binaries as base64, as they go on the wire. */
const wire = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_key, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)));

const outcome = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch {
    return { threw: true };
  }
};

const key = fc.string({ maxLength: 6 });
const safeNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }),
  fc.maxSafeInteger(),
  fc.constantFrom(0, -0, 0.1, 1e-7, 123456789.125),
);
const binary = fc.uint8Array({ maxLength: 12 });
const scalar = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  safeNumber,
  fc.boolean(),
  fc.constant(null),
  binary,
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
);
const sets = fc.oneof(
  fc.uniqueArray(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 4 }).map((a) => new Set(a)),
  fc.uniqueArray(safeNumber, { minLength: 1, maxLength: 4 }).map((a) => new Set(a)),
  fc.array(fc.oneof(fc.string({ minLength: 1, maxLength: 3 }), fc.constant(undefined)), { minLength: 1, maxLength: 4 })
    .filter((a) => a.some((v) => v !== undefined))
    .map((a) => new Set(a)),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    sets,
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));
const item = fc.dictionary(key, value, { maxKeys: 6 });

describe('marshalling: equality with @aws-sdk/util-dynamodb (removeUndefinedValues)', () => {
  it('marshalls generated items as the SDK does (B as base64)', () => {
    fc.assert(
      fc.property(item, (it) => {
        expect(toAttributeMap(it)).toEqual(wire(marshall(it, SDK_OPTIONS)));
      }),
      { seed: 42, numRuns: 1500 },
    );
  });

  it('unmarshalls what the SDK marshalls to the values the SDK unmarshalls', () => {
    fc.assert(
      fc.property(item, (it) => {
        const sdkForm = marshall(it, SDK_OPTIONS);
        expect(fromAttributeMap(wire(sdkForm) as never)).toEqual(unmarshall(sdkForm));
      }),
      { seed: 43, numRuns: 1500 },
    );
  });

  it('unmarshalls numbers as the SDK: Number, bigint beyond 2^53, exponent forms refused alike', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          safeNumber.map(String),
          fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }).map(String),
          fc.constantFrom('1e400', '-1e400', '1E3', '0.000', '-0', '9007199254740993', '1.5e300'),
        ),
        (n) => {
          // Both refuse what is neither a safe Number nor an integer BigInt can hold (e.g. 1.5e300).
          expect(outcome(() => fromAttributeMap({ n: { N: n } }))).toEqual(outcome(() => unmarshall({ n: { N: n } })));
        },
      ),
      { seed: 44, numRuns: 500 },
    );
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['an integer beyond 2^53', 2 ** 53 + 2],
    ['a number below -2^53', -1e300],
    ['an empty set', new Set()],
    ['a set of undefined only', new Set([undefined])],
    ['a set of booleans', new Set([true])],
    ['a Date', new Date(0)],
    ['a class instance', new (class Point {
      x = 1;
    })()],
    ['a symbol', Symbol('s')],
  ])('rejects %s as the SDK does', (_name, rejected) => {
    expect(() => marshall({ a: rejected }, SDK_OPTIONS)).toThrow();
    expect(() => toAttributeMap({ a: rejected })).toThrow();
    expect(() => toAttributeMap({ nested: { list: [rejected] } })).toThrow();
  });

  it('leaves out undefined and function members at every level', () => {
    const input = { a: undefined, f: () => 1, m: { b: undefined, c: 1 }, l: [undefined, 2, () => 3] };
    expect(toAttributeMap(input)).toEqual({ m: { M: { c: { N: '1' } } }, l: { L: [{ N: '2' }] } });
    expect(toAttributeMap(input)).toEqual(wire(marshall(input, SDK_OPTIONS)));
  });
});

describe('requests and answers', () => {
  it('marshalls the attribute maps of an input and passes everything else through', () => {
    expect(
      serializeInput({
        TableName: 'T',
        Key: { id: 'a' },
        UpdateExpression: 'SET #n = :n',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':n': 1, ':gone': undefined },
        ExclusiveStartKey: undefined,
        ReturnValues: 'ALL_NEW',
      }),
    ).toEqual({
      TableName: 'T',
      Key: { id: { S: 'a' } },
      UpdateExpression: 'SET #n = :n',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':n': { N: '1' } },
      ReturnValues: 'ALL_NEW',
    });
  });

  it('refuses the pre-expression parameters rather than send them unmarshalled', () => {
    expect(() => serializeInput({ TableName: 'T', Key: { id: 'a' }, Expected: { id: { Exists: false } } })).toThrow(
      'Expected is not supported',
    );
  });

  it('unmarshalls Item, Attributes, Items and LastEvaluatedKey, and keeps the rest', () => {
    expect(
      deserializeOutput({
        Items: [{ id: { S: 'a' }, n: { N: '2' } }],
        Count: 1,
        ScannedCount: 3,
        LastEvaluatedKey: { id: { S: 'a' } },
        Attributes: { b: { B: 'AQI=' } },
      }),
    ).toEqual({
      Items: [{ id: 'a', n: 2 }],
      Count: 1,
      ScannedCount: 3,
      LastEvaluatedKey: { id: 'a' },
      Attributes: { b: new Uint8Array([1, 2]) },
    });
  });
});
