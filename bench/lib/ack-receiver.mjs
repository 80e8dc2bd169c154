// An OTLP/HTTP receiver that reads every export and answers 200, counting nothing: for the
// benchmarks that compare a traced process with an untraced one (bench/tracing.mjs has its
// own, which counts the spans it gets).
import http from 'node:http';
import { HOST } from './processes.mjs';

/** Listens on `port` of HOST (0: any free one); resolves with the listening server. */
export function listenAcknowledging(port = 0) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  return new Promise((resolve) => server.listen(port, HOST, () => resolve(server)));
}
