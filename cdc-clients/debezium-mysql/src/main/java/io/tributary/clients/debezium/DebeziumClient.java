package io.tributary.clients.debezium;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A Debezium embedded-engine application as a user writes one: the connector configuration comes from a properties
 * file (args[0]) unchanged, and every change event's payload is printed to stdout as one JSON line. A schema change
 * event is printed too (it has a {@code ddl} and no {@code op}). When the engine stops, one last line
 * {@code {"stopped":...}} says whether it failed and why. A line {@code stop} on stdin, or its end, closes the engine
 * the way an application shuts down (offsets of what was printed are committed).
 *
 * <p>The same source is built twice, on the MySQL connector's classpath and on the MariaDB connector's.
 */
public final class DebeziumClient {

    private DebeziumClient() {
    }

    public static void main(String[] args) throws Exception {
        Properties config = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            config.load(r);
        }
        ObjectMapper json = new ObjectMapper();
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        CountDownLatch stopped = new CountDownLatch(1);
        DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
                .using(config)
                .notifying(event -> {
                    if (event.value() == null) {
                        return; // a tombstone
                    }
                    try {
                        JsonNode value = json.readTree(event.value());
                        JsonNode payload = value.has("payload") && value.has("schema") ? value.get("payload") : value;
                        synchronized (out) {
                            out.println(json.writeValueAsString(payload));
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException("an event that is not JSON: " + event.value(), e);
                    }
                })
                .using((success, message, error) -> {
                    ObjectNode end = json.createObjectNode();
                    end.put("stopped", true).put("success", success).put("message", message);
                    if (error != null) {
                        error.printStackTrace();
                        end.put("error", String.valueOf(error));
                    }
                    synchronized (out) {
                        out.println(end);
                    }
                    stopped.countDown();
                })
                .build();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        runner.execute(engine);
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
                    // wait for "stop"
                }
                engine.close();
            } catch (IOException e) {
                e.printStackTrace();
            }
        }, "stdin");
        stdin.setDaemon(true);
        stdin.start();
        stopped.await();
        runner.shutdown();
        System.exit(0);
    }
}
