'use strict';
// Asks a conformance subject (the JSON-lines protocol `mesh conformance run` drives) a batch of
// requests and returns its answers by id.
const { spawnSync } = require('child_process');

function ask(cmd, requests) {
  const input = requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const run = spawnSync('bash', ['-c', cmd], { input, maxBuffer: 1 << 28 });
  if (run.error) throw run.error;
  const answers = new Map();
  for (const line of run.stdout.toString().split('\n')) {
    if (!line.trim()) continue;
    const a = JSON.parse(line);
    answers.set(a.id, a);
  }
  return answers;
}

// One summary line per kind of disagreement, with up to three examples.
function report(kinds) {
  for (const [k, list] of [...kinds].sort((a, b) => b[1].length - a[1].length)) {
    console.log('DIFF ' + list.length + 'x ' + k);
    for (const w of list.slice(0, 3)) console.log('     e.g. ' + w);
  }
}

module.exports = { ask, report };
