// The image's HEALTHCHECK: GET /livez on the first port of this container's process that answers.
// Every role serves /livez on one of them: the API on PORT, a worker (and the API) on METRICS_PORT,
// the console on its CONSOLE_URL's port. Plain Node, so the image needs no curl.
const env = process.env;
const ports = [env.METRICS_PORT || '9464', env.PORT || '8080', new URL(env.CONSOLE_URL || 'http://localhost:8082').port || '80'].filter((p) => p !== '0');
for (const port of ports) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/livez`, { signal: AbortSignal.timeout(2000) });
    if (res.ok) process.exit(0);
  } catch {
    // not this port: the next one
  }
}
process.exit(1);
