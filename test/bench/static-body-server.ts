/**
 * Child process: a bare node:http server answering every request with one fixed JSON body (read from
 * the file in argv[2]), and printing its port. The API benchmark uses it as the ceiling for a body of
 * that size: what the machine can serve with no framework, auth or serialisation.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2]!);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
