package io.tributary.core.reader;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.tributary.core.event.EventType;
import io.tributary.core.packet.ComBinlogDump;
import io.tributary.core.packet.ComBinlogDumpGtid;
import io.tributary.core.packet.ComRegisterSlave;
import io.tributary.core.packet.EofPacket;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.MySqlError;
import io.tributary.core.packet.MySqlMessage;
import io.tributary.core.packet.MySqlProtocol;
import io.tributary.core.packet.MySqlProtocolException;
import io.tributary.core.packet.MySqlServerException;
import io.tributary.core.packet.TextResultSet;
import io.tributary.core.position.MariaDbGtidPosition;
import io.tributary.core.position.MySqlGtidSet;
import io.tributary.core.position.ShardPosition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one shard's binlog as a replica and hands every event to a {@link ShardEventSink}.
 *
 * <p>Each connection: TCP (Netty NIO), greeting, optional TLS, authentication; then
 * {@code SET @master_binlog_checksum= @@global.binlog_checksum} (and {@code @source_...}),
 * {@code SET @master_heartbeat_period=<ns>}; MariaDB: {@code SET @mariadb_slave_capability=4} and,
 * resuming by GTID, {@code @slave_connect_state}, {@code @slave_gtid_strict_mode=0},
 * {@code @slave_gtid_ignore_duplicates=0}; {@code COM_REGISTER_SLAVE}; then {@code COM_BINLOG_DUMP}
 * from a file and offset, or {@code COM_BINLOG_DUMP_GTID} (MySQL, by GTID set).
 *
 * <p>Positions: each event carries where the stream stands after it and the restart position (moved
 * only at transaction ends). {@link #restartPosition()} is that of the last event the sink received.
 *
 * <p>Failures: after a network error or a shard restart the reader reconnects with exponential
 * backoff and resumes from the last restart position handed on, by GTID set when it has one,
 * otherwise by file and offset. If the sink had received part of a transaction, it is told with
 * {@link ShardEventSink#onRewind} to drop it and gets the whole transaction again: no gap, no
 * duplicate. Wrong credentials ({@link ShardAuthenticationException}), a purged or unknown position
 * ({@link ShardPositionPurgedException}, listing what the shard still has), a corrupt event and
 * sink failures stop the reader: {@link #termination()} completes exceptionally and
 * {@link ShardEventSink#onFailure} is called.
 *
 * <p>Threads: protocol work runs on a Netty event loop (shared if one is given); the sink is called
 * on the reader's own thread {@code shard-reader-<shard>}, which also connects and backs off. A slow
 * sink pauses socket reads through the bounded {@link ShardEventBuffer}.
 */
public final class ShardReader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ShardReader.class);
    private static final long POLL_MS = 100;

    /** What the reader is doing. */
    public enum State { NEW, CONNECTING, STREAMING, BACKING_OFF, STOPPED, FAILED }

    private final ShardReaderConfig config;
    private final ShardEventSink sink;
    private final EventLoopGroup group;
    private final boolean ownsGroup;
    private final ShardEventBuffer buffer;
    private final CompletableFuture<Void> termination = new CompletableFuture<>();
    private final Thread thread;

    private volatile boolean running;
    private volatile State state = State.NEW;
    private volatile ShardPosition currentPosition;
    private volatile ShardPosition restartPosition;
    private volatile ShardConnection connection;
    private volatile long connections;
    private long eventsSinceRestart;
    private boolean deliveredSinceConnect;

    /** A reader on its own single-threaded NIO event loop. */
    public ShardReader(ShardReaderConfig config, ShardEventSink sink) {
        this(config, sink, null);
    }

    /** A reader on a shared event loop group ({@code null}: its own). */
    public ShardReader(ShardReaderConfig config, ShardEventSink sink, EventLoopGroup group) {
        this.config = config;
        this.sink = sink;
        this.ownsGroup = group == null;
        this.group = group != null ? group : new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("shard-io-" + config.shardName(), true), NioIoHandler.newFactory());
        this.buffer = new ShardEventBuffer(config.maxBufferedEvents(), config.maxBufferedBytes());
        this.currentPosition = config.startPosition();
        this.restartPosition = config.startPosition();
        this.thread = new Thread(this::run, "shard-reader-" + config.shardName());
        this.thread.setDaemon(true);
    }

    public void start() {
        if (running || state != State.NEW) {
            throw new IllegalStateException("shard reader " + config.shardName() + " already started");
        }
        running = true;
        state = State.CONNECTING;
        thread.start();
    }

    /** Completes when the reader stops: normally after {@link #close()}, exceptionally on a fatal error. */
    public CompletableFuture<Void> termination() {
        return termination;
    }

    public State state() {
        return state;
    }

    public String shardName() {
        return config.shardName();
    }

    /** Where the stream stands after the last event the sink received. */
    public ShardPosition currentPosition() {
        return currentPosition;
    }

    /** Where a restart resumes: the last transaction end the sink received. */
    public ShardPosition restartPosition() {
        return restartPosition;
    }

    /** Events read from the socket and not yet handed to the sink. */
    public int bufferedEvents() {
        return buffer.events();
    }

    /** Bytes of the events counted by {@link #bufferedEvents()}. */
    public long bufferedBytes() {
        return buffer.bytes();
    }

    /** The largest number of events buffered so far. */
    public int peakBufferedEvents() {
        return buffer.stats().peakEvents();
    }

    /** The largest number of event bytes buffered so far. */
    public long peakBufferedBytes() {
        return buffer.stats().peakBytes();
    }

    /** How many times reading paused because the buffer was full. */
    public long readPauses() {
        return buffer.stats().pauses();
    }

    /** Connections established so far (1 plus reconnects). */
    public long connections() {
        return connections;
    }

    /** Stops the reader within about 10 s: closes the connection, ends the thread, drops buffered events. */
    @Override
    public void close() {
        running = false;
        ShardConnection c = connection;
        if (c != null) {
            c.close();
        }
        thread.interrupt();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        buffer.clear();
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        }
        if (state != State.FAILED) {
            state = State.STOPPED;
        }
        termination.complete(null);
    }

    private void run() {
        ShardPosition resume = config.startPosition();
        int attempt = 0;
        while (running) {
            ShardConnection conn = null;
            try {
                state = State.CONNECTING;
                conn = await(ShardConnection.open(group, config), "connect and authenticate");
                connection = conn;
                connections++;
                if (resume.isLatest()) {
                    resume = latestPosition(conn);
                    currentPosition = resume;
                    restartPosition = resume;
                }
                setUp(conn, resume);
                BinlogStreamTracker tracker = new BinlogStreamTracker(config.shardName(), conn.isMariaDb(), resume);
                log.info("shard {}: streaming from {} ({} {}, connection {})", config.shardName(), resume,
                        conn.isMariaDb() ? "MariaDB" : "MySQL", conn.handshake().serverVersion(), conn.handshake().connectionId());
                conn.startStream(dumpCommand(conn, resume), new Listener(conn, tracker));
                state = State.STREAMING;
                Throwable end = deliver();
                throw end instanceof Exception e ? e : new IOException(end);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Throwable t) {
                if (conn != null) {
                    conn.close();
                    buffer.forgetChannel(conn.channel());
                }
                if (!running) {
                    break;
                }
                ShardReaderException error = classify(unwrap(t), resume);
                if (!error.retriable()) {
                    fail(error);
                    return;
                }
                if (eventsSinceRestart > 0) {
                    log.info("shard {}: connection lost inside a transaction; rewinding {} events to {}",
                            config.shardName(), eventsSinceRestart, restartPosition);
                    sink.onRewind(restartPosition, eventsSinceRestart);
                    eventsSinceRestart = 0;
                }
                if (deliveredSinceConnect) {
                    attempt = 0;
                }
                deliveredSinceConnect = false;
                resume = restartPosition.isLatest() ? resume : restartPosition;
                attempt++;
                int max = config.backoff().maxAttempts();
                if (max > 0 && attempt > max) {
                    fail(new ShardReaderException(config.shardName(), "giving up after " + max
                            + " failed connection attempts; last error: " + error.getMessage(), false, error));
                    return;
                }
                long delayMs = config.backoff().delay(attempt).toMillis();
                log.warn("shard {}: {}; reconnecting in {} ms (attempt {}) from {}", config.shardName(), error.getMessage(),
                        delayMs, attempt, resume);
                state = State.BACKING_OFF;
                try {
                    Thread.sleep(delayMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            } finally {
                connection = null;
            }
        }
        if (state != State.FAILED) {
            state = State.STOPPED;
        }
    }

    /** Hands events to the sink until the connection's failure item arrives; returns that failure. */
    private Throwable deliver() throws InterruptedException {
        while (running) {
            Object item = buffer.poll(POLL_MS);
            if (item == null) {
                continue;
            }
            if (item instanceof ShardEventBuffer.Failure f) {
                return f.cause();
            }
            ShardEvent e = (ShardEvent) item;
            deliveredSinceConnect = true;
            currentPosition = e.position();
            restartPosition = e.restartPosition();
            eventsSinceRestart = e.restartPosition() == e.position() ? 0 : eventsSinceRestart + 1;
            try {
                sink.onEvent(e);
            } catch (InterruptedException ie) {
                throw ie;
            } catch (RuntimeException ex) {
                throw new SinkFailure(ex);
            }
        }
        throw new InterruptedException("reader closed");
    }

    private static final class SinkFailure extends RuntimeException {
        SinkFailure(RuntimeException cause) {
            super(cause);
        }
    }

    private void setUp(ShardConnection conn, ShardPosition resume) throws Exception {
        try {
            await(conn.query("SET @master_binlog_checksum= @@global.binlog_checksum,"
                    + " @source_binlog_checksum= @@global.binlog_checksum"), "checksum negotiation");
        } catch (ExecutionException e) {
            // Servers before MySQL 5.6 / MariaDB 5.3 have no binlog_checksum (error 1193): no checksums.
            if (!(e.getCause() instanceof MySqlServerException se) || se.code() != 1193) {
                throw e;
            }
        }
        long ns = config.heartbeatPeriod().toNanos();
        if (ns > 0) {
            await(conn.query("SET @master_heartbeat_period=" + ns + ", @source_heartbeat_period=" + ns), "heartbeat period");
        }
        if (conn.isMariaDb()) {
            await(conn.query("SET @mariadb_slave_capability=4"), "MariaDB slave capability");
            if (resume.hasGtidSet()) {
                String state = MariaDbGtidPosition.parse(resume.gtidSet()).toString();
                await(conn.query("SET @slave_connect_state='" + state + "'"), "GTID connect state");
                await(conn.query("SET @slave_gtid_strict_mode=0"), "GTID strict mode");
                await(conn.query("SET @slave_gtid_ignore_duplicates=0"), "GTID ignore duplicates");
            }
        }
        await(conn.command(new ComRegisterSlave(config.serverId(), "", config.user(), "", 0, 0, 0)), "COM_REGISTER_SLAVE");
    }

    private MySqlMessage dumpCommand(ShardConnection conn, ShardPosition resume) {
        if (resume.hasGtidSet() && !conn.isMariaDb()) {
            return new ComBinlogDumpGtid(MySqlProtocol.BINLOG_THROUGH_GTID, config.serverId(), "", ShardPosition.FIRST_EVENT,
                    MySqlGtidSet.parse(resume.gtidSet()).toSids());
        }
        int flags = conn.isMariaDb() ? MySqlProtocol.BINLOG_SEND_ANNOTATE_ROWS_EVENT : 0;
        if (resume.hasGtidSet()) {
            return new ComBinlogDump(ShardPosition.FIRST_EVENT, flags, config.serverId(), "");
        }
        return new ComBinlogDump(resume.position(), flags, config.serverId(), resume.file());
    }

    private ShardPosition latestPosition(ShardConnection conn) throws Exception {
        TextResultSet rs;
        try {
            rs = await(conn.query("SHOW MASTER STATUS"), "SHOW MASTER STATUS").resultSet();
        } catch (ExecutionException e) {
            rs = await(conn.query("SHOW BINARY LOG STATUS"), "SHOW BINARY LOG STATUS").resultSet();
        }
        if (rs == null || rs.rows().isEmpty()) {
            throw new ShardReaderException(config.shardName(), "cannot start at the latest position: binary logging is off",
                    false, null);
        }
        List<String> row = rs.rows().get(0);
        return ShardPosition.at(row.get(0), Long.parseLong(row.get(1)));
    }

    private <T> T await(CompletableFuture<T> f, String what) throws Exception {
        try {
            return f.get(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new IOException(what + " timed out after " + config.connectTimeout().toMillis() + " ms", e);
        }
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private ShardReaderException classify(Throwable t, ShardPosition resume) {
        String hostPort = config.host() + ":" + config.port();
        if (t instanceof ShardReaderException e) {
            return e;
        }
        if (t instanceof SinkFailure s) {
            return new ShardReaderException(config.shardName(), "sink failed: " + s.getCause(), false, s.getCause());
        }
        if (t instanceof MySqlServerException se) {
            int code = se.code();
            if (code == 1045 || code == 1044 || code == 1698 || code == 1251) {
                return new ShardAuthenticationException(config.shardName(), config.user(), hostPort,
                        "server error " + code + " (" + se.err().sqlState() + "): " + se.err().message(), se);
            }
            if (code == 1236 || code == 1789) {
                return new ShardPositionPurgedException(config.shardName(), resume, availableLogs(), code,
                        se.err().message(), se);
            }
            boolean retriable = code == 1040 || code == 1053 || code == 1158 || code == 1159 || code == 1927 || code == 1317;
            return new ShardReaderException(config.shardName(), se.getMessage(), retriable, se);
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SSLHandshakeException ssl && !String.valueOf(ssl.getMessage()).contains("closed")) {
                // a certificate or protocol mismatch does not heal by retrying (a connection closed mid-handshake may)
                return new ShardReaderException(config.shardName(), "TLS handshake with " + hostPort + " failed: "
                        + ssl.getMessage(), false, t);
            }
        }
        if (t instanceof MySqlProtocolException pe) {
            return new ShardReaderException(config.shardName(), "protocol error from " + hostPort + ": " + pe.getMessage(),
                    false, pe);
        }
        return new ShardReaderException(config.shardName(), t.getClass().getSimpleName() + " talking to " + hostPort
                + ": " + t.getMessage(), true, t);
    }

    /** {@code SHOW BINARY LOGS} on a side connection; empty when that fails too. */
    private List<ShardPositionPurgedException.BinlogFile> availableLogs() {
        List<ShardPositionPurgedException.BinlogFile> files = new ArrayList<>();
        ShardConnection side = null;
        try {
            side = await(ShardConnection.open(group, config), "side connection");
            TextResultSet rs = await(side.query("SHOW BINARY LOGS"), "SHOW BINARY LOGS").resultSet();
            if (rs != null) {
                for (List<String> row : rs.rows()) {
                    files.add(new ShardPositionPurgedException.BinlogFile(row.get(0), Long.parseLong(row.get(1))));
                }
            }
        } catch (Exception e) {
            log.warn("shard {}: SHOW BINARY LOGS failed: {}", config.shardName(), e.toString());
        } finally {
            if (side != null) {
                side.close();
            }
        }
        return files;
    }

    private void fail(ShardReaderException error) {
        running = false;
        state = State.FAILED;
        log.error("shard {}: reader stopped: {}", config.shardName(), error.getMessage());
        buffer.clear();
        try {
            sink.onFailure(error);
        } finally {
            termination.completeExceptionally(error);
            if (ownsGroup) {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The statement text a shard writes beside its row events (MariaDB's ANNOTATE_ROWS, MySQL's ROWS_QUERY): the
     * global binlog does not carry it and nothing downstream reads it, so it ends here, after the tracker has verified
     * it and moved the position past it. Under MariaDB's default ({@code binlog_annotate_row_events=ON}) it was about 28 %
     * of the bytes and of the events of the bench runner's OLTP binlog. (The shard still sends it: without the
     * annotate flag MariaDB leaves it out and the next event's log_pos jumps, which a file past 4 GiB would make
     * ambiguous.)
     */
    static boolean isCommentary(int typeCode) {
        return typeCode == EventType.ANNOTATE_ROWS.code() || typeCode == EventType.ROWS_QUERY.code();
    }

    /** Turns the packets of one dump stream into events in the buffer; runs on the event loop. */
    private final class Listener implements ShardConnection.StreamListener {
        private final ShardConnection conn;
        private final BinlogStreamTracker tracker;
        private boolean ended;

        Listener(ShardConnection conn, BinlogStreamTracker tracker) {
            this.conn = conn;
            this.tracker = tracker;
        }

        @Override
        public void onPacket(ByteBuf payload) {
            if (ended) {
                return;
            }
            int header = payload.isReadable() ? payload.getUnsignedByte(payload.readerIndex()) : -1;
            if (header == MySqlProtocol.OK_HEADER) {
                ShardEvent event;
                try {
                    event = tracker.accept(payload.retainedSlice(payload.readerIndex() + 1, payload.readableBytes() - 1));
                } catch (CorruptShardEventException e) {
                    end(e);
                    return;
                }
                if (isCommentary(event.type())) {
                    event.release(); // its checksum and its place in the binlog were taken into account above
                    return;
                }
                buffer.offerEvent(event, conn.channel());
            } else if (header == MySqlProtocol.ERR_HEADER) {
                end(new MySqlServerException("binlog dump from " + tracker.current(), ErrPacket.decode(payload)));
            } else if (EofPacket.isEof(payload)) {
                end(new IOException("the shard ended the binlog stream (EOF) at " + tracker.current()));
            } else {
                end(new MySqlProtocolException(MySqlError.ER_MALFORMED_PACKET,
                        "unexpected packet in the binlog stream at " + tracker.current() + ": first byte 0x"
                                + Integer.toHexString(header) + ", " + payload.readableBytes() + " bytes"));
            }
        }

        @Override
        public void onFailure(Throwable cause) {
            if (!ended) {
                ended = true;
                buffer.offerFailure(cause);
            }
        }

        private void end(Throwable cause) {
            onFailure(cause);
            conn.close();
        }
    }
}
