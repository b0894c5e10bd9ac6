package io.tributary.test.shard;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A handle on one shard server that a test controls: stop it, start it again on the same port with the
 * same data, or kill it hard. Implementations keep track of exactly the process or container they
 * started and never touch anything else.
 */
public interface Shard extends AutoCloseable {

    /** Where the shard listens and its accounts; the port stays the same across restarts. */
    ShardInfo info();

    /** Whether the server process is alive and was started by this handle. */
    boolean isRunning();

    /** Operating-system pid of the server process, when it runs as a local process. */
    OptionalLong pid();

    /** Starts the server (again) on the same port and data and waits until it accepts connections. */
    void start();

    /** Shuts the server down cleanly, waiting at most {@code timeout} before killing it. */
    void stop(Duration timeout);

    /** Kills the server at once (SIGKILL), as a crash would. */
    void kill();

    /** Stops the server and removes what it created (data directory, container). */
    @Override
    void close();
}
