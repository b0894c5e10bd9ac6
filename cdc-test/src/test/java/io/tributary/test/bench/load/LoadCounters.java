package io.tributary.test.bench.load;

import java.util.concurrent.atomic.AtomicLong;

/** What a load's clients did, read by the runner while they run. */
public final class LoadCounters {
    public final AtomicLong transactions = new AtomicLong();
    public final AtomicLong rows = new AtomicLong();
    /** Transactions that failed (deadlock, lock wait timeout) and were rolled back; the load goes on. */
    public final AtomicLong failures = new AtomicLong();
    public final AtomicLong xaTransactions = new AtomicLong();
    /** The first unexpected error, which stops the load. */
    public volatile Throwable error;
}
