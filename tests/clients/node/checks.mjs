// What the Node.js client scripts share: their arguments (HOST PORT USER
// DATABASE), "  ok: ..." / "  FAIL: ..." lines with counters, expected
// errors by SQLSTATE (the driver's error, or the one an ORM wraps), and
// the "N passed, M failed" summary whose failures are the exit status.
export const [host, portText, user, database] = process.argv.slice(2);
export const port = Number(portText);
let passed = 0, failed = 0;

export function check(cond, what, got) {
  if (cond) {
    passed++;
    console.log(`  ok: ${what}`);
  } else {
    failed++;
    console.log(`  FAIL: ${what}: got ${JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  }
}

export async function expectError(promise, code, what) {
  try {
    await promise;
    check(false, what, 'no error');
    return null;
  } catch (e) {
    const got = e.original?.code ?? e.parent?.code ?? e.driverError?.code ?? e.code;
    check(got === code, what, got + ' ' + e.message);
    return e;
  }
}

export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
