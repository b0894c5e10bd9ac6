package io.tributary.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The jar's {@code --help}, {@code --version} and {@code binlog DIR}: answered in the daemon's own JVM without starting Spring. */
class TributaryCommandLineTest {

    @Test
    void shouldPrintTheUsageWithoutStarting() throws Exception {
        long start = System.nanoTime();
        MainProcess r = MainProcess.run(TributaryApplication.class, List.of("--help"));
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("Tributary " + TributaryApplication.version() + ": merges the binlogs")
                .contains("Usage: java -jar cdc-daemon-" + TributaryApplication.version() + "-exec.jar",
                        "--spring.config.location=FILE", "docs/configuration.md", "docs/operating.md", "--version", "binlog DIR")
                .as("nothing started").doesNotContain("Spring Boot", "Starting TributaryApplication", "Tomcat");
        assertThat(millis).as("answered at once, not after a start").isLessThan(15_000);
    }

    @Test
    void shouldPrintTheBuildsVersionWithoutStarting() throws Exception {
        MainProcess r = MainProcess.run(TributaryApplication.class, List.of("--version"));

        assertThat(r.exitCode()).isZero();
        assertThat(r.output().strip()).matches("Tributary \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
        assertThat(TributaryApplication.version()).as("filtered by the build").doesNotContain("${");
    }

    @Test
    void shouldAnswerTheBinlogSubcommandForAMissingDirectoryWithExitCode2(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("no-such-binlog");

        MainProcess r = MainProcess.run(TributaryApplication.class, List.of("binlog", missing.toString()));

        assertThat(r.exitCode()).as(r.output()).isEqualTo(2);
        assertThat(r.output()).contains(missing.toAbsolutePath().toString(), "not a directory")
                .as("nothing started").doesNotContain("Spring Boot", "Starting TributaryApplication");
    }

    @Test
    void shouldPrintTheBinlogSubcommandsUsageWithoutADirectory() throws Exception {
        MainProcess r = MainProcess.run(TributaryApplication.class, List.of("binlog"));

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.output()).contains("usage: binlog <binlog.dir>");
    }
}
