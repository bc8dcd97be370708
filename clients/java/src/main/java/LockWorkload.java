// Redisson's RLock workload for `locksim serve` (docs/serve.md).
//
// It reads what serve gives it from the environment (LOCKSIM_CLIENT, the
// client's name; LOCKSIM_REDIS, its addresses, one per group; LOCKSIM_LOG,
// the file it writes its check-log JSON Lines to, docs/check-log.md) and runs
// --cycles rounds of: RLock.tryLock, --writes writes to the protected
// resource (a key on the same node) over --hold seconds, unlock.
//
// A grant is logged without a validity: code between lock and unlock runs
// as though it held the lock until it unlocks, which is the belief locksim
// judges. With --lease 0 (the default) Redisson's watchdog renews the lock
// every lockWatchdogTimeout/3 (--watchdog) while the JVM runs; a JVM that
// is stopped for longer than lockWatchdogTimeout renews nothing, and the
// lock expires while the holder still believes it holds it.

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

public final class LockWorkload {
    private static PrintWriter log;
    private static String name;
    private static String key = "locksim:lock";

    private static long nowNanos() {
        java.time.Instant t = java.time.Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static synchronized void event(String kind, String extra) {
        log.println("{\"time\":" + nowNanos() + ",\"host\":\"localhost\",\"client\":\"" + name
                + "\",\"key\":\"" + key + "\",\"kind\":\"" + kind + "\"" + extra + "}");
        log.flush();
    }

    public static void main(String[] args) throws Exception {
        long watchdog = 30000, lease = 0;
        double hold = 1.0, start = 0, wait = 10;
        int writes = 4, cycles = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--watchdog": watchdog = Long.parseLong(v); break; // ms
                case "--lease": lease = Long.parseLong(v); break;       // ms; 0: the watchdog renews
                case "--hold": hold = Double.parseDouble(v); break;     // s
                case "--writes": writes = Integer.parseInt(v); break;
                case "--start": start = Double.parseDouble(v); break;   // s
                case "--wait": wait = Double.parseDouble(v); break;     // s
                case "--cycles": cycles = Integer.parseInt(v); break;
                default: throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        name = System.getenv("LOCKSIM_CLIENT");
        String addr = System.getenv("LOCKSIM_REDIS").split(",")[0];
        log = new PrintWriter(new FileWriter(System.getenv("LOCKSIM_LOG"), true));

        Config cfg = new Config();
        cfg.setLockWatchdogTimeout(watchdog);
        cfg.setThreads(2);
        cfg.setNettyThreads(4);
        cfg.useSingleServer().setAddress("redis://" + addr)
                .setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2)
                .setTimeout(3000).setRetryAttempts(1).setPingConnectionInterval(0);
        RedissonClient redisson = Redisson.create(cfg);
        try {
            Thread.sleep((long) (start * 1000));
            for (int c = 0; c < cycles; c++) {
                RLock lock = redisson.getLock(key);
                String value = redisson.getId() + ":" + Thread.currentThread().getId();
                event("acquire-attempt", "");
                boolean ok = lease > 0
                        ? lock.tryLock((long) (wait * 1000), lease, TimeUnit.MILLISECONDS)
                        : lock.tryLock((long) (wait * 1000), TimeUnit.MILLISECONDS);
                if (!ok) {
                    event("refused", "");
                    continue;
                }
                event("granted", ",\"value\":\"" + value + "\"");
                for (int i = 0; i < writes; i++) {
                    Thread.sleep((long) (hold * 1000 / Math.max(writes, 1)));
                    long sent = nowNanos();
                    redisson.getBucket("locksim:resource").set(name + "-" + c + "-" + i);
                    event("write", ",\"sent\":" + sent);
                }
                event("released", ",\"value\":\"" + value + "\"");
                try {
                    lock.unlock();
                } catch (IllegalMonitorStateException e) {
                    System.err.println(name + ": unlock: " + e.getMessage());
                }
            }
        } finally {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
            log.close();
        }
    }
}
