package io.tributary.test.bench.load;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs N load clients, each on its own thread and connection, until {@link #stop} (or until a client of a fixed-size
 * load has {@linkplain Client#finished finished}). A client's step that
 * fails with a deadlock (1213) or lock wait timeout (1205) is counted and the client goes on; any other
 * error is kept in {@link LoadCounters#error} and stops that client.
 */
public final class Clients implements AutoCloseable {

    /**
     * One client: {@link #step} runs one transaction on the client's own connection(s), until the client is stopped
     * or, for a load of a fixed size (an import), {@link #finished}.
     */
    public interface Client extends AutoCloseable {
        void step() throws SQLException;

        /** Whether the client has done all its work; a load that runs until stopped never finishes. */
        default boolean finished() {
            return false;
        }

        @Override
        void close() throws SQLException;
    }

    /** Makes client {@code i}. */
    @FunctionalInterface
    public interface Factory {
        Client create(int i) throws SQLException;
    }

    private final AtomicBoolean stopped = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private final LoadCounters counters;

    private Clients(LoadCounters counters) {
        this.counters = counters;
    }

    /** Opens {@code n} clients and starts them. */
    public static Clients start(String name, int n, Factory factory, LoadCounters counters) throws SQLException {
        Clients c = new Clients(counters);
        List<Client> made = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                made.add(factory.create(i));
            }
        } catch (SQLException | RuntimeException e) {
            for (Client m : made) {
                try {
                    m.close();
                } catch (SQLException ignored) {
                    // already failing
                }
            }
            throw e;
        }
        for (int i = 0; i < n; i++) {
            Client client = made.get(i);
            Thread t = new Thread(() -> c.loop(client), name + "-" + i);
            t.setDaemon(true);
            c.threads.add(t);
            t.start();
        }
        return c;
    }

    private void loop(Client client) {
        try (client) {
            while (!stopped.get() && !client.finished()) {
                try {
                    client.step();
                } catch (SQLException e) {
                    if (e.getErrorCode() == 1213 || e.getErrorCode() == 1205) {
                        counters.failures.incrementAndGet();
                    } else {
                        throw e;
                    }
                }
            }
        } catch (Throwable e) {
            if (!stopped.get() && counters.error == null) {
                counters.error = e;
            }
        }
    }

    /** Whether a client is still at work (not finished, not failed, not stopped). */
    public boolean running() {
        return threads.stream().anyMatch(Thread::isAlive);
    }

    /** Stops every client after its current transaction and waits for them. */
    public void stop() throws InterruptedException {
        stopped.set(true);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(120));
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
