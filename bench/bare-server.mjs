// The reference: Node's own http server answering a small JSON body, in its own process like Deadbolt.
import http from "node:http";

const body = JSON.stringify({ status: "ok", database: { dialect: "none", reachable: true, latencyMs: 0 }, version: "bare" });
const server = http.createServer((req, res) => {
  if (req.method === "POST") {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("OK");
    });
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
