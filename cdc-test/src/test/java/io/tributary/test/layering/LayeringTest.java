package io.tributary.test.layering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module layering of ARCHITECTURE.md, checked on the main sources: cdc-core knows nothing of
 * Spring, RocksDB or files; cdc-storage nothing of Spring; no module imports one above it.
 */
class LayeringTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void coreImportsNoSpringRocksDbOrFileApis() throws IOException {
        assertThat(violations("cdc-core", Pattern.compile(
                "^import (static )?(org\\.springframework|org\\.rocksdb|java\\.io\\.File\\b|java\\.io\\.File[A-Z]|java\\.nio\\.file|io\\.tributary\\.(storage|daemon|test))")))
                .isEmpty();
    }

    @Test
    void storageImportsNoSpringAndNothingAboveIt() throws IOException {
        assertThat(violations("cdc-storage", Pattern.compile(
                "^import (static )?(org\\.springframework|io\\.tributary\\.(daemon|test))"))).isEmpty();
    }

    @Test
    void daemonImportsNothingFromTheTestModule() throws IOException {
        assertThat(violations("cdc-daemon", Pattern.compile("^import (static )?io\\.tributary\\.test"))).isEmpty();
    }

    private static List<String> violations(String module, Pattern forbidden) throws IOException {
        Path sources = ROOT.resolve(module).resolve("src/main/java");
        assertThat(sources).as("sources of %s", module).isDirectory();
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    if (forbidden.matcher(lines.get(i).trim()).find()) {
                        found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).trim());
                    }
                }
            }
        }
        return found;
    }
}
