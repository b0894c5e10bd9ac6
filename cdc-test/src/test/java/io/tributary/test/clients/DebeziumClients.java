package io.tributary.test.clients;

import io.tributary.test.daemon.DaemonProcess;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The Debezium connectors' configuration as a user writes it for the embedded engine: the connection to the dump
 * port, a server id, a topic prefix, a file offset store and a file schema history, and the snapshot settings a test gives;
 * every other setting is the connector's default. Also the daemon as these tests start it.
 */
final class DebeziumClients {
    static final String MAIN = "io.tributary.clients.debezium.DebeziumClient";

    private DebeziumClients() {
    }

    /** The daemon over the shards, logging every statement its dump port is sent. */
    static DaemonProcess.Builder daemon(DaemonProcess.Builder builder, String flavor) {
        return builder.flavor(flavor).property("logging.level.io.tributary.daemon.dump.ConnectionHandler", "DEBUG");
    }

    /** Writes the connector's properties to {@code dir/<name>.properties} and returns the file. */
    static Path config(Path dir, String name, String connectorClass, DaemonProcess daemon, long serverId,
                       Map<String, String> settings) throws IOException {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("name", name);
        c.put("connector.class", connectorClass);
        c.put("database.hostname", "127.0.0.1");
        c.put("database.port", Integer.toString(daemon.dumpPort()));
        c.put("database.user", DaemonProcess.DUMP_USER);
        c.put("database.password", DaemonProcess.DUMP_PASSWORD);
        c.put("database.server.id", Long.toString(serverId));
        c.put("topic.prefix", name);
        c.put("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        c.put("offset.storage.file.filename", dir.resolve(name + "-offsets.dat").toString());
        c.put("schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory");
        c.put("schema.history.internal.file.filename", dir.resolve(name + "-schema-history.dat").toString());
        c.putAll(settings);
        Properties p = new Properties();
        p.putAll(c);
        Files.createDirectories(dir);
        Path file = dir.resolve(name + ".properties");
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "Debezium " + connectorClass + " against Tributary's dump port");
        }
        return file;
    }

    static CdcClient start(String module, Path config, Path dir, String name) throws IOException {
        return CdcClient.start(module, MAIN, List.of(config.toString()), dir, name);
    }

    /** Waits until the daemon has {@code n} subscribers (clients streaming the global binlog). */
    static void awaitSubscribers(DaemonProcess daemon, int n, Duration timeout, CdcClient client)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (DaemonProcess.sum(daemon.metrics(), "tributary_dump_subscribers") >= n) {
                return;
            }
            client.assertRunning(daemon.tail(60));
            Thread.sleep(250);
        }
        throw new AssertionError("the client did not start streaming within " + timeout + "\n--- its stderr ends with:\n"
                + client.stderrTail(40) + "\n--- the daemon's log ends with:\n" + daemon.tail(40));
    }
}
