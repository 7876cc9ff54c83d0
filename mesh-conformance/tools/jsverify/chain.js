'use strict';
// §6.3: a steward's receipts form one chain — sequence from 0 (or continuing after a restart),
// each prev the content id of the previous sealed envelope. Receipts are grouped by steward.
// A holder may hold only part of a chain; gaps are reported as such, not as breaks.

// logOf(result) names the log a receipt was collected from (the runner uses its directory), so
// that separate logs of one steward key (e.g. separate demo runs) are not taken for a fork.
function checkChains(results, logOf = () => '') {
  const errors = [];
  const notes = [];
  const bySteward = new Map();
  for (const r of results) {
    if (r.core === null) continue;
    const s = r.core.get('steward') + (logOf(r) ? ' in ' + logOf(r) : '');
    if (!bySteward.has(s)) bySteward.set(s, []);
    bySteward.get(s).push(r);
  }
  for (const [steward, rs] of bySteward) {
    const bySeq = new Map();
    for (const r of rs) {
      const q = BigInt(r.core.get('sequence') ?? -1);
      if (bySeq.has(q) && bySeq.get(q).id !== r.id) {
        errors.push('§6.3 steward ' + steward + ': two different envelopes at sequence ' + q + ' (' + bySeq.get(q).id + ', ' + r.id + ')');
      }
      bySeq.set(q, r);
    }
    const seqs = [...bySeq.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let links = 0;
    let gaps = 0;
    for (let i = 1; i < seqs.length; i++) {
      const prev = bySeq.get(seqs[i - 1]);
      const cur = bySeq.get(seqs[i]);
      if (seqs[i] !== seqs[i - 1] + 1n) {
        gaps++;
        continue;
      }
      if (cur.core.get('prev') !== prev.id) {
        errors.push('§6.3 steward ' + steward + ': sequence ' + seqs[i] + ' prev ' + cur.core.get('prev') + ' is not the content id ' + prev.id + ' of sequence ' + seqs[i - 1]);
      } else links++;
    }
    notes.push('steward ' + steward + ': ' + seqs.length + ' receipts, sequences ' + seqs[0] + '..' + seqs[seqs.length - 1] + ', ' + links + ' links verified, ' + gaps + ' gaps');
  }
  return { errors, notes };
}

module.exports = { checkChains };
