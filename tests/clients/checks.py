"""What every client script shares: its arguments (HOST PORT USER DBNAME),
ok/FAILED lines with counters, and the "N passed, M failed" summary whose
count of failures is the exit status."""
import sys

HOST, PORT, USER, DB = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
counts = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    if ok:
        counts["passed"] += 1
        print(f"  ok: {what}")
    else:
        counts["failed"] += 1
        print(f"  FAILED: {what}: {detail}")


def step(name, fn):
    """Runs one part of a script: an exception it raises is a failed check."""
    print(f"== {name}")
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - a failed step is a failed check
        check(False, name, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")


def finish():
    print(f"\n{counts['passed']} passed, {counts['failed']} failed")
    sys.exit(min(counts["failed"], 100))
