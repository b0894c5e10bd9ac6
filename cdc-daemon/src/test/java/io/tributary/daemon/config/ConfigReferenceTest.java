package io.tributary.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.config.ConfigKey;
import io.tributary.storage.buffer.PersistConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md and the comments of deploy/application.yml are what the key declarations generate, so
 * that neither drifts from what the daemon accepts. {@code -Dconfig.reference.write=true} rewrites them.
 */
class ConfigReferenceTest {

    private static final Path ROOT = Path.of("..");
    private final ConfigReference reference = new ConfigReference();

    @Test
    void shouldMatchTheGeneratedReferenceAndSampleComments() throws IOException {
        if (Boolean.getBoolean("config.reference.write")) {
            reference.write(ROOT);
        }
        String markdown = Files.readString(ROOT.resolve(ConfigReference.MARKDOWN), StandardCharsets.UTF_8);
        assertThat(markdown).as("docs/configuration.md is generated from the key declarations; regenerate it with: %s",
                ConfigReference.REGENERATE).isEqualTo(reference.markdown());
        String sample = Files.readString(ROOT.resolve(ConfigReference.SAMPLE), StandardCharsets.UTF_8);
        assertThat(sample).as("the comments of deploy/application.yml are generated from the key declarations;"
                + " regenerate them with: %s", ConfigReference.REGENERATE).isEqualTo(reference.annotate(sample));
    }

    @Test
    void shouldDocumentEveryKeyWithItsDefault() {
        String markdown = reference.markdown();
        for (ConfigKey<?> k : ConfigCatalogue.keys(new PersistConfig(1L << 30))) {
            assertThat(markdown).as("documents %s", k.name()).contains("| `" + k.name() + "` | ");
            assertThat(k.doc()).as("doc of %s", k.name()).isNotBlank();
        }
        assertThat(markdown).contains("| `storage.memoryLimit` | Long | 25% of the max heap | live |")
                .contains("| `dump.tls.enabled` | Boolean | `true` |").contains("| `binlog.dir` | Path | `data/binlog` |");
    }

    @Test
    void shouldKeepTheSampleKeysAndValuesWhenReplacingComments() {
        String yaml = "# old\nstorage:\n  # stale\n  memoryLimit: 1GB\n\ndump:\n  users:\n    - name: a\n      admin: true\n"
                + "    - name: b\n";
        String annotated = reference.annotate(yaml);
        assertThat(annotated).doesNotContain("# old").doesNotContain("# stale")
                .contains("  # The buffer's memory budget").contains("    # An account downstream tools log in with")
                .contains("      # May change the live settings");
        assertThat(annotated.lines().filter(l -> !l.strip().startsWith("#")).dropWhile(String::isBlank).toList())
                .containsExactlyElementsOf(yaml.replace("# old\n", "").replace("  # stale\n", "").lines().toList());
        assertThat(reference.annotate(annotated)).as("idempotent").isEqualTo(annotated);
    }
}
