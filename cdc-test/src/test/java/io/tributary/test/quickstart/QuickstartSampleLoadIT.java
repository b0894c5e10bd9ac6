package io.tributary.test.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quickstart as a user runs it (its own JVM, the daemon logging to the console) for a minute of the sample
 * load: nothing in it deserves a warning, so the log has no WARN or ERROR line, and it has one status line per
 * interval.
 */
class QuickstartSampleLoadIT {

    @Test
    void shouldRunTheSampleLoadForAMinuteWithoutAWarning(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("quickstart.log");
        // the class path of the quickstart: the tests' own classes (and their logback-test.xml) left out
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.endsWith("test-classes")).collect(Collectors.joining(File.pathSeparator));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", classPath, Quickstart.class.getName(), "--duration=60",
                "--status-interval=5").directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("quickstart ended").isTrue();
        String output = Files.readString(log, StandardCharsets.UTF_8);

        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).as(output).contains("Tributary started: 2 shards", "Started TributaryApplication", "Stopped.")
                .doesNotContain("Started Quickstart");
        List<String> warnings = output.lines().filter(l -> l.matches(".*\\b(WARN|ERROR)\\b.*")).toList();
        assertThat(warnings).as("WARN and ERROR lines in:%n%s", output).isEmpty();
        long statusLines = output.lines().filter(l -> l.contains("io.tributary.status - status: EPS")).count();
        assertThat(statusLines).as("one status line per 5 s interval in:%n%s", output).isBetween(10L, 14L);
        assertThat(output.lines().filter(l -> l.startsWith("load "))).as("the quickstart's own lines").isNotEmpty();
    }
}
