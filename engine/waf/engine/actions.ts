/**
 * The actions a match runs on the transaction: setvar (TX and the persistent collections, with
 * the bookkeeping the TX snapshot's fates and regex keys rely on), ctl (runtime configuration and
 * rule / target removals) and macro expansion (`%{tx.score}`).
 */
import type { CtlAction, Macro, SetVarAction } from './rule.ts';
import { lowerKey } from './variable-name.ts';
import { type Bits, setBit } from './bits.ts';
import { toInt, TransactionVariables } from './variables.ts';

export abstract class TransactionActions extends TransactionVariables {
  protected setTx(key: string, value: string): void {
    const lower = lowerKey(key);
    const size = this.tx.size;
    this.tx.set(lower, [key, value]);
    this.txList = undefined;
    if (this.txDirty !== undefined) this.markTx(lower);
    if (this.tx.size !== size) this.txAdded?.push(lower);
  }

  /** Notes a write to a TX key some *_IF_SAME fate depends on (see sameTx). */
  protected markTx(lower: string): void {
    const bit = this.levelPlan.txWatch.get(lower);
    if (bit !== undefined) setBit(this.txDirty as Bits, bit);
  }

  protected setVar(sv: SetVarAction): void {
    const map = this.collectionMap(sv.collection);
    const key = this.expand(sv.key);
    const lower = sv.lowerKey ?? key.toLowerCase();
    const isTx = map === this.tx;
    if (isTx) {
      this.txList = undefined;
      if (this.txDirty !== undefined) this.markTx(lower);
    }
    if (sv.op === 'delete') {
      map.delete(lower);
      if (isTx) this.txDeleted = true;
      return;
    }
    const value = this.expand(sv.value);
    const size = map.size;
    if (sv.op === 'set') {
      map.set(lower, [key, value]);
    } else {
      const current = toInt(map.get(lower)?.[1]);
      const delta = toInt(value);
      map.set(lower, [key, String(sv.op === 'add' ? current + delta : current - delta)]);
    }
    if (isTx && map.size !== size) this.txAdded?.push(lower);
  }

  protected ctl(c: CtlAction): void {
    switch (c.kind) {
      case 'ruleEngine':
        this.ruleEngine = c.value;
        break;
      case 'ruleRemoveById':
        this.removedRanges.push(...c.ranges);
        this.removals++;
        break;
      case 'ruleRemoveByTag':
        this.removedTags.push(this.expand(c.tag));
        this.removals++;
        break;
      case 'ruleRemoveByMsg':
        this.removedMsgs.push(c.msg);
        this.removals++;
        break;
      case 'ruleRemoveTargetById':
        this.removedTargets.push({ byId: c.ranges, target: c.target });
        break;
      case 'ruleRemoveTargetByTag':
        this.removedTargets.push({ byTag: c.tag, target: c.target });
        break;
      case 'ruleRemoveTargetByMsg':
        this.removedTargets.push({ byMsg: c.msg, target: c.target });
        break;
      case 'requestBodyProcessor':
        this.bodyProcessor = c.value;
        break;
      case 'requestBodyAccess':
        this.bodyAccess = c.value;
        break;
      case 'forceRequestBodyVariable':
        this.forceBodyVariable = c.value;
        break;
      case 'requestBodyLimit':
        if (c.value > 0) this.bodyLimit = c.value;
        break;
      case 'noop':
        break;
    }
  }

  /** Expands %{...}: the first value of the named variable, or an empty string. */
  expand(m: Macro): string {
    if (m.constant) return m.source;
    let out = '';
    for (const p of m.parts) {
      if (typeof p === 'string') {
        out += p;
        continue;
      }
      if (p.collection === 'RULE') {
        out += this.ruleField(p.key ?? '');
        continue;
      }
      out += this.firstValue(p.collection, p.selector) ?? '';
    }
    return out;
  }
}
