package io.tributary.test.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.test.junit.WithShards;
import io.tributary.test.load.SampleLoad;
import io.tributary.test.shard.ShardCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon on Java 25, the runtime of the container image ({@code deploy/Dockerfile}): the project builds for Java 17
 * and the suite runs on the machine's JVM (where {@link DaemonIT} and the other daemon tests run it), so this runs the
 * daemon as the image does, {@code java -jar} of the runnable jar ({@code cdc-daemon/target/cdc-daemon-*-exec.jar}, built before this
 * module in the reactor), on a Java 25 home: {@code -Dtributary.test.java25.home=DIR}, else the newest
 * {@code /usr/lib/jvm/*25*} holding {@code bin/java}. Skipped, with the reason, where there is none.
 */
@WithShards(count = 2)
class DaemonOnJava25IT {

    static Optional<Path> java25() throws IOException {
        String given = System.getProperty("tributary.test.java25.home");
        if (given != null && !given.isBlank()) {
            return Optional.of(Path.of(given)).filter(DaemonOnJava25IT::hasJava);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(h -> h.getFileName().toString().matches(".*\\b25\\b.*|.*-25-.*"))
                    .filter(DaemonOnJava25IT::hasJava).max(Comparator.comparing(Path::toString));
        }
    }

    static Optional<Path> execJar() throws IOException {
        Path target = Path.of("..", "cdc-daemon", "target").toAbsolutePath().normalize();
        if (!Files.isDirectory(target)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(f -> f.getFileName().toString().matches("cdc-daemon-.*-exec\\.jar")).findFirst();
        }
    }

    private static boolean hasJava(Path home) {
        return Files.isExecutable(DaemonProcess.javaBinary(home));
    }

    @Test
    void shouldServeAndStopOnJava25AsTheImageRunsIt(ShardCluster shards, @TempDir Path dir) throws Exception {
        Optional<Path> home = java25();
        assumeTrue(home.isPresent(), "no Java 25 runtime: none under /usr/lib/jvm and no -Dtributary.test.java25.home;"
                + " the container image runs the daemon on Java 25 (deploy/Dockerfile)");
        Optional<Path> jar = execJar();
        assumeTrue(jar.isPresent(), "no runnable jar in ../cdc-daemon/target (run the build from the repository root:"
                + " ./mvnw verify packages it before this module's tests)");
        try (SampleLoad load = new SampleLoad(shards.infos(), 25, 8)) {
            load.createSchema();
            try (DaemonProcess daemon = DaemonProcess.builder(shards.infos(), dir).flavor("mariadb")
                    .javaHome(home.get()).execJar(jar.get()).start()) {
                for (int i = 0; i < 80; i++) {
                    load.step(); // single-shard transactions, and every 8th an XA over both shards (some rolled back)
                }
                daemon.awaitTransactions(60, Duration.ofSeconds(90));
                assertThat(DaemonProcess.sum(daemon.metrics(), "tributary_binlog_dml_events_total")).isGreaterThan(60);
                // the top-level status (UP, or CATCHING_UP while the loaded shards are still ahead): it serves either way
                assertThat(daemon.get("/actuator/health")).containsPattern("\"status\":\"(UP|CATCHING_UP)\",\"components\"");
                assertThat(daemon.stop(Duration.ofSeconds(60))).as("exit code after SIGTERM").isIn(0, 143);
                String log = Files.readString(daemon.logFile());
                assertThat(log).as("the daemon ran on Java 25 (Spring Boot's start line)").containsPattern("using Java 25\\.");
                assertThat(log).contains("Tributary stopped: global binlog durable at");
                // RocksDB's System.loadLibrary warns on Java 22+ unless native access is enabled: the jar's manifest does it
                assertThat(log).as("no warning on Java 25 (restricted or deprecated JDK access)").doesNotContain("WARNING:");
            }
        }
    }
}
