package io.tributary.test.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.ShardCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon on Java 25, the runtime of the container image ({@code deploy/Dockerfile}): the project builds for Java 17
 * and the suite runs on the machine's JVM, so this runs {@link DaemonIT}'s checks once more as the image runs the
 * daemon, {@code java -jar} of the runnable jar ({@code cdc-daemon/target/cdc-daemon-*-exec.jar}, built before this
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
        return Files.isExecutable(home.resolve("bin").resolve("java"));
    }

    @Test
    void shouldServeAndResumeOnJava25(ShardCluster shards, @TempDir Path dir) throws Exception {
        Optional<Path> home = java25();
        assumeTrue(home.isPresent(), "no Java 25 runtime: none under /usr/lib/jvm and no -Dtributary.test.java25.home;"
                + " the container image runs the daemon on Java 25 (deploy/Dockerfile)");
        Optional<Path> jar = execJar();
        assumeTrue(jar.isPresent(), "no runnable jar in ../cdc-daemon/target (run the build from the repository root:"
                + " ./mvnw verify packages it before this module's tests)");
        String log = DaemonIT.runAndRestart(shards, dir, home.get(), jar.get());
        assertThat(log).as("the daemon ran on Java 25 (Spring Boot's start line)").containsPattern("using Java 25\\.");
        // RocksDB's System.loadLibrary warns on Java 22+ unless native access is enabled: the jar's manifest does it
        assertThat(log).as("no warning on Java 25 (restricted or deprecated JDK access)").doesNotContain("WARNING:");
    }
}
