package io.tributary.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The jar's {@code --help} and {@code --version}: answered in the daemon's own JVM without starting Spring. */
class TributaryCommandLineTest {

    @Test
    void shouldPrintTheUsageWithoutStarting() throws Exception {
        long start = System.nanoTime();
        MainProcess r = MainProcess.run(TributaryApplication.class, List.of("--help"));
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).startsWith("Tributary " + TributaryApplication.version() + ": merges the binlogs")
                .contains("Usage: java -jar cdc-daemon-" + TributaryApplication.version() + "-exec.jar",
                        "--spring.config.location=FILE", "docs/configuration.md", "docs/operating.md", "--version")
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
}
