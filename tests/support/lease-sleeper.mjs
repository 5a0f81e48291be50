// Acquires a lease, says so on stdout, then sleeps forever: the test kills it with SIGKILL, like a
// worker that crashes mid-run without releasing.
// usage: node lease-sleeper.mjs URL KEY LEASE TTL_SECONDS HOLDER
const [url, key, lease, ttlSeconds, holder] = process.argv.slice(2);
const res = await fetch(`${url}/api/v1/leases/${lease}/acquire`, {
  method: "POST",
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: JSON.stringify({ ttlSeconds: Number(ttlSeconds), holder }),
});
console.log(JSON.stringify({ status: res.status, ...(await res.json()) }));
setInterval(() => {}, 1 << 30);
