import type { ConsumeCondition } from './limiter-store.js';
import {
  dayCounter,
  keyDayCounter,
  keyLastUsed,
  keyMarkerName,
  keyMinuteCounter,
  minuteCounter,
} from './limiter-item.js';

/** The hot path's one conditional write: "One write per request" in docs/contributors/limiter.md. */
export function consumeExpression(c: ConsumeCondition) {
  const names: Record<string, string> = {
    '#m': minuteCounter(c.minuteWindow),
    '#d': dayCounter(c.dayWindow),
    '#nm': minuteCounter(c.minuteWindow + 1),
    '#nd': dayCounter(c.dayWindow + 1),
    '#pm': minuteCounter(c.minuteWindow - 1),
    '#pd': dayCounter(c.dayWindow - 1),
  };
  const values: Record<string, unknown> = c.batch === undefined ? { ':one': 1 } : {};
  const conditions: string[] = [];
  // A batch adds its units where a single request adds :one (the single request's write is unchanged).
  let inc = ':one';
  if (c.batch !== undefined) {
    if (c.limits !== 'stored') throw new Error('a batch is counted on an account shard only');
    inc = ':units';
    Object.assign(values, {
      ':units': c.batch.units,
      ':sm': c.batch.slice.perMinute,
      ':sd': c.batch.slice.perDay,
      ':mm': c.batch.slice.perMinute - c.batch.units,
      ':md': c.batch.slice.perDay - c.batch.units,
    });
    // count + units ≤ slice, with the slice pinned; an absent counter needs a slice of at least units.
    conditions.push(
      'minuteLimit = :sm',
      'dayLimit = :sd',
      '(#m <= :mm OR (attribute_not_exists(#m) AND minuteLimit >= :units))',
      '(#d <= :md OR (attribute_not_exists(#d) AND dayLimit >= :units))',
    );
  } else if (c.limits === 'stored') {
    values[':zero'] = 0;
    conditions.push(
      '(#m < minuteLimit OR (attribute_not_exists(#m) AND minuteLimit > :zero))',
      '(#d < dayLimit OR (attribute_not_exists(#d) AND dayLimit > :zero))',
    );
  } else {
    values[':lm'] = c.limits.perMinute;
    values[':ld'] = c.limits.perDay;
    conditions.push('(attribute_not_exists(#m) OR #m < :lm)', '(attribute_not_exists(#d) OR #d < :ld)');
  }
  conditions.push('attribute_not_exists(#nm)', 'attribute_not_exists(#nd)');
  let add = `ADD #m ${inc}, #d ${inc}`;
  const set: string[] = [];
  let remove = 'REMOVE #pm, #pd';
  if (c.keyId !== undefined) {
    const k = c.keyId;
    Object.assign(names, {
      '#km': keyMinuteCounter(k, c.minuteWindow),
      '#kd': keyDayCounter(k, c.dayWindow),
      '#kpm': keyMinuteCounter(k, c.minuteWindow - 1),
      '#kpd': keyDayCounter(k, c.dayWindow - 1),
      '#ku': keyLastUsed(k),
      '#kb': keyMarkerName(k, 'ban'),
      '#kx': keyMarkerName(k, 'revoked'),
    });
    values[':now'] = c.nowMs;
    conditions.push('(attribute_not_exists(#kb) OR #kb <= :now)', '(attribute_not_exists(#kx) OR #kx <= :now)');
    add += `, #km ${inc}, #kd ${inc}`;
    set.push('#ku = :now');
    remove += ', #kpm, #kpd';
  }
  if (c.expiresAtSeconds !== undefined) {
    set.push('expiresAt = :exp');
    values[':exp'] = c.expiresAtSeconds;
  }
  return {
    update: `${add}${set.length > 0 ? ` SET ${set.join(', ')}` : ''} ${remove}`,
    condition: conditions.join(' AND '),
    names,
    values,
  };
}
