// trace_model_check.js TRACE.json: load a latrec timeline with
// @tracerbench/trace-model (a maintained model of Chrome trace events) and
// print what it saw, one line per process and thread, then the totals:
//   process PID NAME
//   thread PID TID NAME complete=N parented=N
//   total processes=N threads=N complete=N async=N flows=N
// Exit 1 when the model cannot be built or a process or thread is unnamed.
'use strict';
const fs = require('fs');
const { buildModel } = require('@tracerbench/trace-model');

const trace = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const model = buildModel(trace);
let bad = 0, complete = 0, threads = 0;
for (const p of model.processes) {
  if (!p.name) { console.error(`process ${p.id} has no name`); bad++; }
  console.log(`process ${p.id} ${p.name}`);
  for (const t of p.threads) {
    threads++;
    if (!t.name) { console.error(`thread ${p.id}/${t.id} has no name`); bad++; }
    const x = t.events.filter((e) => e.isComplete());
    const parented = x.filter((e) => e.parent !== undefined).length;
    complete += x.length;
    console.log(`thread ${p.id} ${t.id} ${t.name} complete=${x.length} parented=${parented}`);
  }
}
const ph = (c) => model.events.filter((e) => e.ph === c).length;
console.log(`total processes=${model.processes.length} threads=${threads} complete=${complete} ` +
            `async=${ph('b')} flows=${ph('s')}`);
process.exit(bad ? 1 : 0);
