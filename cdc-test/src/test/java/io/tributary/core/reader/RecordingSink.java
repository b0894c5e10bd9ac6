package io.tributary.core.reader;

import io.tributary.core.position.ShardPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

/**
 * A test sink that groups events into transactions the way a real consumer would: events are held
 * until the reader marks a transaction end, a rewind drops the held ones. Records the GTID
 * (MariaDB {@code domain-server-sequence} or MySQL {@code uuid:gno}, read from the GTID event
 * bytes) and the event types of
 * each complete transaction. Can be blocked (a slow consumer) and slowed down.
 */
final class RecordingSink implements ShardEventSink {
    /** One complete transaction as delivered. */
    record Txn(String gtid, List<Integer> types, long bytes) {
        long count(int type) {
            return types.stream().filter(t -> t == type).count();
        }
    }

    static final int WRITE_ROWS_V1 = 23;
    static final int MARIADB_GTID = 162;
    static final int MYSQL_GTID = 33;
    static final int WRITE_ROWS_V2 = 30;

    private final List<Txn> transactions = new ArrayList<>();
    private final List<Integer> pendingTypes = new ArrayList<>();
    private String pendingGtid;
    private long pendingBytes;
    private long rewinds;
    private long rewoundEvents;
    private long largestEvent;
    private ShardReaderException failure;
    private volatile CountDownLatch gate;
    private volatile long sleepNanosPerEvent;

    void block() {
        gate = new CountDownLatch(1);
    }

    void unblock() {
        CountDownLatch g = gate;
        gate = null;
        if (g != null) {
            g.countDown();
        }
    }

    void slowDown(long nanosPerEvent) {
        sleepNanosPerEvent = nanosPerEvent;
    }

    @Override
    public void onEvent(ShardEvent event) throws InterruptedException {
        CountDownLatch g = gate;
        if (g != null) {
            g.await();
        }
        long sleep = sleepNanosPerEvent;
        if (sleep > 0) {
            Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
        }
        try {
            synchronized (this) {
                largestEvent = Math.max(largestEvent, event.eventSize());
                if (event.type() == MARIADB_GTID) {
                    var b = event.bytes();
                    int base = b.readerIndex();
                    pendingGtid = b.getUnsignedIntLE(base + 27) + "-" + event.serverId() + "-" + b.getLongLE(base + 19);
                    pendingTypes.clear();
                    pendingBytes = 0;
                }
                if (event.type() == MYSQL_GTID) {
                    var b = event.bytes();
                    int base = b.readerIndex() + 19;
                    pendingGtid = new java.util.UUID(b.getLong(base + 1), b.getLong(base + 9)) + ":" + b.getLongLE(base + 17);
                    pendingTypes.clear();
                    pendingBytes = 0;
                }
                pendingTypes.add(event.type());
                pendingBytes += event.eventSize();
                if (event.transactionEnd()) {
                    transactions.add(new Txn(pendingGtid, List.copyOf(pendingTypes), pendingBytes));
                    pendingGtid = null;
                    pendingTypes.clear();
                    pendingBytes = 0;
                    notifyAll();
                } else if (event.restartPosition() == event.position()) {
                    pendingTypes.clear();
                    pendingBytes = 0;
                }
            }
        } finally {
            event.release();
        }
    }

    @Override
    public synchronized void onRewind(ShardPosition restartPosition, long discardedEvents) {
        rewinds++;
        rewoundEvents += discardedEvents;
        pendingGtid = null;
        pendingTypes.clear();
        pendingBytes = 0;
    }

    @Override
    public synchronized void onFailure(ShardReaderException error) {
        failure = error;
        notifyAll();
    }

    /** Transactions whose GTID passes {@code filter}, in delivery order. */
    synchronized List<Txn> transactions(Predicate<Txn> filter) {
        return transactions.stream().filter(filter).toList();
    }

    /** Waits until {@code n} transactions pass {@code filter}; returns them. */
    synchronized List<Txn> await(Predicate<Txn> filter, int n, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (transactions(filter).size() < n && failure == null) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                break;
            }
            wait(left);
        }
        return transactions(filter);
    }

    synchronized long rewinds() {
        return rewinds;
    }

    synchronized long rewoundEvents() {
        return rewoundEvents;
    }

    synchronized long largestEvent() {
        return largestEvent;
    }

    synchronized ShardReaderException failure() {
        return failure;
    }
}
