"""A redis-py Lock workload for `locksim serve` (docs/serve.md).

It reads what serve gives it from the environment (LOCKSIM_CLIENT, the
client's name; LOCKSIM_REDIS, its addresses, one per group; LOCKSIM_LOG, the
file it writes its check-log JSON Lines to, docs/check-log.md) and runs
--cycles rounds of: acquire redis-py's Lock, write --writes times to the
protected resource (a key on the same node) over --hold seconds, release.

Every lock call and write is logged as the application sees it. A grant is
logged without a validity: code inside `with lock:` (or between acquire and
release) runs as though it held the lock until it releases it, which is the
belief locksim judges. redis-py's Lock does not renew a lock with a
timeout: a holder stopped for longer than the timeout keeps that belief
while the key expires and another client is granted it.
"""

import argparse
import json
import os
import sys
import time

import redis
from redis.exceptions import LockError


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=2.0, help="the Lock's timeout (the key's TTL), seconds")
    ap.add_argument("--blocking-timeout", type=float, default=10.0, help="how long acquire waits, seconds")
    ap.add_argument("--hold", type=float, default=1.0, help="seconds inside the critical section")
    ap.add_argument("--writes", type=int, default=4, help="writes to the resource while holding")
    ap.add_argument("--start", type=float, default=0.0, help="seconds to wait before the first acquire")
    ap.add_argument("--cycles", type=int, default=1)
    ap.add_argument("--key", default="locksim:lock")
    a = ap.parse_args()

    name = os.environ["LOCKSIM_CLIENT"]
    host, port = os.environ["LOCKSIM_REDIS"].split(",")[0].rsplit(":", 1)
    log = open(os.environ["LOCKSIM_LOG"], "a", buffering=1)

    def event(kind, **kw):
        e = {"time": time.time_ns(), "host": "localhost", "client": name, "key": a.key, "kind": kind}
        e.update(kw)
        log.write(json.dumps(e) + "\n")

    r = redis.Redis(host=host, port=int(port), socket_timeout=5)
    time.sleep(a.start)
    for cycle in range(a.cycles):
        lock = r.lock(a.key, timeout=a.timeout)
        event("acquire-attempt")
        # A connection error (a crashed or partitioned node) is retried
        # until --blocking-timeout, as an application would.
        deadline = time.monotonic() + a.blocking_timeout
        acquired = False
        while True:
            try:
                acquired = lock.acquire(blocking_timeout=max(0.01, deadline - time.monotonic()))
                break
            except redis.ConnectionError as err:
                print("%s: acquire: %s" % (name, err), file=sys.stderr)
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.1)
        if not acquired:
            event("refused")
            continue
        value = lock.local.token.decode()
        event("granted", value=value)
        for i in range(a.writes):
            time.sleep(a.hold / max(a.writes, 1))
            sent = time.time_ns()
            try:
                r.set("locksim:resource", "%s-%d-%d" % (name, cycle, i))
            except redis.ConnectionError as err:  # not accepted: not logged as a write
                print("%s: write: %s" % (name, err), file=sys.stderr)
                continue
            event("write", sent=sent)
        event("released", value=value)
        try:
            lock.release()
        except (LockError, redis.ConnectionError) as err:  # LockNotOwnedError: the key expired while we held it
            print("%s: release: %s" % (name, err), file=sys.stderr)
    log.close()


if __name__ == "__main__":
    main()
