// Streams row events from a MySQL/MariaDB binlog server with @vlasky/zongji, as a user's program would, and
// prints one JSON line per row change: {"op","schema","table","row"} ("row" is the after image of an update).
// Used by ZongJiIT. Arguments: host port user password mode start rows timeoutMs schema
//   mode "file": start is a binlog file name, read from position 4;  mode "gtid": start is a GTID position/set;
//   schema: the only database whose rows zongji passes on (its includeSchema option).
// Exits 0 once `rows` row changes were printed and one more second passed quietly (any later row is printed
// too, so the caller sees duplicates); 2 on a zongji error; 3 on timeout.
// The package (ESM) is loaded from the node_modules directory named by the ZONGJI_MODULES environment variable.
import {pathToFileURL} from 'node:url';
import {join} from 'node:path';

const {default: ZongJi} = await import(pathToFileURL(join(process.env.ZONGJI_MODULES, '@vlasky', 'zongji', 'index.js')).href);

const [host, port, user, password, mode, start, rows, timeoutMs, schema] = process.argv.slice(2);
const wanted = Number(rows);
const zongji = new ZongJi({host, port: Number(port), user, password});
let printed = 0;
let finishing = false;

function out(o) {
  process.stdout.write(JSON.stringify(o) + '\n');
}

function finish(code) {
  if (finishing) return;
  finishing = true;
  zongji.on('stopped', () => process.exit(code));
  zongji.stop();
  setTimeout(() => process.exit(code), 3000).unref();
}

zongji.on('binlog', (event) => {
  const type = event.getTypeName();
  if (type !== 'WriteRows' && type !== 'UpdateRows' && type !== 'DeleteRows') return;
  const table = event.tableMap[event.tableId];
  for (const row of event.rows) {
    out({op: type, schema: table.parentSchema, table: table.tableName, row: type === 'UpdateRows' ? row.after : row});
    printed++;
  }
  if (printed >= wanted) setTimeout(() => finish(0), 1000);
});
zongji.on('error', (err) => {
  out({op: 'error', message: String(err && err.message ? err.message : err)});
  finish(2);
});
setTimeout(() => {
  out({op: 'error', message: 'timed out after ' + timeoutMs + ' ms with ' + printed + ' of ' + wanted + ' rows'});
  finish(3);
}, Number(timeoutMs));

const options = {
  serverId: 4242,
  includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows'],
  includeSchema: {[schema]: true},
};
if (mode === 'file') {
  options.filename = start;
  options.position = 4;
} else {
  options.gtidSet = start;
}
zongji.start(options);
