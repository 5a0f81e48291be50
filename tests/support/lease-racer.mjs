// One contender in the lease race: acquires the lease over HTTP, records its entry and exit in a
// shared append-only log (the "resource"), tries a wrong and a stale release, then releases.
// usage: node lease-racer.mjs URL KEY LEASE ITERATIONS LOG HOLDER
import fs from "node:fs";

const [url, key, lease, iterations, log, holder] = process.argv.slice(2);
const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const post = async (action, body) => {
  const res = await fetch(`${url}/api/v1/leases/${lease}/${action}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let acquired = 0;
let refused = 0;
let wrongReleasesRefused = 0;
let staleReleasesRefused = 0;
while (acquired < Number(iterations)) {
  const res = await post("acquire", { ttlSeconds: 30, holder });
  if (res.status === 409) {
    refused++;
    await sleep(Math.random() * 3);
    continue;
  }
  if (res.status !== 200) throw new Error(`acquire answered ${res.status}: ${JSON.stringify(res.body)}`);
  const { token, fencingToken } = res.body;
  fs.appendFileSync(log, `enter ${holder} ${fencingToken}\n`);
  await sleep(1 + Math.random() * 4);
  // A wrong token must not free the lease we hold.
  if ((await post("release", { token: `${token}x` })).status === 409) wrongReleasesRefused++;
  fs.appendFileSync(log, `exit ${holder} ${fencingToken}\n`);
  const released = await post("release", { token });
  if (released.status !== 200) throw new Error(`release answered ${released.status}: ${JSON.stringify(released.body)}`);
  acquired++;
  // Our token is stale now: releasing again must change nothing, even if someone else holds it.
  if ((await post("release", { token })).status === 409) staleReleasesRefused++;
}
console.log(JSON.stringify({ holder, acquired, refused, wrongReleasesRefused, staleReleasesRefused }));
